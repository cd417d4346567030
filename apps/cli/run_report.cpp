// Shared run report helpers of the CLI (run_report.hpp).
#include "run_report.hpp"

#include <fmt/format.h>


#include "rica/core.hpp"
#include "rica/io.hpp"

namespace rica::cli {

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
  j["latency_p999"] = st.latency_p999;
  j["latency_max"] = st.latency_max;
  j["net_latency_mean"] = st.net_latency_mean;
  j["net_latency_p50"] = st.net_latency_p50;
  j["net_latency_p99"] = st.net_latency_p99;
  j["net_latency_max"] = st.net_latency_max;
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
  std::string pe = "pe,label,injected,delivered,forwarded,blocked\n";
  for (node_t v = 0; v < t.nodes(); ++v)
    pe += fmt::format("{},\"{}\",{},{},{},{}\n", v, t.label(v), v < t.pes() ? st.pe_injected[v] : 0,
                      v < t.pes() ? st.pe_delivered[v] : 0, st.pe_forwarded[v], st.pe_blocked[v]);
  write_text_file(path, pe, "--csv");
  const std::string links = path.size() > 4 && path.ends_with(".csv") ? path.substr(0, path.size() - 4) + ".links.csv"
                                                                       : path + ".links.csv";
  std::string lf = "node,port,peer,packets\n";
  for (node_t v = 0; v < t.nodes(); ++v)
    for (port_t p = 0; p < t.ports(); ++p) {
      const Link l = t.out_link(v, p);
      if (l.present())
        lf += fmt::format("{},{},{},{}\n", v, p, l.peer, st.link_packets[std::size_t{v} * t.ports() + p]);
    }
  write_text_file(links, lf, "--csv");
}

}  // namespace rica::cli
