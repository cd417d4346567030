// The option table (apps/cli/option_table.hpp): a test-only option registered from its own file
// (tests/option_knob.cpp) reaches the option docs the Python keywords come from and a run's
// recorded configuration in process, as `rica.run(..., test_knob=7)` sends it; the built-in
// entries agree with defaults.hpp and EngineConfig, and the engine scopes with the engine checks.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "api.hpp"
#include "options.hpp"
#include "rica/core.hpp"
#include "rica/defaults.hpp"
#include "rica/registry.hpp"

namespace {
using rica::cli::option_docs;

const nlohmann::json* find_keyword(const nlohmann::json& docs, const std::string& keyword) {
  for (const auto& e : docs)
    if (e["keyword"] == keyword) return &e;
  return nullptr;
}

TEST(OptionTable, RegisteredOptionReachesThePythonKeywords) {
  const nlohmann::json run = option_docs("run");
  const nlohmann::json* k = find_keyword(run, "test_knob");
  ASSERT_NE(k, nullptr) << run.dump();
  EXPECT_EQ((*k)["option"], "--test-knob");
  EXPECT_EQ((*k)["default"], "3");
  EXPECT_EQ((*k)["type"], "UINT");
  EXPECT_EQ((*k)["engines"], "the cycle engine only");
  EXPECT_EQ((*k)["kind"], "uint");
  EXPECT_TRUE((*k)["configuration"].get<bool>());
  EXPECT_NE((*k)["help"].get<std::string>().find("Test only"), std::string::npos);
  EXPECT_NE(find_keyword(option_docs("sweep"), "test_knob"), nullptr);
  EXPECT_EQ(find_keyword(option_docs("os"), "test_knob"), nullptr);
  // Built-in entries carry the same facts; positionals are keywords too.
  const nlohmann::json* bw = find_keyword(run, "buffer_words");
  ASSERT_NE(bw, nullptr);
  EXPECT_EQ((*bw)["default"], std::to_string(rica::defaults::engine::buffer_words));
  EXPECT_EQ((*bw)["engines"], "every engine");
  const nlohmann::json* topo = find_keyword(run, "topology");
  ASSERT_NE(topo, nullptr);
  EXPECT_TRUE((*topo)["positional"].get<bool>());
  EXPECT_FALSE((*find_keyword(run, "trace"))["configuration"].get<bool>());
  EXPECT_THROW((void)option_docs("rnu"), rica::usage_error);
  EXPECT_THROW((void)option_docs("app"), rica::usage_error);
}

TEST(OptionTable, RegisteredOptionInARunsConfiguration) {
  const std::string path = testing::TempDir() + "option_table_run.json";
  // What rica.run("torus:4x4", engine="cycle", ..., test_knob=7) sends.
  const rica::cli::RunOutcome out = rica::cli::run_outcome(
      {"torus:4x4", "--engine", "cycle", "--cycles", "200", "--rate", "0.05", "--test-knob", "7"});
  EXPECT_EQ(out.json["config"]["test-knob"], 7);
  EXPECT_EQ(rica::cli::run_command({"run", "torus:4x4", "--engine", "cycle", "--cycles", "200", "--json", path,
                                    "--quiet"}),
            0);
  std::ifstream in(path);
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j["config"]["test-knob"], 3);  // the default, recorded
  std::remove(path.c_str());
  try {
    (void)rica::cli::run_outcome({"torus:4x4", "--test-knob", "7"});
    FAIL() << "the async engine took --test-knob";
  } catch (const rica::usage_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "--test-knob applies to the cycle engine only; add --engine cycle or drop --test-knob");
  }
}

TEST(OptionTable, BuiltInEntriesAgreeWithTheDefaults) {
  const rica::cli::OptionDef* threads = rica::cli::find_option("threads");
  ASSERT_NE(threads, nullptr);
  EXPECT_EQ(threads->hi, rica::defaults::limits::threads);
  rica::cli::EngineOptions o;
  EXPECT_EQ(rica::cli::find_option("packet-words")->show(o), "3:1");
  EXPECT_EQ(rica::cli::find_option("engine")->show(o), "async");
  EXPECT_EQ(rica::cli::find_option("link-cycles")->show(o), "degree");
  // Every cycle-only entry is refused on the async engine by engine_config, and only those.
  for (const rica::cli::OptionDef* d : rica::cli::option_table()) {
    EXPECT_EQ(d->engines(rica::EngineKind::async), d->engines.trait == nullptr) << d->name;
    EXPECT_TRUE(d->engines(rica::EngineKind::cycle)) << d->name;
  }
  // The model line comes from the entries, in their places; the async engine shows no cycle-only phrase.
  rica::EngineConfig cfg;
  EXPECT_EQ(rica::cli::model_line(cfg, nullptr),
            "engine async, buffers 32 words/port/class, packets 3+-1 words, classes each topology's own");
  cfg.engine = rica::EngineKind::cycle;
  cfg.router_cycles = 2;
  EXPECT_EQ(rica::cli::model_line(cfg, nullptr, false),
            "engine cycle, timing vct, link time pin-limited, in + out degree cycles per packet (--link-cycles 1: "
            "equal link bandwidth), arbitration oldest, "
            "router 2 cycles per hop, buffers 32 words/port/class, packets 3+-1 words, classes each topology's own");
  // Issue 45: with a network, the link times on it; equal link bandwidth says so without a hint.
  const rica::Topology torus = rica::TopologyRegistry::parse("torus:4x4");
  EXPECT_NE(rica::cli::model_line(cfg, &torus, false).find("link time pin-limited, in + out degree cycles per packet, "
                                                           "8 here (--link-cycles 1: equal link bandwidth)"),
            std::string::npos);
  cfg.link_cycles = 1;
  EXPECT_NE(rica::cli::model_line(cfg, &torus, false).find("link time equal link bandwidth, 1 cycle per packet,"),
            std::string::npos);
}

TEST(OptionTable, FaultsParsedOnceIntoTheTypedSpec) {
  CLI::App app{"t"};
  auto* run = app.add_subcommand("run");
  rica::cli::EngineOptions o;
  rica::cli::add_engine_options(run, o);
  app.parse(std::vector<std::string>{"nodes=1,links=2", "--faults", "run"});
  ASSERT_TRUE(o.fault_spec.has_value());
  EXPECT_EQ(o.fault_spec->links, 2u);
  EXPECT_EQ(o.fault_spec->nodes, 1u);
  EXPECT_EQ(o.faults, "nodes=1,links=2");  // as given, for the reports
}
}  // namespace

namespace {
// Command-specific entries (apps/cli/command_options.cpp): one name on disjoint subcommands, a
// subcommand's own default, the options that do not apply with another, all in the table.
TEST(OptionTable, CommandEntriesAreTableEntries) {
  const rica::cli::OptionDef* one = rica::cli::find_option("rate", "run");
  const rica::cli::OptionDef* grid = rica::cli::find_option("rate", "sweep");
  ASSERT_NE(one, nullptr);
  ASSERT_NE(grid, nullptr);
  EXPECT_NE(one, grid);
  EXPECT_EQ(rica::cli::find_option("rates", "sweep"), grid);  // the alias
  EXPECT_EQ(rica::cli::find_option("rates", "run"), nullptr);
  EXPECT_EQ(one->not_with, "app");
  // --help's defaults: run's warm-up 0, sweep's a tenth of the window; the grid's default.
  const nlohmann::json run = option_docs("run"), sweep = option_docs("sweep");
  EXPECT_EQ((*find_keyword(run, "warmup"))["default"], "0");
  EXPECT_EQ((*find_keyword(sweep, "warmup"))["default"],
            std::to_string(rica::defaults::engine::cycles / rica::defaults::sweep::warmup_divisor));
  EXPECT_EQ((*find_keyword(sweep, "rate"))["default"], "0.01,0.02,0.03,0.04,0.05,0.06,0.07,0.08,0.09,0.1");
  EXPECT_EQ((*find_keyword(sweep, "rate"))["type"], "RATES");
  EXPECT_EQ((*find_keyword(run, "rate"))["type"], "RATE");
  for (const char* k : {"traffic", "rate", "packets", "seeds", "telemetry", "trace_events", "app"})
    EXPECT_TRUE((*find_keyword(run, k))["table"].get<bool>()) << k;
  EXPECT_FALSE((*find_keyword(run, "telemetry"))["configuration"].get<bool>());
  const nlohmann::json sort = option_docs("app sort");
  EXPECT_TRUE((*find_keyword(sort, "keys"))["table"].get<bool>());
  EXPECT_EQ((*find_keyword(sort, "keys"))["default"], std::to_string(rica::defaults::apps::sort_keys));
  EXPECT_EQ(find_keyword(option_docs("app run"), "map"), nullptr);
  // The sweep's warm-up follows --cycles when not given; given, it is kept.
  CLI::App app{"t"};
  auto* s = app.add_subcommand("sweep");
  rica::cli::EngineOptions o;
  o.cfg.engine = rica::EngineKind::cycle;
  rica::cli::add_engine_options(s, o);
  app.parse(std::vector<std::string>{"20000", "--cycles", "sweep"});
  EXPECT_EQ(rica::cli::engine_config(o).warmup, 2000u);
}

TEST(OptionTable, TrafficOptionsDoNotApplyToAnApplication) {
  try {
    (void)rica::cli::run_outcome({"torus:4x4", "--app", "reduce", "--packets", "9"});
    FAIL() << "--packets with --app accepted";
  } catch (const rica::usage_error& e) {
    EXPECT_EQ(std::string(e.what()), "--packets does not apply to --app runs; drop --packets or --app");
  }
  const rica::cli::RunOutcome out =
      rica::cli::run_outcome({"torus:4x4", "--engine", "cycle", "--app", "reduce:rounds=2", "--threads", "1"});
  EXPECT_FALSE(out.json["config"].contains("rate"));  // left out of an application's configuration
  EXPECT_FALSE(out.json["config"].contains("packets"));
  EXPECT_EQ(out.json["config"]["app"], "reduce:rounds=2");
}
}  // namespace
