// Job streams (rica/os_stream.hpp): the Standard Workload Format of the Parallel Workloads
// Archive and synthetic Poisson streams; the registries of allocators and schedulers.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "rica/io.hpp"
#include "rica/os_stream.hpp"
#include "rica/registry.hpp"
#include "rica/suggest.hpp"
#include "stream_builtin.hpp"

namespace rica {

namespace {

/// SWF fields the workbench reads (1-based numbers as the format defines them).
struct SwfField {
  unsigned number;
  const char* name;
};
constexpr SwfField f_job{1, "job number"}, f_submit{2, "submit time"}, f_run{4, "run time"},
    f_alloc{5, "allocated processors"}, f_req_pes{8, "requested processors"}, f_req_time{9, "requested time"},
    f_exec{14, "executable number"};

/// Field `f` of an SWF line as a number: an integer or decimal, -1 allowed (unknown).
double swf_number(const std::vector<std::string>& fields, SwfField f, const std::string& where) {
  const std::string& t = fields[f.number - 1];
  std::size_t used = 0;
  double x = 0;
  try {
    x = std::stod(t, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != t.size() || !std::isfinite(x) || (x < 0 && x != -1))
    throw usage_error(fmt::format("{}: field {} ({}): {} is not a number >= 0 (or -1, unknown)", where, f.number,
                                  f.name, quote_input(t)));
  return x;
}

void sort_by_submit(JobStream& s) {
  std::stable_sort(s.jobs.begin(), s.jobs.end(), [](const StreamJob& a, const StreamJob& b) { return a.submit < b.submit; });
  if (s.jobs.empty()) return;
  const double t0 = s.jobs.front().submit;
  for (StreamJob& j : s.jobs) j.submit -= t0;
}

}  // namespace

JobStream parse_swf(std::istream& in, const std::string& name) {
  JobStream s;
  s.source = name;
  std::string line;
  std::uint64_t number = 0;
  std::unordered_map<std::uint64_t, std::uint64_t> line_of;  // job number -> its line
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == ';') continue;  // blank or header comment
    const std::string where = fmt::format("{}:{}", name, number);
    std::istringstream words(line);
    std::vector<std::string> fields;
    for (std::string w; words >> w;) fields.push_back(w);
    if (fields.size() != 18)
      throw usage_error(fmt::format("{}: field {}: a job line has 18 fields (SWF), this one has {}: {}", where,
                                    std::min<std::size_t>(fields.size() + 1, 19), fields.size(), quote_input(line)));
    const double id = swf_number(fields, f_job, where), submit = swf_number(fields, f_submit, where),
                 run = swf_number(fields, f_run, where), alloc = swf_number(fields, f_alloc, where),
                 req_pes = swf_number(fields, f_req_pes, where), req_time = swf_number(fields, f_req_time, where),
                 exec = swf_number(fields, f_exec, where);
    if (exec != std::floor(exec) || exec > 9e15)
      throw usage_error(fmt::format("{}: field 14 (executable number): {} is not an integer >= 0 (or -1, unknown)", where,
                                    quote_input(fields[13])));
    if (id < 0 || id != std::floor(id) || id > 9e15)
      throw usage_error(fmt::format("{}: field 1 (job number): {} is not an integer in [0, 9e15]", where,
                                    quote_input(fields[0])));
    if (submit < 0)
      throw usage_error(fmt::format("{}: field 2 (submit time): -1; every job needs its submit time", where));
    for (const auto& [f, x] : {std::pair{f_submit, submit}, std::pair{f_run, run}, std::pair{f_req_time, req_time}})
      if (x > defaults::os_stream::max_seconds)
        throw usage_error(fmt::format("{}: field {} ({}): {} s is beyond {:g} s (31,700 years)", where, f.number, f.name,
                                      quote_input(fields[f.number - 1]), defaults::os_stream::max_seconds));
    const double pes = alloc > 0 ? alloc : req_pes;
    // Job numbers name jobs (results, errors): each once, skipped jobs included.
    if (const auto [it, fresh] = line_of.emplace(static_cast<std::uint64_t>(id), number); !fresh)
      throw usage_error(fmt::format("{}: field 1 (job number): job {} is already on line {}; job numbers are unique",
                                    where, quote_input(fields[0]), it->second));
    if (run <= 0 || pes <= 0) continue;  // unknown run time or size (a cancelled job): skipped
    if (pes != std::floor(pes) || pes > double(max_nodes))
      throw usage_error(fmt::format("{}: field {} ({}): {} is not a processor count in [1, {}]", where,
                                    alloc > 0 ? 5 : 8, alloc > 0 ? f_alloc.name : f_req_pes.name,
                                    quote_input(fields[alloc > 0 ? 4 : 7]), max_nodes));
    StreamJob j;
    j.id = static_cast<std::uint64_t>(id);
    j.submit = submit;
    j.run_time = run;
    j.requested_time = req_time > 0 ? req_time : 0;
    j.pes = static_cast<node_t>(pes);
    j.executable = static_cast<std::int64_t>(exec);
    j.line = number;
    s.jobs.push_back(j);
  }
  if (s.jobs.empty()) throw usage_error(fmt::format("{}: no job with a known run time and size (SWF)", name));
  sort_by_submit(s);
  return s;
}

JobStream load_swf(const std::string& path) {
  const std::string text =
      read_text_file(path, "--jobs", {defaults::os_stream::max_swf_bytes, std::uint64_t{1} << 16});
  std::istringstream in(text);
  return parse_swf(in, path);
}

JobStream poisson_stream(const std::string& spec) {
  const std::string what = "--jobs poisson";
  std::uint64_t jobs = 0, seed = 1;
  double rate = 0, length = 0;
  node_t lo = 0, hi = 0;
  const std::string rest = spec.substr(spec.find(':') == std::string::npos ? spec.size() : spec.find(':') + 1);
  std::vector<std::string> seen;
  std::size_t at = 0;
  while (at <= rest.size() && !rest.empty()) {
    const std::size_t comma = std::min(rest.find(',', at), rest.size());
    const std::string kv = rest.substr(at, comma - at);
    at = comma + 1;
    const std::size_t eq = kv.find('=');
    if (eq == std::string::npos)
      throw usage_error(fmt::format("{}: {} must be key=value (jobs, rate, size, length, seed)", what, quote_input(kv)));
    const std::string key = kv.substr(0, eq), val = kv.substr(eq + 1);
    if (std::find(seen.begin(), seen.end(), key) != seen.end())
      throw usage_error(fmt::format("{}: parameter '{}' given twice", what, key));
    seen.push_back(key);
    if (key == "jobs") {
      jobs = parse_uint(val, what + " jobs", 1, defaults::os_stream::max_jobs);
    } else if (key == "rate") {
      rate = parse_real(val, what + " rate (arrivals per second)", 0, 1e6, true);
    } else if (key == "length") {
      length = parse_real(val, what + " length (mean run time, seconds)", 1, 1e7);
    } else if (key == "seed") {
      seed = parse_uint(val, what + " seed", 0, ~std::uint64_t{0});
    } else if (key == "size") {
      const std::size_t colon = val.find(':');
      lo = static_cast<node_t>(parse_uint(val.substr(0, colon), what + " size", 1, max_nodes));
      hi = colon == std::string::npos ? lo
                                      : static_cast<node_t>(parse_uint(val.substr(colon + 1), what + " size", 1, max_nodes));
      if (hi < lo) throw usage_error(fmt::format("{} size: {} is empty (A:B needs A <= B)", what, quote_input(val)));
      if (colon != std::string::npos && ((lo & (lo - 1)) || (hi & (hi - 1))))
        throw usage_error(fmt::format("{} size: {} must be powers of two A:B (sizes are drawn among them)", what,
                                      quote_input(val)));
    } else {
      throw usage_error(fmt::format("{}: unknown parameter {}; valid: jobs, rate, size, length, seed", what,
                                    quote_input(key)));
    }
  }
  for (const char* required : {"jobs", "rate", "size", "length"})
    if (std::find(seen.begin(), seen.end(), required) == seen.end())
      throw usage_error(fmt::format("{}: parameter '{}' is required (poisson:jobs=N,rate=R,size=A:B,length=L[,seed=S])",
                                    what, required));
  JobStream s;
  s.source = spec;
  Rng rng(seed);
  std::vector<node_t> sizes;
  for (node_t k = lo;; k *= 2) {  // lo, 2 lo, ..., hi (powers of two), or the one size lo == hi
    sizes.push_back(k);
    if (k >= hi) break;
  }
  double t = 0;
  for (std::uint64_t i = 0; i < jobs; ++i) {
    StreamJob j;
    j.id = i + 1;
    j.submit = t;
    j.pes = sizes[rng.below(sizes.size())];
    j.run_time = std::max(1.0, std::round(-length * std::log(1.0 - rng.uniform())));
    s.jobs.push_back(j);
    t += -std::log(1.0 - rng.uniform()) / rate;
  }
  return s;
}

JobStream job_stream(const std::string& spec, const std::string& what) {
  if (spec.rfind("poisson:", 0) == 0 || spec == "poisson") return poisson_stream(spec);
  if (spec.empty()) throw usage_error(what + ": give an SWF file or poisson:jobs=N,rate=R,size=A:B,length=L");
  // A misspelt generator ("poisso:jobs=2") is not taken for a missing file.
  const std::string head = spec.substr(0, spec.find(':'));
  if (const std::string near = nearest_name(head, {"poisson"}); !near.empty() && !std::filesystem::exists(spec))
    throw usage_error(fmt::format("{}: unknown job stream {}; did you mean '{}'? give an SWF file or "
                                  "poisson:jobs=N,rate=R,size=A:B,length=L", what, quote_input(head), near));
  return load_swf(spec);
}

// ---- registries -----------------------------------------------------------------------------

namespace {

template <class Entry>
const Entry& find_entry(const std::vector<Entry>& r, const std::string& name, const char* option, const char* kind) {
  std::string valid;
  std::vector<std::string> names;
  for (const Entry& e : r) {
    if (e.name == name) return e;
    valid += (valid.empty() ? "" : ", ") + e.name;
    names.push_back(e.name);
  }
  // rica/suggest.hpp: the nearest name and the valid ones, as every registry's refusal.
  throw usage_error(fmt::format("{}: unknown {} {}{}", option, kind, quote_input(name), valid_names_tail(name, names, valid)));
}

struct AllocEntry {
  std::string name, doc;
  AllocatorFactory make;
};
struct SchedEntry {
  std::string name, doc;
  SchedulerFactory make;
};

std::vector<AllocEntry>& alloc_registry() {
  static std::vector<AllocEntry> r = {
      {"buddy", "recursive halving on the closed partitions rica partition proves (cube-like, banyan, mesh, torus)",
       detail::make_buddy_allocator},
      {"first-fit", "contiguous PE-id ranges (a mesh's or torus's rows in order), the first that fits",
       detail::make_first_fit_allocator},
      {"best-fit", "contiguous PE-id ranges, the smallest free run that fits", detail::make_best_fit_allocator},
      {"random", "any free PEs, drawn at random (open placement: space sharing only)", detail::make_random_allocator},
      {"compact", "topology-aware: the k free PEs nearest a start by hops in the network, any topology (open: "
                  "space sharing only)",
       detail::make_compact_allocator},
  };
  return r;
}

std::vector<SchedEntry>& sched_registry() {
  static std::vector<SchedEntry> r = {
      {"fcfs", "first come, first served: the head job waits until it fits; nothing overtakes it",
       detail::make_fcfs_scheduler},
      {"easy", "EASY backfilling: later jobs start early if they do not delay the head job's reservation",
       detail::make_easy_scheduler},
      {"gang", "gang scheduling: an Ousterhout matrix of rows taking turns each slice, switching with --policy",
       detail::make_gang_scheduler},
  };
  return r;
}

}  // namespace

void register_allocator(const std::string& name, const std::string& doc, AllocatorFactory make) {
  check_registered_name(name, "allocator");
  if (!make) throw usage_error(fmt::format("allocator '{}': no factory", name));
  for (const AllocEntry& e : alloc_registry())
    if (e.name == name) throw usage_error(fmt::format("allocator '{}' is already registered", name));
  alloc_registry().push_back({name, doc, std::move(make)});
}

std::vector<std::pair<std::string, std::string>> allocators() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const AllocEntry& e : alloc_registry()) out.emplace_back(e.name, e.doc);
  return out;
}

std::unique_ptr<Allocator> make_allocator(const std::string& name, const Topology& topology, std::uint64_t seed) {
  return find_entry(alloc_registry(), name, "--alloc", "allocator").make(topology, seed);
}

void register_scheduler(const std::string& name, const std::string& doc, SchedulerFactory make) {
  check_registered_name(name, "scheduler");
  if (!make) throw usage_error(fmt::format("scheduler '{}': no factory", name));
  for (const SchedEntry& e : sched_registry())
    if (e.name == name) throw usage_error(fmt::format("scheduler '{}' is already registered", name));
  sched_registry().push_back({name, doc, std::move(make)});
}

std::vector<std::pair<std::string, std::string>> schedulers() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const SchedEntry& e : sched_registry()) out.emplace_back(e.name, e.doc);
  return out;
}

std::unique_ptr<Scheduler> make_scheduler(const std::string& name) {
  return find_entry(sched_registry(), name, "--sched", "scheduler").make();
}

namespace {

/// Splits at ';' (entries of --job and --job-map). An empty entry ("a;;b", a leading or trailing
/// ';') is refused naming `what`, as the CLI's comma lists refuse one; "" is no entry at all.
std::vector<std::string> entries(const std::string& text, const std::string& what, const char* accepted) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t semi = std::min(text.find(';', at), text.size());
    if (semi == at || text.substr(at, semi - at).find_first_not_of(" \t") == std::string::npos)
      throw usage_error(fmt::format("{}: {} has an empty entry; give {}", what, quote_input(text), accepted));
    out.push_back(text.substr(at, semi - at));
    at = semi + 1;
  }
  return out;
}

/// The spec's name (before ':') must be a known application or traffic pattern.
void check_spec(const std::string& spec, const std::vector<std::string>& known, const std::string& what) {
  const std::string name = spec.substr(0, spec.find(':'));
  if (std::find(known.begin(), known.end(), name) != known.end()) return;
  std::string valid;
  for (const std::string& k : known) valid += (valid.empty() ? "" : ", ") + k;
  throw usage_error(fmt::format("{}: unknown application or traffic pattern {}{}", what, quote_input(name),
                                valid_names_tail(name, known, valid)));
}

}  // namespace

JobMix parse_job_mix(const std::string& job, const std::string& map, const std::vector<std::string>& known, bool swf) {
  JobMix mix;
  for (const std::string& e : entries(job.empty() ? std::string("uniform") : job, "--job", "SPEC or SPEC@W;SPEC@W;...")) {
    const std::size_t at = e.rfind('@');
    const std::string spec = e.substr(0, at);
    const double w = at == std::string::npos ? 1.0 : parse_real(e.substr(at + 1), "--job weight of '" + spec + "'", 0, 1e12, true);
    check_spec(spec, known, "--job");
    mix.apps.emplace_back(spec, w);
  }
  if (mix.apps.empty()) throw usage_error("--job: no application given (SPEC or SPEC@W;SPEC@W;...)");
  if (!map.empty() && !swf)
    throw usage_error("--job-map: maps SWF executable numbers (field 14); a poisson stream has none (use --job with weights)");
  for (const std::string& e : entries(map, "--job-map", "N=SPEC;N=SPEC;...")) {
    const std::size_t eq = e.find('=');
    if (eq == std::string::npos)
      throw usage_error(fmt::format("--job-map: {} must be N=SPEC (N an SWF executable number)", quote_input(e)));
    const auto n = static_cast<std::int64_t>(parse_uint(e.substr(0, eq), "--job-map executable number", 0, std::uint64_t{1} << 53));
    const std::string spec = e.substr(eq + 1);
    check_spec(spec, known, "--job-map");
    for (const auto& [m, s] : mix.by_executable)
      if (m == n) throw usage_error(fmt::format("--job-map: executable {} is mapped twice", n));
    mix.by_executable.emplace_back(n, spec);
  }
  return mix;
}

std::string JobMix::choose(const StreamJob& j, std::size_t position, std::uint64_t seed) const {
  for (const auto& [n, spec] : by_executable)
    if (n == j.executable) return spec;
  if (apps.size() == 1) return apps[0].first;
  double total = 0;
  for (const auto& a : apps) total += a.second;
  const std::uint64_t r = mix64(mix64(seed ^ 0x6a09e667f3bcc909ULL) + position);
  double u = static_cast<double>(r >> 11) * 0x1.0p-53 * total;
  for (const auto& [spec, w] : apps) {
    if (u < w) return spec;
    u -= w;
  }
  return apps.back().first;
}

void assign_apps(JobStream& stream, const JobMix& mix, std::uint64_t seed) {
  for (std::size_t i = 0; i < stream.jobs.size(); ++i) stream.jobs[i].app = mix.choose(stream.jobs[i], i, seed);
}

}  // namespace rica
