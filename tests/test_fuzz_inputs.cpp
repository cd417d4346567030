// Seeded fuzzing of everything a user types or points rica at (issue 11): topology specs, the
// `file:` edge-list reader, and option values (the CLI's options.hpp and the sweep parsers).
// Property: every input is either accepted, giving a value that satisfies its documented bounds,
// or refused with usage_error (or CLI11's ParseError for the command line itself); nothing else
// escapes, nothing crashes, nothing hangs. A fixed seed per test keeps CI deterministic; set
// RICA_FUZZ_ITERATIONS to run longer locally.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "options.hpp"
#include "rica/core.hpp"
#include "rica/defaults.hpp"
#include "rica/io.hpp"
#include "rica/registry.hpp"
#include "rica/topology/table.hpp"
#include "sweep.hpp"

namespace rica {
namespace {

std::size_t iterations(std::size_t ci) {
  const char* env = std::getenv("RICA_FUZZ_ITERATIONS");
  return env ? std::strtoull(env, nullptr, 10) : ci;
}

/// A random edit of `s`: insert, delete, replace or duplicate a character or a chunk, drawing
/// from characters that matter to the grammars (digits, separators, parentheses, signs).
std::string mutate(std::string s, std::mt19937_64& rng) {
  static const std::string alphabet = "0123456789:,=x*/()-+.eE nNSBCPkKdelta\t\n#";
  const int edits = 1 + static_cast<int>(rng() % 3);
  for (int e = 0; e < edits; ++e) {
    const std::size_t at = s.empty() ? 0 : rng() % (s.size() + 1);
    switch (rng() % 5) {
      case 0: s.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
      case 1: if (at < s.size()) s.erase(at, 1 + rng() % 3); break;
      case 2: if (at < s.size()) s[at] = alphabet[rng() % alphabet.size()]; break;
      case 3: if (!s.empty()) s.insert(at, s.substr(rng() % s.size(), 1 + rng() % 6)); break;
      default: {  // a number at a boundary of some type
        static const char* const edges[] = {"0", "1", "-1", "65535", "65536", "4294967295", "4294967296",
                                            "18446744073709551616", "99999999999999999999", "1e9", "8192"};
        s.insert(at, edges[rng() % std::size(edges)]);
      }
    }
  }
  return s;
}

/// Every property a parsed topology promises the engine: sizes within the types, routes over
/// existing ports within the declared classes, ending at the destination.
void expect_sane(const Topology& t, std::mt19937_64& rng) {
  ASSERT_GE(t.nodes(), 1u);
  ASSERT_LE(std::uint64_t{t.nodes()}, max_nodes);
  ASSERT_LE(t.pes(), t.nodes());
  ASSERT_LE(std::uint32_t{t.ports()}, max_ports);
  ASSERT_GE(t.buffer_classes(), 1u);
  if (t.nodes() > 5000 || t.pes() < 2) return;  // routing checked on small machines only (time)
  for (int k = 0; k < 8; ++k) {
    const node_t s = static_cast<node_t>(rng() % t.pes()), d = static_cast<node_t>(rng() % t.pes());
    node_t cur = s;
    class_t cls = 0;
    std::uint64_t steps = 0;
    for (;;) {
      const Hop h = t.route(cur, d, cls);
      if (h.delivers()) break;
      ASSERT_LT(h.port(), t.ports()) << t.spec();
      ASSERT_LT(h.next_class(), t.buffer_classes()) << t.spec();
      const Link l = t.out_link(cur, h.port());
      ASSERT_TRUE(l.present()) << t.spec();
      cur = l.peer;
      cls = h.next_class();
      ASSERT_LE(++steps, std::uint64_t{t.nodes()} * t.buffer_classes() + 1) << t.spec() << ": routing loop";
    }
    ASSERT_EQ(cur, d) << t.spec();
  }
}

TEST(Fuzz, TopologySpecsAreParsedOrRefused) {
  std::mt19937_64 rng(11);
  std::vector<std::string> seeds;
  for (const auto& e : TopologyRegistry::available())
    if (e.name != "file") seeds.push_back(e.example);
  for (const char* s : {"hier:(mesh:2x2)/(mesh:2)", "product:(torus:3x3)*(hier:mesh:2x2/mesh:2)", "cccb:n=4",
                        "kary:k=4,n=3", "torus:8x8x16", "mdce:B=1,C=1,P=1,n=4", "dce:n=4,delta=2"})
    seeds.emplace_back(s);
  const auto t0 = std::chrono::steady_clock::now();
  std::size_t accepted = 0, refused = 0;
  const std::size_t n = iterations(1500);
  for (std::size_t i = 0; i < n; ++i) {
    std::string spec = seeds[rng() % seeds.size()];
    if (rng() % 8) spec = mutate(spec, rng);
    try {
      const Topology t = TopologyRegistry::parse(spec);
      ++accepted;
      expect_sane(t, rng);
      if (::testing::Test::HasFatalFailure()) FAIL() << "spec '" << spec << "'";
      if (rng() % 2 && spec.size() < 200) seeds.push_back(t.spec());  // grow the corpus with valid specs
    } catch (const usage_error&) {
      ++refused;
    } catch (const std::exception& e) {
      FAIL() << "spec '" << spec << "' threw a non-usage error: " << e.what();
    }
  }
  EXPECT_GT(accepted, n / 20);
  EXPECT_GT(refused, n / 20);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(120));
}

TEST(Fuzz, NestedCompositesNeverWrapTheirClassCount) {
  // hier doubles its cluster's classes at every level: 16 levels hold 65535 classes, 17 do not.
  std::string h = "hier:(mesh:2x2)/(mesh:2)";
  for (int level = 2; level <= 17; ++level) {
    h = "hier:(" + h + ")/(mesh:2)";
    const std::uint64_t classes = (std::uint64_t{1} << (level + 1)) - 1;
    if (classes <= max_buffer_classes) {
      const Topology t = TopologyRegistry::parse(h);
      EXPECT_EQ(t.buffer_classes(), classes) << "level " << level;
    } else {
      EXPECT_THROW((void)TopologyRegistry::parse(h), usage_error) << "level " << level;
    }
  }
  EXPECT_THROW((void)TopologyRegistry::parse(std::string(5000, '(')), usage_error);
}

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/rica-fuzz-XXXXXX";
    path_ = ::mkdtemp(tmpl);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  [[nodiscard]] std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

TEST(Fuzz, EdgeListFilesAreParsedOrRefused) {
  std::mt19937_64 rng(12);
  TempDir dir;
  const std::string path = dir.file("net.txt");
  const std::vector<std::string> seeds = {
      "nodes 4\n0 1\n1 2\n2 3\n3 0\n",
      "# ring\nnodes 8\npes 6\nlabel 0 first\n0 1\n1 2\n2 3\n3 4\n4 5\n5 6\n6 7\n7 0\n",
      "directed\n0 1\n1 2\n2 0\n",
      "nodes 3\n0 1\n1 2\n"};
  std::size_t accepted = 0;
  const std::size_t n = iterations(600);
  for (std::size_t i = 0; i < n; ++i) {
    std::string text = seeds[rng() % seeds.size()];
    const int rounds = 1 + static_cast<int>(rng() % 4);
    for (int r = 0; r < rounds; ++r) text = mutate(text, rng);
    write_text_file(path, text, "fuzz");
    try {
      const Topology t = TopologyRegistry::parse("file:" + path);
      ++accepted;
      expect_sane(t, rng);
      if (::testing::Test::HasFatalFailure()) FAIL() << "file:\n" << text;
    } catch (const usage_error&) {
    } catch (const std::exception& e) {
      FAIL() << "file threw a non-usage error: " << e.what() << "\n" << text;
    }
  }
  EXPECT_GT(accepted, 0u);
}

TEST(Fuzz, ReadsAreBounded) {
  TempDir dir;
  const ReadLimits small{100, 10};
  // Devices and FIFOs are refused without reading or blocking.
  EXPECT_THROW((void)read_text_file("/dev/zero", "t", small), usage_error);
  const std::string fifo = dir.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_THROW((void)read_text_file(fifo, "t", small), usage_error);
  EXPECT_THROW((void)read_text_file(dir.file(""), "t", small), usage_error);  // a directory
  EXPECT_THROW((void)read_text_file(dir.file("missing"), "t", small), usage_error);
  EXPECT_THROW((void)read_text_file("", "t", small), usage_error);
  const std::string f = dir.file("f");
  write_text_file(f, "0123456789\n0123456789\n", "t");
  EXPECT_EQ(read_text_file(f, "t", small).size(), 22u);
  write_text_file(f, "0123456789a\n", "t");
  EXPECT_THROW((void)read_text_file(f, "t", small), usage_error);  // an 11-byte line
  write_text_file(f, std::string(101, '\n'), "t");
  EXPECT_THROW((void)read_text_file(f, "t", small), usage_error);  // 101 bytes
  // Topology files and key files go through the same bounds.
  EXPECT_THROW((void)TopologyRegistry::parse("file:/dev/zero"), usage_error);
  EXPECT_THROW((void)TopologyRegistry::parse("file:" + fifo), usage_error);
  write_text_file(f, std::string(defaults::input::topology_line_bytes + 1, '1'), "t");
  EXPECT_THROW((void)TopologyRegistry::parse("file:" + f), usage_error);
}

TEST(Fuzz, WritesAreChecked) {
  TempDir dir;
  EXPECT_THROW(write_text_file("/dev/full", "x", "--json"), usage_error);
  EXPECT_THROW(write_text_file("", "x", "--json"), usage_error);
  // Issue 45: missing parent directories are checked creatable, then created, as --out's are; under
  // a regular file they cannot be (refused by the check and by the write, even as root).
  EXPECT_NO_THROW(check_output_file(dir.file("no/such"), "--json"));
  EXPECT_FALSE(std::filesystem::exists(dir.file("no")));  // checking creates nothing
  EXPECT_NO_THROW(write_text_file(dir.file("no/such/dir"), "x", "--json"));
  EXPECT_TRUE(std::filesystem::is_regular_file(dir.file("no/such/dir")));
  write_text_file(dir.file("plain"), "x", "--json");
  EXPECT_THROW(check_output_file(dir.file("plain/sub/x.json"), "--json"), usage_error);
  EXPECT_THROW(write_text_file(dir.file("plain/sub/x.json"), "x", "--json"), usage_error);
  EXPECT_THROW(check_output_file("", "--json"), usage_error);
  EXPECT_THROW(check_output_file(dir.file(""), "--json"), usage_error);
  EXPECT_NO_THROW(check_output_file(dir.file("new.json"), "--json"));
  EXPECT_FALSE(std::filesystem::exists(dir.file("new.json")));  // checking creates nothing
  EXPECT_THROW(prepare_output_dir("/dev/null", "--out"), usage_error);
  EXPECT_THROW(prepare_output_dir("", "--out"), usage_error);
  EXPECT_NO_THROW(prepare_output_dir(dir.file("a/b"), "--out"));
  EXPECT_TRUE(std::filesystem::is_directory(dir.file("a/b")));
}

/// A random option value: mutations of valid values, numbers at type edges, or garbage.
std::string random_value(std::mt19937_64& rng) {
  static const char* const seeds[] = {"1",      "0",        "-1",   "3:1",  "degree", "words", "0.1",
                                      "0.01:0.1:0.01", "0.1,0.2", "async", "cycle",  "vct",   "rr",
                                      "1e23",   "18446744073709551615", "4096", "64",  "nan",  ""};
  std::string v = seeds[rng() % std::size(seeds)];
  if (rng() % 3) v = mutate(v, rng);
  return v;
}

TEST(Fuzz, OptionValuesAreParsedWithinTheirBoundsOrRefused) {
  std::mt19937_64 rng(13);
  const char* const options[] = {"--engine", "--timing", "--arbitration", "--threads",     "--seed",
                                 "--buffer-words", "--packet-words", "--link-cycles", "--batch", "--block",
                                 "--cycles", "--warmup", "--packets", "--rate", "--rates", "--jobs", "--json"};
  TempDir dir;
  const std::size_t n = iterations(3000);
  std::size_t accepted = 0;
  for (std::size_t i = 0; i < n; ++i) {
    CLI::App app{"fuzz"};
    auto* c = app.add_subcommand("run", "fuzzed");
    cli::EngineOptions eo;
    cli::add_engine_options(c, eo);  // the machine's and run's own entries (--packets, --rate) of the table
    const std::optional<std::uint64_t>& packets = eo.values.packets;
    const double& rate = eo.values.rate;
    std::vector<double> rates{0.1};
    unsigned jobs = 1;
    std::string json;
    cli::add_rates(c, "--rates", rates, "rates");
    cli::add_jobs(c, jobs, "jobs");
    cli::add_output_file(c, "--json", json, "json");
    std::vector<std::string> args{"fuzz", "run"};
    const int k = 1 + static_cast<int>(rng() % 3);
    for (int j = 0; j < k; ++j) {
      const std::string opt = options[rng() % std::size(options)];
      args.push_back(opt);
      args.push_back(opt == "--json" ? dir.file(random_value(rng)) : random_value(rng));
    }
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    try {
      app.parse(static_cast<int>(argv.size()), argv.data());
      const EngineConfig cfg = cli::engine_config(eo);
      ++accepted;
      // Accepted: every value inside its documented bound (no wrap, no clamp).
      EXPECT_LE(cfg.threads, defaults::limits::threads);
      EXPECT_GE(cfg.cycles, 1u);
      EXPECT_LE(cfg.cycles, defaults::limits::cycles);
      EXPECT_LT(cfg.warmup, cfg.cycles);
      EXPECT_GE(cfg.buffer_words, cfg.packet_words + cfg.packet_spread);
      EXPECT_LE(cfg.link_cycles, defaults::limits::link_cycles);
      if (packets) {
        EXPECT_LE(*packets, defaults::limits::packets);
      }
      EXPECT_TRUE(rate > 0 && rate <= 1);
      for (double r : rates) EXPECT_TRUE(r > 0 && r <= 1);
      EXPECT_LE(rates.size(), defaults::limits::rates);
      EXPECT_LE(jobs, defaults::limits::jobs);
    } catch (const usage_error&) {
    } catch (const CLI::ParseError&) {
    } catch (const std::exception& e) {
      std::string line;
      for (const auto& a : args) line += " '" + a + "'";
      FAIL() << "args" << line << " threw a non-usage error: " << e.what();
    }
  }
  EXPECT_GT(accepted, 0u);
}

TEST(Fuzz, NumbersNeverWrapOrClamp) {
  EXPECT_THROW((void)parse_uint("-1", "--packets", 1, 10), usage_error);
  EXPECT_THROW((void)parse_uint("1e23", "--packets", 1, 10), usage_error);
  EXPECT_THROW((void)parse_uint("18446744073709551616", "--seed", 0, ~std::uint64_t{0}), usage_error);
  EXPECT_THROW((void)parse_uint("+1", "--packets", 1, 10), usage_error);
  EXPECT_THROW((void)parse_uint("", "--packets", 1, 10), usage_error);
  EXPECT_EQ(parse_uint("18446744073709551615", "--seed", 0, ~std::uint64_t{0}), ~std::uint64_t{0});
  EXPECT_THROW((void)parse_real("nan", "--rate", 0, 1, true), usage_error);
  EXPECT_THROW((void)parse_real("inf", "--rate", 0, 1, true), usage_error);
  EXPECT_THROW((void)parse_real("0", "--rate", 0, 1, true), usage_error);
  EXPECT_DOUBLE_EQ(parse_real("1", "--rate", 0, 1, true), 1.0);
  try {
    (void)parse_uint("-1", "--packets", 1, 1000);
  } catch (const usage_error& e) {
    EXPECT_EQ(std::string(e.what()), "--packets: '-1' is not an integer in [1, 1000]");
  }
  EXPECT_THROW((void)experiments::parse_rates("0.1,,0.2"), usage_error);
  EXPECT_THROW((void)experiments::parse_rates("0.0001:1:0.0001"), usage_error);  // 10,000 points
  EXPECT_EQ(experiments::parse_rates("0.001:1:0.001").size(), 1000u);
  EngineConfig cfg;
  EXPECT_THROW(experiments::set_link_cycles(cfg, "0"), usage_error);
}

// Issue 28 item 7: input echoed into an error is quoted, escaped and cut; every byte value of a
// fuzzed file comes out as one line of printable ASCII.
TEST(Fuzz, EchoedInputIsEscapedAndCut) {
  EXPECT_EQ(quote_input("edge"), "'edge'");
  EXPECT_EQ(quote_input(std::string("a\0b\x1b[1m\xff'\\", 10)), "'a\\x00b\\x1b[1m\\xff\\x27\\x5c'");
  EXPECT_EQ(quote_input(std::string(100, 'A')), "'" + std::string(60, 'A') + "'...");
  EXPECT_EQ(quote_input("abcdef", 3), "'abc'...");
  std::mt19937_64 rng(28);
  for (std::size_t i = 0; i < iterations(2000); ++i) {
    std::string raw(rng() % 200, '\0');
    for (char& c : raw) c = static_cast<char>(rng());
    const std::string q = quote_input(raw);
    EXPECT_LE(q.size(), 2 + 60 * 4 + 3);
    for (char c : q) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << q;
  }
  // A parser's refusal of such a file: one printable line.
  const std::string path = ::testing::TempDir() + "rica_binary_edges.txt";
  std::ofstream(path, std::ios::binary) << std::string("\x00\x01\xff\x1b[31m 1\n", 11);
  try {
    (void)load_edge_list_file(path);
    ADD_FAILURE() << "a binary edge list was accepted";
  } catch (const usage_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("'\\x00\\x01\\xff\\x1b[31m'"), std::string::npos) << m;
    for (char c : m) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << m;
  }
  std::filesystem::remove(path);
}

// Issue 28 items 4 and 8: outputs that collide and seeds that wrap are refused.
TEST(Fuzz, CollidingOutputsAndWrappingSeedsAreRefused) {
  const std::string dir = ::testing::TempDir();
  EXPECT_THROW(cli::check_distinct_outputs({{"--json", dir + "same"}, {"--csv", dir + "./same"}}), usage_error);
  EXPECT_THROW(cli::check_distinct_outputs({{"--json", "-"}, {"--trace", "-"}}), usage_error);
  EXPECT_NO_THROW(cli::check_distinct_outputs({{"--json", dir + "a"}, {"--csv", dir + "b"}, {"--trace", ""}}));
  EXPECT_NO_THROW(cli::check_distinct_outputs({{"--json", "/dev/null"}, {"--csv", "/dev/null"}}));
  EXPECT_NO_THROW(cli::check_distinct_outputs({{"--json", "-"}, {"--csv", dir + "-"}}));
  constexpr std::uint64_t top = ~std::uint64_t{0};
  EXPECT_THROW(cli::check_seeds(top, 2), usage_error);
  EXPECT_THROW(cli::check_seeds(top - 998, 1000), usage_error);
  EXPECT_NO_THROW(cli::check_seeds(top - 999, 1000));
  EXPECT_NO_THROW(cli::check_seeds(top, 1));
}

}  // namespace
}  // namespace rica
