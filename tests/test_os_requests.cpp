// rica os and rica os-stream as typed library requests (rica/request/os.hpp, os_stream.hpp): a C++
// caller's request is refused with exactly the CLI's one-line message for the same input (the CLI
// runs in process: rica::cli::run_command), each option the request declares (fields.hpp) is the
// CLI's option, and a run gives the CLI's figures.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api.hpp"
#include "config_file.hpp"
#include "rica/request/os.hpp"
#include "rica/request/os_stream.hpp"

#include "refusal.hpp"

using namespace rica;

namespace {

using test::refusal;

/// What `rica ARGS` prints after "rica: error: " (run in this process; nothing is run when refused).
std::string cli_refusal(const std::vector<std::string>& args) {
  return refusal([&] { (void)cli::run_command(args); });
}

request::Os small_os() {
  request::Os r;
  r.topology = "torus:4x4";
  r.packets = 5;
  r.engine.threads = 1;
  return r;
}

request::OsStream small_stream() {
  request::OsStream r;
  r.topology = "torus:4x4";
  r.jobs = "poisson:jobs=2,rate=1,size=2,length=1";
  r.engine.threads = 1;
  return r;
}

/// The request `r` changed by `change` is refused as the CLI refuses `args`: the same message,
/// which contains `needle`.
template <class R, class Change>
void refused_alike(R r, Change change, const std::vector<std::string>& args, const std::string& needle) {
  change(r);
  const std::string mine = refusal([&] { request::validate(r); });
  EXPECT_EQ(mine, cli_refusal(args));
  EXPECT_NE(mine.find(needle), std::string::npos) << mine;
}

}  // namespace

TEST(OsRequest, RefusesAsTheCli) {
  const request::Os r = small_os();
  const std::vector<std::string> os = {"os", "torus:4x4", "--packets", "5"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = os;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  // A job that is no traffic pattern or application: the nearest name suggested.
  refused_alike(r, [](auto& q) { q.jobs = {"uniform", "unifrom"}; }, with({"--job", "uniform", "--job", "unifrom"}),
                "did you mean 'uniform'?");
  refused_alike(r, [](auto& q) { q.jobs = {"redcue", "uniform"}; }, with({"--job", "redcue", "--job", "uniform"}),
                "did you mean 'reduce'?");
  refused_alike(r, [](auto& q) { q.jobs = {"uniform"}; }, with({"--job", "uniform"}), "at least 2 jobs");
  refused_alike(r, [](auto& q) { q.policies = {"dran"}; }, with({"--policy", "dran"}), "did you mean 'drain'?");
  // Impossible partitions.
  refused_alike(r, [](auto& q) { q.partition = 5; }, with({"--partition", "5"}), "out of range [0, 0]");
  refused_alike(r, [](auto& q) { q.parts = 2, q.partition = 5; }, with({"--parts", "2", "--partition", "5"}),
                "--partition: 5 is out of range [0, 1] (the cut makes 2 partitions)");
  refused_alike(r, [](auto& q) { q.dims = "9"; }, with({"--dims", "9"}), "dimension 9");
  // Faults the time-shared jobs cannot have.
  refused_alike(r, [](auto& q) { q.faults = "links=1,at=10"; }, with({"--faults", "links=1,at=10"}), "at=CYCLE");
  refused_alike(r, [](auto& q) { q.faults = "nodes=1"; }, with({"--faults", "nodes=1"}), "every PE");
  refused_alike(r, [](auto& q) { q.faults = "links=1", q.parts = 2; }, with({"--faults", "links=1", "--parts", "2"}),
                "drop --parts/--dims or --faults");
  refused_alike(r, [](auto& q) { q.faults = "links=x"; }, with({"--faults", "links=x"}), "--faults");
  // Each kind of declared option, out of what it accepts.
  refused_alike(r, [](auto& q) { q.slices = {500, 0}; }, with({"--slice", "500,0"}), "--slice");
  refused_alike(r, [](auto& q) { q.slices = {}; }, with({"--slice", ""}), "--slice: empty");
  refused_alike(r, [](auto& q) { q.rates = {0.1, 0}; }, with({"--rate", "0.1,0"}), "--rate");
  refused_alike(r, [](auto& q) { q.packets = 0; }, {"os", "torus:4x4", "--packets", "0"}, "--packets");
  refused_alike(r, [](auto& q) { q.io_hop_cycles = 1025; }, with({"--io-hop-cycles", "1025"}), "--io-hop-cycles");
  refused_alike(r, [](auto& q) { q.policies = {"drain", ""}; }, with({"--policy", "drain,"}), "empty element");
  refused_alike(r, [](auto& q) { q.jobs = {"uniform", ""}; }, with({"--job", "uniform", "--job", ""}), "--job");
  refused_alike(r, [](auto& q) { q.topology = ""; }, {"os", ""}, "os <topology>: empty");
  refused_alike(r, [](auto& q) { q.topology = "torsu:4x4"; }, {"os", "torsu:4x4"}, "did you mean 'torus'?");
  refused_alike(r, [](auto& q) { q.engine.threads = 5000; }, with({"--threads", "5000"}), "--threads");
  refused_alike(r, [](auto& q) { q.engine.buffer_words = 2; }, with({"--buffer-words", "2"}), "buffer-words");
}

TEST(OsStreamRequest, RefusesAsTheCli) {
  const request::OsStream r = small_stream();
  const std::vector<std::string> s = {"os-stream", "torus:4x4", "--jobs", "poisson:jobs=2,rate=1,size=2,length=1"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = s;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  refused_alike(r, [](auto& q) { q.allocs = {"budy"}; }, with({"--alloc", "budy"}), "did you mean 'buddy'?");
  refused_alike(r, [](auto& q) { q.scheds = {"fifo"}; }, with({"--sched", "fifo"}), "--sched");
  refused_alike(r, [](auto& q) { q.policies = {"dran"}; }, with({"--policy", "dran"}), "did you mean 'drain'?");
  refused_alike(r, [](auto& q) { q.job = "sortt@1;uniform@1"; }, with({"--job", "sortt@1;uniform@1"}),
                "did you mean 'sort'?");
  refused_alike(r, [](auto& q) { q.job_map = "1=sort"; }, with({"--job-map", "1=sort"}), "--job-map");
  refused_alike(r, [](auto& q) { q.cycles_per_second = 0; }, with({"--cycles-per-second", "0"}),
                "--cycles-per-second");
  refused_alike(r, [](auto& q) { q.rate = 1.5; }, with({"--rate", "1.5"}), "--rate");
  refused_alike(r, [](auto& q) { q.rows = 65; }, with({"--rows", "65"}), "--rows");
  refused_alike(r, [](auto& q) { q.jobs = "poisson:jobs=2,rate=0,size=2,length=1"; },
                {"os-stream", "torus:4x4", "--jobs", "poisson:jobs=2,rate=0,size=2,length=1"}, "--jobs");
  refused_alike(r, [](auto& q) { q.jobs = ""; }, {"os-stream", "torus:4x4", "--jobs", ""}, "--jobs: empty");
}

TEST(OsRequest, DeclaredOptionsAreTheClis) {
  // Every option a request declares is the CLI's, with its help (fields.hpp: declared once).
  for (const auto& [command, infos] :
       {std::pair{std::string("os"), [] {
                    std::vector<request::FieldInfo> v;
                    for (const auto& f : request::Os::fields()) v.push_back(f.info);
                    return v;
                  }()},
        std::pair{std::string("os-stream"), [] {
                    std::vector<request::FieldInfo> v;
                    for (const auto& f : request::OsStream::fields()) v.push_back(f.info);
                    return v;
                  }()}}) {
    const nlohmann::json docs = cli::option_docs(command);
    for (const request::FieldInfo& f : infos) {
      bool found = false;
      for (const auto& d : docs)
        if (d["option"] == f.name) {
          found = true;
          if (f.kind != request::FieldKind::rate) {
            EXPECT_NE(d["help"].get<std::string>().find(f.help_text().substr(0, 20)), std::string::npos) << f.name;
          }
        }
      EXPECT_TRUE(found) << command << " " << f.name;
    }
  }
  // The registry's names are in the help, as they register.
  bool drain_pe = false;
  for (const auto& f : request::Os::fields())
    if (std::string(f.info.name) == "--policy") drain_pe = f.info.help_text().find("drain-pe") != std::string::npos;
  EXPECT_TRUE(drain_pe);
}

TEST(OsRequest, RunsAsTheCli) {
  request::Os r = small_os();
  r.rates = {0.2};
  r.slices = {50};
  r.policies = {"drain"};
  std::size_t started = 0, next = 0;
  request::OsHooks hooks;
  hooks.started = [&](const request::OsOutcome& o) {
    ++started;
    EXPECT_TRUE(o.runs.empty());
    EXPECT_EQ(o.where, "the whole machine");
  };
  hooks.next = [&](std::size_t done, const std::string&) { EXPECT_EQ(done, next++); };
  const request::OsOutcome out = request::run(r, hooks);
  EXPECT_EQ(started, 1u);
  ASSERT_EQ(out.runs.size(), r.runs());
  EXPECT_EQ(next, r.runs());
  EXPECT_EQ(out.runs[0].policy, "baseline");
  EXPECT_EQ(out.runs[1].policy, "drain");
  EXPECT_EQ(out.status(), 0);
  // The CLI's report for the same options: the same runs and sums.
  const auto dir = std::filesystem::temp_directory_path() / ("rica-os-request-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string json = (dir / "os.json").string();
  EXPECT_EQ(cli::run_command({"os", "torus:4x4", "--packets", "5", "--threads", "1", "--rate", "0.2", "--slice", "50",
                              "--policy", "drain", "--quiet", "--json", json}),
            0);
  std::ifstream in(json);
  const nlohmann::json cli = nlohmann::json::parse(in);
  const nlohmann::json mine = out.to_json();
  for (const char* key : {"topology", "faults", "partition", "jobs", "model", "policies", "runs"})
    EXPECT_EQ(mine[key], cli[key]) << key;
  std::filesystem::remove_all(dir);
}

TEST(OsStreamRequest, RunsAsTheCli) {
  request::OsStream r = small_stream();
  r.scheds = {"fcfs", "gang"};
  r.policies = {"drain", "flush"};
  const request::OsStreamOutcome out = request::run(r);
  ASSERT_EQ(out.runs.size(), 3u);  // fcfs (space sharing), gang x 2 policies
  EXPECT_EQ(out.planned, 3u);
  EXPECT_EQ(out.runs[0].policy, "none");
  EXPECT_EQ(out.status(), 0);
  const nlohmann::json cli = cli::os_stream_json({"torus:4x4", "--jobs", "poisson:jobs=2,rate=1,size=2,length=1",
                                                  "--threads", "1", "--sched", "fcfs,gang", "--policy", "drain,flush"});
  const nlohmann::json mine = out.to_json();
  for (const char* key : {"topology", "stream", "model", "runs"}) EXPECT_EQ(mine[key], cli[key]) << key;
  EXPECT_EQ(out.summary_csv().substr(0, 20), "alloc,sched,policy,j");
}
