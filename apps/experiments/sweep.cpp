// Latency-throughput sweeps on the cycle engine (sweep.hpp).
#include "rica/distributed.hpp"
#include "sweep.hpp"

#include "rica/report.hpp"
#include "rica/channel_load.hpp"  // link_model_text

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "app_registry.hpp"
#include "experiment.hpp"
#include "run_statistics.hpp"
#include "rica/defaults.hpp"
#include "traffic.hpp"

#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef RICA_SCRIPTS_FROM_LIB
#define RICA_SCRIPTS_FROM_LIB "../share/rica/scripts"
#endif
#ifndef RICA_SCRIPTS_FROM_BIN
#define RICA_SCRIPTS_FROM_BIN "../share/rica/scripts"
#endif
#ifndef RICA_INSTALL_SCRIPTS_DIR
#define RICA_INSTALL_SCRIPTS_DIR "/usr/local/share/rica/scripts"
#endif

namespace rica::experiments {
namespace {

double parse_rate(const std::string& s, const std::string& option) { return parse_real(s, option, 0.0, 1.0, true); }

/// `s` in single quotes for the shell.
std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') q.append("'\\''");
    else q.push_back(c);
  }
  q.push_back('\'');
  return q;
}

}  // namespace

std::unique_ptr<App> make_app(const SweepJob& job, const EngineConfig& cfg) {
  if (!job.app.empty()) return AppRegistry::make(job.app, job.topology);
  if (job.paced)
    if (auto app = TrafficRegistry::make_paced(job.traffic, traffic::PeSpace::of(job.topology), job.rate, cfg.cycles))
      return app;
  TrafficOptions to;
  to.rate = job.rate;
  to.packets = cfg.cycles;
  to.seed = job.seed;
  to.source_queue = job.source_queue;
  to.min_words = cfg.packet_words - cfg.packet_spread;
  to.max_words = cfg.packet_words + cfg.packet_spread;
  return TrafficRegistry::make(job.traffic, job.topology, to);
}

SweepPoint run_point(const SweepJob& job, const EngineConfig& base) {
  EngineConfig cfg = base;
  cfg.seed = job.seed;
  cfg.routing = job.routing;
  cfg.progress = false;
  auto app = make_app(job, cfg);
  const RunStats st = run_cycles(job.topology, *app, cfg);
  if (st.deadlock) throw std::runtime_error(st.deadlock_report);
  if (!st.conservation_ok || !st.app_ok)
    throw std::runtime_error(job.app.empty()
                                 ? fmt::format("{} under {} at rate {}: packets not accounted for ({})",
                                               job.topology.spec(), job.traffic, job.rate, st.app_message)
                                 : fmt::format("{} on {}: not verified ({})", job.app, job.topology.spec(),
                                               st.app_message));
  SweepPoint p;
  p.network = job.network.empty() ? job.topology.spec() : job.network;
  p.topology = job.topology.spec();
  p.traffic = job.traffic;
  p.routing = to_string(job.routing);
  p.faults = job.faults.empty() ? "none" : job.faults;
  p.rate = job.rate;
  // Paced: a round is round_packets packets per PE at most (mesh: 4, fewer on a non-wrapping border).
  const PacedSchedule* paced = job.paced ? TrafficRegistry::paced(job.traffic) : nullptr;
  p.offered = paced ? std::min(1.0, paced->round_packets * job.rate) : job.rate;
  p.seed = job.seed;
  p.accepted = st.throughput;
  const double window = static_cast<double>(cfg.cycles - cfg.warmup);
  p.generated = static_cast<double>(st.measured) / (window * job.topology.pes());
  p.warmup = cfg.warmup;
  p.delivered = static_cast<std::uint64_t>(st.throughput * window * job.topology.pes() + 0.5);
  p.latency_mean = st.latency_mean;
  p.latency_p50 = st.latency_p50;
  p.latency_p99 = st.latency_p99;
  p.hops_mean = st.hops_mean;
  p.cycles = cfg.cycles;
  p.cycles_run = st.cycles_run;
  p.wall_s = st.wall_s;
  if (!job.app.empty()) {
    p.app = job.app;
    p.injected = st.injected;
    p.link_load_max = st.link_load_max;
    p.link_load_mean = st.link_load_mean;
    p.app_summary = app->summary();
  }
  return p;
}

std::vector<SweepPoint> run_sweep(const std::vector<SweepJob>& jobs, const EngineConfig& cfg, unsigned parallel,
                                  const SweepProgress& progress) {
  validate(cfg);
  std::vector<SweepPoint> points(jobs.size());
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex mu;  // guards error, done and the progress callback
  std::size_t done = 0;
  auto worker = [&] {
    while (!failed.load()) {
      const std::size_t i = next.fetch_add(1);
      if (i >= jobs.size()) return;
      try {
        points[i] = run_point(jobs[i], cfg);
      } catch (...) {
        std::lock_guard lock(mu);
        if (!error) error = std::current_exception();
        failed = true;
        return;
      }
      std::lock_guard lock(mu);
      ++done;
      if (progress) progress(done, jobs.size(), points[i]);
    }
  };
  const unsigned n = std::max(1u, std::min<unsigned>(parallel, static_cast<unsigned>(jobs.size())));
  if (n == 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (unsigned k = 0; k < n; ++k) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
  }
  if (error) std::rethrow_exception(error);
  return points;
}

std::vector<double> parse_rates(const std::string& s, const std::string& option) {
  std::vector<double> r;
  if (s.empty()) throw usage_error(fmt::format("{}: empty; give FROM:TO:STEP or a comma list of rates in (0, 1]", option));
  if (s.find(':') != std::string::npos) {
    const auto c1 = s.find(':'), c2 = s.find(':', c1 + 1);
    if (c2 == std::string::npos || s.find(':', c2 + 1) != std::string::npos)
      throw usage_error(fmt::format("{}: '{}' must be FROM:TO:STEP or a comma list", option, s));
    const double a = parse_rate(s.substr(0, c1), option), b = parse_rate(s.substr(c1 + 1, c2 - c1 - 1), option),
                 step = parse_rate(s.substr(c2 + 1), option);
    if (b < a) throw usage_error(fmt::format("{}: '{}': TO is below FROM", option, s));
    // Points a + i*step for i = 0.. while <= b (tolerance 1e-9); a grid above the limit is refused,
    // never truncated.
    const double count = std::floor((b - a) / step + 1e-9) + 1;
    if (count > static_cast<double>(defaults::limits::rates))
      throw usage_error(fmt::format("{}: '{}' has {:.0f} points; at most {} are accepted", option, s, count,
                                    defaults::limits::rates));
    // Rounded to 12 significant digits, so 0.01:0.1:0.01 gives 0.06, not 0.060000000000000005.
    for (std::size_t i = 0; i < static_cast<std::size_t>(count); ++i)
      r.push_back(std::stod(fmt::format("{:.12g}", a + static_cast<double>(i) * step)));
  } else {
    std::size_t start = 0;
    while (start <= s.size()) {
      const auto comma = s.find(',', start);
      const std::string item = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (item.empty())
        throw usage_error(fmt::format("{}: '{}' has an empty element; give rates in (0, 1] separated by commas",
                                      option, s));
      r.push_back(parse_rate(item, option));
      if (r.size() > defaults::limits::rates)
        throw usage_error(fmt::format("{}: more than {} rates", option, defaults::limits::rates));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return r;
}

void set_link_cycles(EngineConfig& cfg, const std::string& text, const std::string& option) {
  cfg.link_cycles = 0;
  cfg.link_cycles_words = false;
  if (text == "degree") return;
  if (text == "words") {
    cfg.link_cycles_words = true;
    return;
  }
  if (text.empty() || text.front() < '0' || text.front() > '9')
    throw usage_error(fmt::format("{}: '{}' is not accepted; give degree, words or cycles in [1, {}]", option, text,
                                  defaults::limits::link_cycles));
  cfg.link_cycles = static_cast<unsigned>(parse_uint(text, option, 1, defaults::limits::link_cycles));
}

std::vector<Routing> parse_routings(const std::string& text, const std::string& option) {
  std::vector<Routing> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    const std::string name = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (name.empty())
      throw usage_error(fmt::format("{}: '{}' has an empty routing; give names separated by commas, e.g. "
                                    "deterministic,valiant,ugal-l",
                                    option, text));
    const Routing r = routing_by_name(name, option);
    if (std::find(out.begin(), out.end(), r) != out.end())
      throw usage_error(fmt::format("{}: routing '{}' is given twice in '{}'", option, name, text));
    out.push_back(r);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string routings_text(const std::vector<Routing>& routings) {
  std::string s;
  for (Routing r : routings) s += (s.empty() ? "" : ",") + std::string(to_string(r));
  return s;
}

std::string link_cycles_text(const EngineConfig& cfg) {
  if (cfg.link_cycles) return std::to_string(cfg.link_cycles);
  return cfg.link_cycles_words ? "words" : "degree";
}


void set_packet_words(EngineConfig& cfg, const std::string& s, const std::string& option) {
  const auto c = s.find(':');
  if (s.empty() || c == 0 || (c != std::string::npos && c + 1 == s.size()))
    throw usage_error(fmt::format("{}: '{}' must be MEAN or MEAN:SPREAD, e.g. 3:1", option, s));
  const auto mean = static_cast<unsigned>(
      parse_uint(s.substr(0, c), option + " (MEAN)", 1, defaults::limits::packet_words));
  const auto spread = c == std::string::npos
                          ? 0u
                          : static_cast<unsigned>(parse_uint(s.substr(c + 1), option + " (SPREAD, below MEAN)", 0, mean - 1));
  cfg.packet_words = mean;
  cfg.packet_spread = spread;
}

std::string csv_field(const std::string& text) { return report::csv_field(text); }

namespace {
std::string& scripts_dir() {
  static std::string dir;
  return dir;
}
}  // namespace

void set_scripts_dir(std::string dir) { scripts_dir() = std::move(dir); }

std::string find_plot_script(const std::string& script) {
  namespace fs = std::filesystem;
  std::vector<fs::path> dirs;
  if (const char* env = std::getenv("RICA_SCRIPTS_DIR"); env && *env) dirs.emplace_back(env);
  if (!scripts_dir().empty()) dirs.emplace_back(scripts_dir());
  // The module holding this code (a shared librica_experiments, or the executable it is linked
  // into), then the running executable: share/rica/scripts relative to each (installed layout),
  // and share/rica/scripts beside each (the build tree's copy).
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&find_plot_script), &info) != 0 && info.dli_fname) {
    std::error_code ec;
    const fs::path mod = fs::canonical(info.dli_fname, ec);
    if (!ec) {
      dirs.push_back(mod.parent_path() / RICA_SCRIPTS_FROM_LIB);
      dirs.push_back(mod.parent_path() / RICA_SCRIPTS_FROM_BIN);
      dirs.push_back(mod.parent_path() / "share/rica/scripts");
    }
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    dirs.push_back(exe.parent_path() / RICA_SCRIPTS_FROM_BIN);
    dirs.push_back(exe.parent_path() / "share/rica/scripts");
  }
  dirs.emplace_back(RICA_INSTALL_SCRIPTS_DIR);
  for (const fs::path& d : dirs)
    if (fs::is_regular_file(d / script, ec)) return (d / script).lexically_normal().string();
  return "";
}

bool run_plot_script(const std::string& script, const std::vector<std::string>& args, std::string* bad_input) {
  if (dist::rank() != 0) return true;  // under mpirun, rank 0 writes every output (docs/distributed.md)
  const std::string path = find_plot_script(script);
  if (path.empty()) {
    fmt::print(stderr, "rica: plots skipped ({} not found beside rica or under {}; set RICA_SCRIPTS_DIR)\n", script,
               RICA_INSTALL_SCRIPTS_DIR);
    return false;
  }
  const std::string py = std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  std::string cmd = fmt::format("{} {}", py, quote(path));
  for (const auto& a : args) cmd += fmt::format(" {}", quote(a));
  // The script's standard error goes to a file: its one-line reason on bad input is ours to report.
  char err_path[] = "/tmp/rica-plot-XXXXXX";
  const int fd = mkstemp(err_path);
  if (fd < 0) throw std::runtime_error(fmt::format("plots: cannot create a temporary file: {}", std::strerror(errno)));
  close(fd);
  cmd += fmt::format(" 2>{}", quote(err_path));
  std::fflush(stdout);
  const int status = std::system(cmd.c_str());
  std::string err;
  if (std::FILE* f = std::fopen(err_path, "r")) {
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) err.append(buf, n);
    std::fclose(f);
  }
  std::remove(err_path);
  constexpr int script_bad_input = 65, script_no_matplotlib = 66;  // scripts/rica_plot.py
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == script_bad_input) {
    const std::string line = err.substr(0, err.find('\n'));
    if (bad_input != nullptr) {
      *bad_input = line;
      return false;
    }
    fmt::print(stderr, "rica: plots skipped ({})\n", line);
    return false;
  }
  std::fputs(err.c_str(), stderr);  // warnings, or the failure's own report
  if (status == 0) return true;
  if (code == script_no_matplotlib)
    fmt::print(stderr, "rica: plots skipped (matplotlib not found; install python3-matplotlib)\n");
  else
    fmt::print(stderr, "rica: plots skipped ({} failed, exit status {})\n", script, code);
  return false;
}

std::string points_csv(const std::vector<SweepPoint>& points, const std::string& traffic, const EngineConfig& cfg,
                       unsigned source_queue) {
  const std::string link = link_cycles_text(cfg);
  const std::string pw = fmt::format("{}:{}", cfg.packet_words, cfg.packet_spread);
  std::string text = report::csv_row({"topology", "traffic", "offered", "generated", "accepted", "delivered",
                                      "latency_mean", "latency_p99", "hops_mean", "cycles", "warmup", "link_cycles",
                                      "timing", "arbitration", "buffer_words", "packet_words", "source_queue", "seed",
                                      "routing", "faults"});
  for (const auto& p : points)
    text += report::csv_row({p.topology, traffic, fmt::format("{:.6g}", p.offered), fmt::format("{:.6g}", p.generated),
                             fmt::format("{:.6g}", p.accepted), std::to_string(p.delivered),
                             fmt::format("{:.4f}", p.latency_mean), fmt::format("{:.1f}", p.latency_p99),
                             fmt::format("{:.4f}", p.hops_mean), std::to_string(p.cycles), std::to_string(p.warmup),
                             link, to_string(cfg.timing), to_string(cfg.arbitration), std::to_string(cfg.buffer_words),
                             pw, std::to_string(source_queue), std::to_string(p.seed), p.routing, p.faults});
  return text;
}

nlohmann::json points_json(const std::vector<SweepPoint>& points) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& p : points)
    rows.push_back({{"topology", p.topology}, {"offered", p.offered}, {"generated", p.generated},
                    {"accepted", p.accepted}, {"delivered", p.delivered}, {"latency_mean", p.latency_mean},
                    {"latency_p99", p.latency_p99}, {"hops_mean", p.hops_mean}, {"cycles_run", p.cycles_run},
                    {"seed", p.seed}});
  return rows;
}

SeedMeans seed_means(const std::vector<SweepPoint>& points, const std::string& traffic, unsigned seeds) {
  SeedMeans m;
  m.csv = report::csv_row({"topology", "traffic", "offered", "seeds", "generated_mean", "accepted_mean",
                           "accepted_ci95", "latency_mean", "latency_ci95", "latency_p99_mean", "latency_p99_ci95",
                           "hops_mean", "routing", "faults"});
  for (std::size_t i = 0; i + seeds <= points.size(); i += seeds) {
    const SweepPoint& first = points[i];
    auto stat = [&](double SweepPoint::*field) {
      std::vector<double> v;
      for (std::size_t k = i; k < i + seeds; ++k) v.push_back(points[k].*field);
      return mean_ci95(v);
    };
    const auto acc = stat(&SweepPoint::accepted);
    const auto gen = stat(&SweepPoint::generated);
    const auto lat = stat(&SweepPoint::latency_mean);
    const auto p99 = stat(&SweepPoint::latency_p99);
    const auto hops = stat(&SweepPoint::hops_mean);
    m.csv += report::csv_row({first.topology, traffic, fmt::format("{:.6g}", first.offered), std::to_string(seeds),
                              fmt::format("{:.6g}", gen.first), fmt::format("{:.6g}", acc.first),
                              fmt::format("{:.6g}", acc.second), fmt::format("{:.4f}", lat.first),
                              fmt::format("{:.4f}", lat.second), fmt::format("{:.2f}", p99.first),
                              fmt::format("{:.2f}", p99.second), fmt::format("{:.4f}", hops.first), first.routing,
                              first.faults});
    m.json.push_back({{"topology", first.topology}, {"routing", first.routing}, {"offered", first.offered}, {"seeds", seeds},
                      {"generated", gen.first}, {"accepted", acc.first}, {"accepted_ci95", acc.second},
                      {"latency_mean", lat.first}, {"latency_ci95", lat.second}, {"latency_p99", p99.first},
                      {"latency_p99_ci95", p99.second}});
  }
  return m;
}

nlohmann::json sweep_model(const EngineConfig& cfg, unsigned source_queue) {
  return {{"engine", "cycle"},
          {"timing", to_string(cfg.timing)},
          {"arbitration", to_string(cfg.arbitration)},
          {"routing", to_string(cfg.routing)},
          {"link_cycles", link_cycles_text(cfg)},
          {"link_model", link_model_text(cfg)},
          {"buffer_words", cfg.buffer_words},
          {"packet_words", fmt::format("{}:{}", cfg.packet_words, cfg.packet_spread)},
          {"cycles", cfg.cycles},
          {"warmup", cfg.warmup},
          {"source_queue", source_queue}};
}

}  // namespace rica::experiments
