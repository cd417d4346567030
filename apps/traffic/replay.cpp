// Traffic without C++: a source/destination rate matrix and the exact replay of a packet trace
// (traffic.hpp: MatrixTraffic, TraceReplay; formats in docs/traffic.md, examples in examples/).
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>
#include <sstream>

#include "rica/io.hpp"
#include "rica/report.hpp"
#include "traffic.hpp"

namespace rica {
namespace {

constexpr ReadLimits file_limits{std::uint64_t{256} << 20, std::uint64_t{1} << 20};

std::uint64_t whole(const std::string& text, const std::string& what, std::uint64_t hi) {
  return parse_uint(text, what, 0, hi);
}

double real(const std::string& text, const std::string& what) {
  double v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || !std::isfinite(v) || v < 0)
    throw usage_error(fmt::format("{}: {} is not a rate (a number >= 0)", what, quote_input(text)));
  return v;
}

/// Lines without comments ('#' to the end) and surrounding blanks, numbered from 1; blank lines
/// dropped.
std::vector<std::pair<std::size_t, std::string>> content_lines(const std::string& text) {
  std::vector<std::pair<std::size_t, std::string>> out;
  std::size_t start = 0, line = 0;
  while (start < text.size()) {
    auto nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    std::string l = text.substr(start, nl - start);
    ++line;
    start = nl + 1;
    if (const auto hash = l.find('#'); hash != std::string::npos) l.erase(hash);
    const auto b = l.find_first_not_of(" \t\r");
    if (b == std::string::npos) continue;
    const auto e = l.find_last_not_of(" \t\r");
    out.emplace_back(line, l.substr(b, e - b + 1));
  }
  return out;
}

std::vector<std::string> split_fields(const std::string& l) {
  std::vector<std::string> f;
  std::string cur;
  for (char c : l) {
    if (c == ',' || c == ' ' || c == '\t') {
      if (!cur.empty()) f.push_back(std::move(cur));
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) f.push_back(std::move(cur));
  return f;
}

}  // namespace

// ---- MatrixTraffic --------------------------------------------------------------------------------

MatrixTraffic MatrixTraffic::load(const std::string& path, node_t pes, const TrafficOptions& opt) {
  const std::string what = fmt::format("traffic matrix:{}", path);
  const auto lines = content_lines(read_text_file(path, what, file_limits));
  if (lines.empty()) throw usage_error(fmt::format("{}: no rates (the file is empty)", what));
  std::vector<std::vector<std::pair<node_t, double>>> rows(pes);
  const bool sparse = lines.front().second == "src,dst,rate";
  if (sparse) {
    for (std::size_t i = 1; i < lines.size(); ++i) {
      const auto& [ln, l] = lines[i];
      const auto f = report::csv_parse(l, what).front();
      const std::string at = fmt::format("{}: line {}", what, ln);
      if (f.size() != 3) throw usage_error(fmt::format("{}: {} fields; give src,dst,rate", at, f.size()));
      const auto s = whole(f[0], at + ": src", pes - 1), d = whole(f[1], at + ": dst", pes - 1);
      if (s == d) throw usage_error(fmt::format("{}: src = dst = {}; a PE does not send to itself", at, s));
      const double r = real(f[2], at + ": rate");
      if (r > 0) rows[s].emplace_back(static_cast<node_t>(d), r);
    }
  } else {
    if (lines.size() != pes)
      throw usage_error(fmt::format("{}: {} rows; a dense matrix has one row per PE ({}), or start the file with "
                                    "'src,dst,rate' for a sparse list",
                                    what, lines.size(), pes));
    for (node_t s = 0; s < pes; ++s) {
      const auto& [ln, l] = lines[s];
      const auto f = split_fields(l);
      const std::string at = fmt::format("{}: line {}", what, ln);
      if (f.size() != pes) throw usage_error(fmt::format("{}: {} values; a row has one per PE ({})", at, f.size(), pes));
      for (node_t d = 0; d < pes; ++d) {
        const double r = real(f[d], at);
        if (r > 0 && d == s)
          throw usage_error(fmt::format("{}: diagonal entry {} is not 0; a PE does not send to itself", at, r));
        if (r > 0) rows[s].emplace_back(d, r);
      }
    }
  }
  MatrixTraffic m(path, opt);
  m.rows_.resize(pes);
  double any = 0;
  for (node_t s = 0; s < pes; ++s) {
    // Merge repeated pairs (sparse lists may repeat one), then cumulate.
    auto& r = rows[s];
    std::sort(r.begin(), r.end());
    Row& out = m.rows_[s];
    for (const auto& [d, w] : r) {
      if (!out.dst.empty() && out.dst.back() == d)
        out.cum.back() += w;
      else {
        out.dst.push_back(d);
        out.cum.push_back((out.cum.empty() ? 0.0 : out.cum.back()) + w);
      }
      out.rate += w;
    }
    for (std::size_t i = 1; i < out.cum.size(); ++i) out.cum[i] = std::max(out.cum[i], out.cum[i - 1]);
    if (out.rate > 1.0 + 1e-9)
      throw usage_error(fmt::format("{}: PE {} sends {:g} packets per cycle in all; a row's rates sum to at most 1",
                                    what, s, out.rate));
    any += out.rate;
  }
  if (any <= 0) throw usage_error(fmt::format("{}: every rate is 0; nothing would be sent", what));
  return m;
}

double MatrixTraffic::rate(node_t src, node_t dst) const {
  const Row& r = rows_.at(src);
  const auto it = std::lower_bound(r.dst.begin(), r.dst.end(), dst);
  if (it == r.dst.end() || *it != dst) return 0;
  const std::size_t k = static_cast<std::size_t>(it - r.dst.begin());
  return r.cum[k] - (k ? r.cum[k - 1] : 0.0);
}

MatrixTraffic::MatrixTraffic(std::string path, const TrafficOptions& opt)
    : path_(std::move(path)), scale_(opt.rate), packets_(opt.packets), source_queue_(opt.source_queue) {
  if (!(opt.rate > 0.0 && opt.rate <= 1.0))
    throw usage_error(fmt::format("traffic: rate = {} is out of range (0, 1]", opt.rate));
}

void MatrixTraffic::setup(Machine& m) {
  if (m.pes() != rows_.size())
    throw std::logic_error(fmt::format("matrix:{} was built for {} PEs, run on {}", path_, rows_.size(), m.pes()));
  handler_ = m.add_handler([this](Context& ctx, const Packet&) { ++received_[ctx.pe()]; });
  sent_.assign(rows_.size(), 0);
  received_.assign(rows_.size(), 0);
}

bool MatrixTraffic::generate(Context& ctx) {
  const node_t pe = ctx.pe();
  const Row& row = rows_[pe];
  std::uint64_t& sent = sent_[pe];
  if (row.dst.empty() || sent >= packets_) return false;
  if (source_queue_ == 0 || ctx.backlog() < source_queue_) {
    // One draw decides whether and where: u < scale * rate(s) sends to the destination whose
    // cumulative slice holds u / scale.
    const double u = ctx.rng().uniform();
    if (u < scale_ * row.rate) {
      const double x = u / scale_;
      const auto it = std::upper_bound(row.cum.begin(), row.cum.end(), x);
      const std::size_t k = std::min<std::size_t>(static_cast<std::size_t>(it - row.cum.begin()), row.dst.size() - 1);
      ctx.send(row.dst[k], handler_);
      ++sent;
    }
  }
  return sent < packets_;
}

bool MatrixTraffic::verify(std::string& why) const {
  const auto s = std::accumulate(sent_.begin(), sent_.end(), std::uint64_t{0});
  const auto r = std::accumulate(received_.begin(), received_.end(), std::uint64_t{0});
  if (s != r) {
    why = fmt::format("matrix:{}: {} packets sent, {} received", path_, s, r);
    return false;
  }
  return true;
}

nlohmann::json MatrixTraffic::summary() const {
  std::uint64_t pairs = 0;
  for (const auto& row : rows_) pairs += row.dst.size();
  return {{"pattern", "matrix:" + path_},
          {"rate_scale", scale_},
          {"pairs", pairs},
          {"source_queue", source_queue_},
          {"sent", std::accumulate(sent_.begin(), sent_.end(), std::uint64_t{0})},
          {"received", std::accumulate(received_.begin(), received_.end(), std::uint64_t{0})}};
}

// ---- TraceReplay ----------------------------------------------------------------------------------

TraceReplay TraceReplay::load(const std::string& path, node_t pes, const TrafficOptions& opt) {
  const std::string what = fmt::format("traffic trace:{}", path);
  const std::string text = read_text_file(path, what, file_limits);
  const auto rows = report::csv_parse(text, what);
  if (rows.empty()) throw usage_error(fmt::format("{}: empty; the first line names the columns (time,src,dst,words)", what));
  const auto& head = rows.front();
  // A column named twice would make which one holds the value a guess: refused, as a repeated option is.
  for (std::size_t i = 0; i < head.size(); ++i)
    if (std::find(head.begin(), head.begin() + static_cast<std::ptrdiff_t>(i), head[i]) != head.begin() + static_cast<std::ptrdiff_t>(i))
      throw usage_error(fmt::format("{}: the header names column {} twice; name each column once (time,src,dst[,words])",
                                    what, quote_input(head[i])));
  auto column = [&](const char* name) -> std::ptrdiff_t {
    const auto it = std::find(head.begin(), head.end(), name);
    return it == head.end() ? -1 : it - head.begin();
  };
  std::ptrdiff_t ct = column("time");
  if (ct < 0) ct = column("inject");  // rica run --trace output
  const std::ptrdiff_t cs = column("src"), cd = column("dst"), cw = column("words");
  if (ct < 0 || cs < 0 || cd < 0)
    throw usage_error(fmt::format("{}: the first line must name the columns time,src,dst[,words] (or be a rica "
                                  "--trace header); got {}",
                                  what, quote_input(fmt::format("{}", fmt::join(head, ",")))));
  TraceReplay t(path);
  t.per_pe_.resize(pes);
  std::uint64_t n = 0;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto& f = rows[i];
    const std::string at = fmt::format("{}: row {}", what, i + 1);
    if (f.size() != head.size())
      throw usage_error(fmt::format("{}: {} fields, the header has {}", at, f.size(), head.size()));
    const auto time = whole(f[ct], at + ": time", defaults::limits::cycles - 1);
    const auto s = whole(f[cs], at + ": src", pes - 1), d = whole(f[cd], at + ": dst", pes - 1);
    if (s == d) throw usage_error(fmt::format("{}: src = dst = {}; a PE does not send to itself", at, s));
    unsigned words = 0;
    if (cw >= 0) {
      words = static_cast<unsigned>(whole(f[cw], at + ": words", 255));
      if (words < opt.min_words || words > opt.max_words)
        throw usage_error(fmt::format("{}: {} words is outside the configured packet lengths {}..{}; set "
                                      "--packet-words MEAN:SPREAD to cover the trace",
                                      at, words, opt.min_words, opt.max_words));
    }
    t.per_pe_[s].push_back({time, static_cast<node_t>(d), words});
    t.end_ = std::max(t.end_, time);
    ++n;
  }
  if (n == 0) throw usage_error(fmt::format("{}: no packets (only the header)", what));
  for (auto& v : t.per_pe_)
    std::stable_sort(v.begin(), v.end(), [](const Entry& a, const Entry& b) { return a.time < b.time; });
  t.total_ = n;
  return t;
}

void TraceReplay::setup(Machine& m) {
  if (m.pes() != per_pe_.size())
    throw std::logic_error(fmt::format("trace:{} was built for {} PEs, run on {}", path_, per_pe_.size(), m.pes()));
  handler_ = m.add_handler([this](Context& ctx, const Packet&) { ++received_[ctx.pe()]; });
  next_.assign(per_pe_.size(), 0);
  received_.assign(per_pe_.size(), 0);
}

bool TraceReplay::generate(Context& ctx) {
  const node_t pe = ctx.pe();
  const auto& v = per_pe_[pe];
  std::size_t& i = next_[pe];
  const std::uint64_t now = ctx.now();
  for (; i < v.size() && v[i].time <= now; ++i)
    if (v[i].words)
      ctx.send_words(v[i].dst, v[i].words, handler_);
    else
      ctx.send(v[i].dst, handler_);
  // Under the cycle engine (an opportunity per cycle) the calls until the next row's time send
  // nothing: skip them, so an idle PE sleeps through the gap and an idle network jumps over it.
  if (i < v.size() && v[i].time > now + 1 && ctx.cycle_clock() && ctx.look_ahead_allowed())
    ctx.skip_opportunities(v[i].time - now - 1);
  return i < v.size();
}

std::uint64_t TraceReplay::max_sends_per_pe() const {
  std::size_t m = 0;
  for (const auto& v : per_pe_) m = std::max(m, v.size());
  return m;
}

bool TraceReplay::verify(std::string& why) const {
  std::vector<std::uint64_t> expect(per_pe_.size(), 0);
  for (std::size_t s = 0; s < per_pe_.size(); ++s) {
    if (next_[s] != per_pe_[s].size()) {
      why = fmt::format("trace:{}: PE {} sent {} of its {} packets (the injection window closed first; raise "
                        "--cycles above the trace's last time {})",
                        path_, s, next_[s], per_pe_[s].size(), end_);
      return false;
    }
    for (const auto& e : per_pe_[s]) ++expect[e.dst];
  }
  for (std::size_t d = 0; d < expect.size(); ++d)
    if (expect[d] != received_[d]) {
      why = fmt::format("trace:{}: PE {} received {} packets, the trace sends it {}", path_, d, received_[d], expect[d]);
      return false;
    }
  return true;
}

nlohmann::json TraceReplay::summary() const {
  return {{"pattern", "trace:" + path_},
          {"packets", total_},
          {"last_time", end_},
          {"received", std::accumulate(received_.begin(), received_.end(), std::uint64_t{0})}};
}

std::optional<std::uint64_t> traffic_end(const App& app) {
  if (const auto* t = dynamic_cast<const TraceReplay*>(&app)) return t->last_time();
  return std::nullopt;
}

}  // namespace rica
