// Run reports and the CSV writer/reader (rica/report.hpp).
#include "rica/report.hpp"
#include "rica/channel_load.hpp"

#include <fmt/format.h>

#include "rica/core.hpp"
#include "rica/io.hpp"
#include "rica/registry.hpp"
#include "rica/routing.hpp"

namespace rica::report {

std::string csv_field(std::string_view text) {
  const bool blank_edge = !text.empty() && (text.front() == ' ' || text.back() == ' ');
  if (text.find_first_of(",\"\r\n") == std::string_view::npos && !blank_edge) return std::string(text);
  std::string q = "\"";
  for (char c : text) {
    if (c == '"') q.push_back('"');
    q.push_back(c);
  }
  q.push_back('"');
  return q;
}

std::string csv_row(const std::vector<std::string>& fields) {
  std::string out;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i) out.push_back(',');
    out += csv_field(fields[i]);
  }
  out.push_back('\n');
  return out;
}

std::vector<std::vector<std::string>> csv_parse(std::string_view text, const std::string& what) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  std::size_t line = 1, field_line = 1;
  bool quoted = false;    // inside a quoted field
  bool was_quoted = false;  // the current field was quoted (only a separator may follow)
  bool any = false;       // the current row has content
  auto end_field = [&] {
    row.push_back(std::move(field));
    field.clear();
    was_quoted = false;
  };
  auto end_row = [&] {
    end_field();
    rows.push_back(std::move(row));
    row.clear();
    any = false;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field.push_back('"');
          ++i;
        } else {
          quoted = false;
          was_quoted = true;
        }
      } else {
        if (c == '\n') ++line;
        field.push_back(c);
      }
      continue;
    }
    if (c == ',') {
      end_field();
      any = true;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      if (any || !field.empty() || was_quoted || !row.empty()) end_row();
      ++line;
    } else if (was_quoted) {
      throw usage_error(fmt::format("{}: line {}: text after a closing quote", what, line));
    } else if (c == '"') {
      if (!field.empty()) throw usage_error(fmt::format("{}: line {}: a quote inside an unquoted field", what, line));
      quoted = true;
      field_line = line;
      any = true;
    } else {
      field.push_back(c);
      any = true;
    }
  }
  if (quoted) throw usage_error(fmt::format("{}: line {}: a quoted field is never closed", what, field_line));
  if (any || !field.empty() || was_quoted || !row.empty()) end_row();
  return rows;
}

nlohmann::json run_summary(const Topology& t, const EngineConfig& cfg, const RunStats& st) {
  nlohmann::json j;
  j["topology"] = t.spec();
  j["topology_drawing"] = to_string(TopologyRegistry::drawing(j["topology"].get<std::string>()));
  j["pes"] = t.pes();
  j["nodes"] = t.nodes();
  j["threads"] = cfg.threads;
  j["seed"] = cfg.seed;
  j["model"] = {{"engine", to_string(cfg.engine)},
                {"buffer_words", cfg.buffer_words},
                {"packet_words", cfg.packet_words},
                {"packet_spread", cfg.packet_spread},
                {"routing", to_string(cfg.routing)},
                {"buffer_classes", cfg.classes ? (offers(t, cfg.routing) ? routing_classes(t, cfg.routing) : t.buffer_classes()) : 1},
                {"classes_enabled", cfg.classes},
                {"batch", cfg.batch},
                {"block", cfg.block}};
  const EngineTraits& traits = engine_traits(cfg.engine);  // the options the engine reads
  if (traits.link_timing) {
    j["model"]["timing"] = to_string(cfg.timing);
    j["model"]["arbitration"] = to_string(cfg.arbitration);
  }
  if (traits.router_cycles && cfg.router_cycles != 0) j["model"]["router_cycles"] = cfg.router_cycles;
  if (traits.link_timing)
    j["model"]["link_cycles"] = cfg.link_cycles_words ? std::string("words")
                                : cfg.link_cycles == 0 ? std::string("degree")
                                                       : std::to_string(cfg.link_cycles);
  if (traits.link_timing) j["model"]["link_model"] = link_model_text(cfg, &t);
  if (traits.virtual_clock) {
    j["model"]["cycles"] = cfg.cycles;
    j["model"]["warmup"] = cfg.warmup;
  }
  j["injected"] = st.injected;
  j["delivered"] = st.delivered;
  j["duplicates"] = st.duplicates;
  j["lost"] = st.lost;
  j["in_network"] = st.in_network;
  j["dropped_by_faults"] = st.dropped_by_faults;
  if (const auto* f = std::get_if<FaultyTopology>(&t.variant()))
    j["faults"] = {{"failed", f->faults_text()},
                   {"failed_links", f->failed_links().size()},
                   {"failed_nodes", f->failed_nodes()},
                   {"at", f->fail_at()},
                   {"applied_at", st.fault_cycle},
                   {"dropped", st.dropped_by_faults},
                   {"rerouting_classes", f->buffer_classes() - f->class_offset()}};
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
  // The PDES literature's unit (CODES/ROSS): a packet transfer is one packet crossing one link,
  // terminal links included, which is what a packet-hop counts here (docs/runtime.md "Scale").
  j["packet_transfers_per_s"] = st.packet_hops_per_s;
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
  if (!st.latency_histogram.empty() || !st.net_latency_histogram.empty())
    j["latency_distribution"] = latency_distributions(st);
  if (traits.virtual_clock) {
    j["cycles_run"] = st.cycles_run;
    j["cycles_skipped"] = st.cycles_skipped;  // of cycles_run: idle stretches jumped over
    j["throughput"] = st.throughput;  // packets delivered per PE per cycle in [warmup, cycles)
    j["measured"] = st.measured;
  }
  return j;
}

nlohmann::json latency_distributions(const RunStats& st) {
  nlohmann::json d = {{"total", latency_distribution(st.latency_histogram, st.latency_unit)},
                      {"network", latency_distribution(st.net_latency_histogram, st.latency_unit)}};
  // Per buffer class (several classes) and per job (OS runs): the groups that had measured deliveries.
  for (const auto& [key, groups] : {std::pair{"class", &st.class_latency_histograms}, std::pair{"job", &st.job_latency_histograms}}) {
    nlohmann::json rows = nlohmann::json::array();
    for (std::size_t g = 0; g < groups->size(); ++g) {
      nlohmann::json total = latency_distribution((*groups)[g][0], st.latency_unit);
      if (total["total"].get<std::uint64_t>() == 0) continue;
      rows.push_back({{key, g}, {"total", std::move(total)},
                      {"network", latency_distribution((*groups)[g][1], st.latency_unit)}});
    }
    if (!rows.empty()) d[std::string(key) == "class" ? "classes" : "jobs"] = std::move(rows);
  }
  return d;
}

nlohmann::json latency_distribution(const std::vector<std::uint64_t>& histogram, const std::string& unit) {
  std::uint64_t total = 0;
  for (std::uint64_t c : histogram) total += c;
  std::vector<std::uint64_t> low, high, count;
  std::vector<double> cdf;
  std::uint64_t acc = 0;
  for (unsigned b = 0; b < histogram.size(); ++b) {
    if (!histogram[b]) continue;
    acc += histogram[b];
    low.push_back(latency_bucket_low(b));
    high.push_back(latency_bucket_low(b + 1));
    count.push_back(histogram[b]);
    cdf.push_back(static_cast<double>(acc) / static_cast<double>(total));
  }
  return {{"unit", unit}, {"total", total}, {"low", low}, {"high", high}, {"count", count}, {"cdf", cdf}};
}

std::string pe_csv(const Topology& t, const RunStats& st) {
  std::string out = "pe,label,injected,delivered,forwarded,blocked\n";
  if (st.pe_forwarded.size() < t.nodes()) return out;  // under mpirun, a rank other than 0 (it writes nothing)
  for (node_t v = 0; v < t.nodes(); ++v)
    out += csv_row({std::to_string(v), t.label(v), std::to_string(v < t.pes() ? st.pe_injected[v] : 0),
                    std::to_string(v < t.pes() ? st.pe_delivered[v] : 0), std::to_string(st.pe_forwarded[v]),
                    std::to_string(st.pe_blocked[v])});
  return out;
}

std::string link_csv(const Topology& t, const RunStats& st) {
  std::string out = "node,port,peer,packets\n";
  if (st.link_packets.size() < std::size_t{t.nodes()} * t.ports()) return out;  // under mpirun, a rank other than 0
  for (node_t v = 0; v < t.nodes(); ++v)
    for (port_t p = 0; p < t.ports(); ++p) {
      const Link l = t.out_link(v, p);
      if (l.present())
        out += fmt::format("{},{},{},{}\n", v, p, l.peer, st.link_packets[std::size_t{v} * t.ports() + p]);
    }
  return out;
}

std::string link_csv_path(const std::string& path) {
  return path.size() > 4 && path.ends_with(".csv") ? path.substr(0, path.size() - 4) + ".links.csv"
                                                   : path + ".links.csv";
}

void write_run_csv(const std::string& path, const Topology& t, const RunStats& st, const std::string& what) {
  write_text_file(path, pe_csv(t, st), what);
  write_text_file(link_csv_path(path), link_csv(t, st), what);
}

}  // namespace rica::report
