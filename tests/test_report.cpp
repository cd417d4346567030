// The report writers (rica/report.hpp): the one CSV writer and reader, per-PE and per-link tables.
#include <gtest/gtest.h>

#include "rica/engine.hpp"
#include "rica/registry.hpp"
#include "rica/report.hpp"
#include "traffic.hpp"

namespace rica {
namespace {

TEST(Report, CsvFieldQuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(report::csv_field("torus:4x4"), "torus:4x4");
  EXPECT_EQ(report::csv_field("dce:n=7,S=8"), "\"dce:n=7,S=8\"");
  EXPECT_EQ(report::csv_field("a\"b"), "\"a\"\"b\"");
  EXPECT_EQ(report::csv_field(" x"), "\" x\"");
}

TEST(Report, CsvRoundTripsAwkwardLabels) {
  const std::vector<std::string> fields = {"a,\"b", "", "plain", "line\nbreak", "\"", ",", "  spaced  ", "x\r\ny"};
  const std::string text = report::csv_row(fields) + report::csv_row({"1", "2"});
  const auto rows = report::csv_parse(text);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0], fields);
  EXPECT_EQ(rows[1], (std::vector<std::string>{"1", "2"}));
}

TEST(Report, CsvParseRefusesBrokenQuotes) {
  EXPECT_THROW(report::csv_parse("a,\"b\n"), usage_error);     // never closed
  EXPECT_THROW(report::csv_parse("a,b\"c\n"), usage_error);    // quote inside an unquoted field
  EXPECT_THROW(report::csv_parse("a,\"b\"c\n"), usage_error);  // text after the closing quote
  EXPECT_EQ(report::csv_parse("a,b\r\nc,d").size(), 2u);       // CRLF, no final newline
}

TEST(Report, PerPeAndPerLinkTablesReadBack) {
  // torus labels hold commas: "(1,2)".
  const Topology t = TopologyRegistry::parse("torus:4x4");
  TrafficOptions to;
  to.packets = 20;
  auto app = TrafficRegistry::make("uniform", t, to);
  EngineConfig cfg;
  cfg.engine = EngineKind::cycle;
  cfg.threads = 1;
  cfg.cycles = 200;
  const RunStats st = run(t, *app, cfg);
  const auto pe = report::csv_parse(report::pe_csv(t, st));
  ASSERT_EQ(pe.size(), t.nodes() + 1u);
  std::uint64_t delivered = 0;
  for (std::size_t v = 0; v < t.nodes(); ++v) {
    ASSERT_EQ(pe[v + 1].size(), 6u);
    EXPECT_EQ(pe[v + 1][1], t.label(static_cast<node_t>(v)));
    delivered += std::stoull(pe[v + 1][3]);
  }
  EXPECT_EQ(delivered, st.delivered);
  const auto links = report::csv_parse(report::link_csv(t, st));
  std::uint64_t hops = 0;
  for (std::size_t i = 1; i < links.size(); ++i) hops += std::stoull(links[i][3]);
  EXPECT_EQ(hops, st.hops);
  EXPECT_EQ(report::link_csv_path("out/r.csv"), "out/r.links.csv");
  const auto j = report::run_summary(t, cfg, st);
  EXPECT_EQ(j["delivered"], st.delivered);
  EXPECT_EQ(j["model"]["engine"], "cycle");
}

}  // namespace
}  // namespace rica
