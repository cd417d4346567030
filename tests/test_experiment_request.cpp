// `rica experiment` as a typed library request (rica/request/experiment.hpp): a C++ caller gets the
// CLI's refusals word for word (the CLI in this process, rica::cli::run_command, against
// request::validate), validate() creates nothing, and run() writes the files the CLI writes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "api.hpp"
#include "config_file.hpp"
#include "rica/request/experiment.hpp"

#include "refusal.hpp"

using namespace rica;
namespace fs = std::filesystem;

namespace {
using test::refusal;

std::string cli_refusal(std::vector<std::string> args) {
  args.insert(args.begin(), "experiment");
  return refusal([&] { (void)cli::run_command(args); });
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A fresh directory of one test (the tests may run at once, each in its own process).
fs::path scratch(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("rica-test-experiment-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

/// One bad request and the same on the command line: the refusal is the CLI's.
struct Bad {
  request::Experiment request;
  std::vector<std::string> argv;
  std::string expected;  ///< a part of the message
};
}  // namespace

TEST(ExperimentRequest, RefusesAsTheCli) {
  const fs::path dir = scratch("refusals");
  fs::create_directories(dir / "blocked" / "table.md");  // a directory where a file goes
  const std::string blocked = (dir / "blocked").string(), fresh = (dir / "fresh" / "sub").string();
  auto with = [](auto change) {
    request::Experiment r;
    r.name = "rwc1";
    change(r);
    return r;
  };
  const std::vector<Bad> cases = {
      {with([](auto& r) { r.name = "mdce-dleta"; }), {"mdce-dleta"}, "did you mean 'mdce-delta'?"},
      {with([](auto& r) { r.name = ""; }), {}, "give a name"},
      {with([](auto& r) { r.cycles = 0; }), {"rwc1", "--cycles", "0"}, "--cycles: '0' is not an integer in [1, "},
      {with([](auto& r) { r.jobs = 1025; }), {"rwc1", "--jobs", "1025"}, "--jobs"},
      {with([](auto& r) { r.threads = 5000; }), {"rwc1", "--threads", "5000"}, "--threads"},
      {with([](auto& r) { r.seeds = 1001; }), {"rwc1", "--seeds", "1001"}, "--seeds"},
      {with([](auto& r) { r.seed = ~std::uint64_t{0}, r.seeds = 2; }),
       {"rwc1", "--seed", "18446744073709551615", "--seeds", "2"}, "--seed/--seeds"},
      {with([](auto& r) { r.networks = {"XY"}; }), {"rwc1", "--networks", "XY"}, "unknown network 'XY' of experiment 'rwc1'; valid: CB,"},
      {with([](auto& r) { r.networks = {"CCBC"}; }), {"rwc1", "--networks", "CCBC"},
       "--networks: unknown network 'CCBC' of experiment 'rwc1'; did you mean 'CCCB'? valid: CB,"},
      {with([](auto& r) { r.patterns = {"unifrom"}; }), {"rwc1", "--patterns", "unifrom"},
       "--patterns: unknown pattern 'unifrom' of experiment 'rwc1'; did you mean 'uniform'? valid: uniform,"},
      {with([](auto& r) { r.patterns = {"localized"}; }), {"rwc1", "--patterns", "localized"}, "--patterns"},
      {with([](auto& r) { r.patterns = {"mesh:wrap=7"}; }), {"rwc1", "--patterns", "mesh:wrap=7"}, "wrap"},
      {with([](auto& r) { r.name = "adaptive", r.faults = "links=1"; }), {"adaptive", "--faults", "links=1"},
       "which --faults does not support"},
      {with([](auto& r) { r.faults = "links=x"; }), {"rwc1", "--faults", "links=x"}, "--faults"},
      {with([](auto& r) { r.name = "faults", r.networks = {"2DT"}; }), {"faults", "--networks", "2DT"}, "do not apply"},
      {with([](auto& r) { r.name = "faults", r.faults = "links=1"; }), {"faults", "--faults", "links=1"},
       "--faults does not apply"},
      {with([](auto& r) { r.out = "/dev/null"; }), {"rwc1", "--out", "/dev/null"}, "not a directory"},
      {with([](auto& r) { r.out = "/dev/null/sub"; }), {"rwc1", "--out", "/dev/null/sub"},
       "--out: cannot create directory '/dev/null/sub'"},
      {with([&](auto& r) { r.out = blocked; }), {"rwc1", "--out", blocked}, "table.md' is a directory"},
  };
  for (const Bad& b : cases) {
    const std::string mine = refusal([&] { request::validate(b.request); });
    EXPECT_NE(mine.find(b.expected), std::string::npos) << mine;
    EXPECT_EQ(mine, cli_refusal(b.argv)) << "rica experiment with the request's " << b.expected;
  }
  // An output directory not yet there is fine, and validate() does not create it.
  request::Experiment r;
  r.name = "rwc1";
  r.out = fresh;
  EXPECT_EQ(refusal([&] { request::validate(r); }), "(accepted)");
  EXPECT_FALSE(fs::exists(fresh));
  EXPECT_FALSE(fs::exists(blocked + "/points.csv"));  // refused before anything was written
  fs::remove_all(dir);
}

TEST(ExperimentRequest, OptionsDeclaredOnceAreTheClis) {
  // Every declared option is one of `rica experiment`'s, with the declared help and range.
  const nlohmann::json docs = cli::option_docs("experiment");
  for (const request::ExperimentOption& o : request::experiment_options()) {
    const auto it = std::find_if(docs.begin(), docs.end(), [&](const nlohmann::json& d) { return d["option"] == o.name; });
    ASSERT_NE(it, docs.end()) << o.name;
    EXPECT_EQ((*it)["help"].get<std::string>().rfind(o.help, 0), 0u) << o.name;
  }
}

TEST(ExperimentRequest, RunsWriteTheClisFiles) {
  const fs::path dir = scratch("runs");
  request::Experiment r;
  r.name = "rwc1";
  r.quick = true;
  r.networks = {"CCCB"};
  r.patterns = {"uniform", "mesh"};
  r.cycles = 200;
  r.jobs = 1;
  r.out = (dir / "request").string();
  std::size_t started = 0, points = 0;
  const request::ExperimentOutcome out =
      request::run(r, {.start = [&](const std::string& plan, std::size_t runs) {
                         started = runs;
                         EXPECT_NE(plan.find("1 networks x 2 patterns"), std::string::npos) << plan;
                       },
                       .point = [&](std::size_t, std::size_t, const std::string&) { ++points; }});
  EXPECT_EQ(out.runs, 9u);  // 4 uniform rates, 4 mesh rates and the closed loop
  EXPECT_EQ(started, out.runs);
  EXPECT_EQ(points, out.runs);
  EXPECT_EQ(out.report["setup"], out.config);
  EXPECT_EQ(out.report["config"]["name"], "rwc1");  // the default provenance: the request's fields
  EXPECT_EQ(out.table.size(), 2u);
  EXPECT_EQ(out.plot_script, "plot_experiment.py");
  (void)cli::run_command({"experiment", "rwc1", "--quick", "--networks", "CCCB", "--patterns", "uniform,mesh",
                          "--cycles", "200", "--jobs", "1", "--no-plot", "--quiet", "--out", (dir / "cli").string(), "--json", (dir / "cli.json").string()});
  for (const char* f : {"points.csv", "table.csv", "table.json", "table.md"})
    EXPECT_EQ(read(dir / "request" / f), read(dir / "cli" / f)) << f;
  const nlohmann::json cli_config = nlohmann::json::parse(read(dir / "cli" / "config.json"));
  nlohmann::json mine = out.config;
  mine.erase("wall_s");
  nlohmann::json theirs = cli_config;
  theirs.erase("wall_s");
  EXPECT_EQ(mine, theirs);
  fs::remove_all(dir);
}
