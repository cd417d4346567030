// Shared run report helpers of the CLI (run_report.hpp).
#include "run_report.hpp"

#include <fmt/format.h>

#include <charconv>
#include <fstream>
#include <string_view>

#include "rica/core.hpp"

namespace rica::cli {

std::pair<unsigned, unsigned> parse_packet_words(const std::string& s) {
  auto num = [&](std::string_view t) {
    unsigned v = 0;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (t.empty() || ec != std::errc() || p != t.data() + t.size())
      throw usage_error(fmt::format("--packet-words '{}' must be MEAN or MEAN:SPREAD, e.g. 3:1", s));
    return v;
  };
  const auto c = s.find(':');
  if (c == std::string::npos) return {num(s), 0};
  return {num(std::string_view(s).substr(0, c)), num(std::string_view(s).substr(c + 1))};
}

void apply_link_cycles(const std::string& s, EngineConfig& cfg) {
  if (s == "words") {
    cfg.link_cycles_words = true;
  } else if (s != "degree") {
    unsigned v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || v == 0)
      throw usage_error(fmt::format("--link-cycles '{}' must be degree, words or a positive number", s));
    cfg.link_cycles = v;
  }
}

nlohmann::json stats_json(const Topology& t, const EngineConfig& cfg, const RunStats& st) {
  nlohmann::json j;
  j["topology"] = t.spec();
  j["pes"] = t.pes();
  j["nodes"] = t.nodes();
  j["threads"] = cfg.threads;
  j["seed"] = cfg.seed;
  j["config"] = {{"buffer_words", cfg.buffer_words}, {"packet_words", cfg.packet_words},
                 {"packet_spread", cfg.packet_spread}, {"buffer_classes", cfg.classes ? t.buffer_classes() : 1},
                 {"classes_enabled", cfg.classes}, {"batch", cfg.batch}, {"block", cfg.block}};
  j["injected"] = st.injected;
  j["delivered"] = st.delivered;
  j["duplicates"] = st.duplicates;
  j["lost"] = st.lost;
  j["in_network"] = st.in_network;
  j["forwarded"] = st.forwarded;
  j["blocked"] = st.blocked;
  j["packet_hops"] = st.hops;
  j["hops_mean"] = st.hops_mean;
  j["hops_max"] = st.hops_max;
  j["hop_histogram"] = st.hop_histogram;
  j["latency_mean"] = st.latency_mean;
  j["latency_p50"] = st.latency_p50;
  j["latency_p99"] = st.latency_p99;
  j["latency_max"] = st.latency_max;
  j["latency_unit"] = st.latency_unit;
  j["packets_per_s"] = st.packets_per_s;
  j["packet_hops_per_s"] = st.packet_hops_per_s;
  j["link_load_max"] = st.link_load_max;
  j["link_load_mean"] = st.link_load_mean;
  j["wall_s"] = st.wall_s;
  j["peak_rss_kb"] = st.peak_rss_kb;
  j["bytes_per_pe"] = static_cast<double>(st.peak_rss_kb) * 1024.0 / t.pes();
  j["conservation_ok"] = st.conservation_ok;
  j["verify_method"] = st.verify_method;
  j["deadlock"] = st.deadlock;
  if (st.deadlock) j["deadlock_report"] = st.deadlock_report;
  j["verified"] = st.app_ok;
  if (!st.app_message.empty()) j["app_message"] = st.app_message;
  return j;
}

void write_pe_csv(const std::string& path, const Topology& t, const RunStats& st) {
  std::ofstream pe(path);
  if (!pe) throw usage_error(fmt::format("--csv: cannot write '{}'", path));
  pe << "pe,label,injected,delivered,forwarded,blocked\n";
  for (node_t v = 0; v < t.nodes(); ++v)
    pe << v << ",\"" << t.label(v) << "\"," << (v < t.pes() ? st.pe_injected[v] : 0) << ","
       << (v < t.pes() ? st.pe_delivered[v] : 0) << "," << st.pe_forwarded[v] << "," << st.pe_blocked[v] << "\n";
  const std::string links = path.size() > 4 && path.ends_with(".csv") ? path.substr(0, path.size() - 4) + ".links.csv"
                                                                       : path + ".links.csv";
  std::ofstream lf(links);
  if (!lf) throw usage_error(fmt::format("--csv: cannot write '{}'", links));
  lf << "node,port,peer,packets\n";
  for (node_t v = 0; v < t.nodes(); ++v)
    for (port_t p = 0; p < t.ports(); ++p) {
      const Link l = t.out_link(v, p);
      if (l.present()) lf << v << "," << p << "," << l.peer << "," << st.link_packets[std::size_t{v} * t.ports() + p] << "\n";
    }
}

}  // namespace rica::cli
