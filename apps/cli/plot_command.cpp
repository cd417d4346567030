// `rica plot links|latency|sweep|os|telemetry|trace`: figures from what a command wrote, drawn by scripts/rica_plot.py (the
// one plotting module; matplotlib).
#include <fmt/format.h>

#include <filesystem>
#include <memory>

#include "commands.hpp"
#include "options.hpp"
#include "rica/core.hpp"
#include "rica/io.hpp"
#include "sweep.hpp"

namespace rica::cli {
namespace {

struct PlotOptions {
  CLI::App* cmd = nullptr;
  std::string kind;  ///< links, latency, sweep, os, telemetry, trace
  std::string input, csv, out, json, title, x = "accepted";
  bool quiet = false;
};

void plot(const PlotOptions& o) {
  // The input must be a readable regular file (read_text_file checks kind and size).
  (void)read_text_file(o.input, fmt::format("plot {} <input>", o.kind), {std::uint64_t{1} << 30, std::uint64_t{1} << 30});
  const std::string out =
      o.out.empty() ? std::filesystem::absolute(o.input).parent_path().string() : o.out;
  prepare_output_dir(out, "--out");
  std::vector<std::string> args = {o.kind, o.input, "--out", out};
  if (o.kind == "links" && !o.csv.empty()) args.insert(args.end(), {"--csv", o.csv});
  if (o.kind != "links" && o.kind != "latency" && !o.title.empty()) args.insert(args.end(), {"--title", o.title});
  if (o.kind == "sweep") args.insert(args.end(), {"--x", o.x});
  if (o.quiet) args.emplace_back("--quiet");
  std::string bad_input;
  if (!experiments::run_plot_script("rica_plot.py", args, &bad_input))
    throw usage_error(bad_input.empty()
                          ? fmt::format("plot {}: could not draw '{}' (see the message above)", o.kind, o.input)
                          : fmt::format("plot {}: {}", o.kind, bad_input));
  if (!o.json.empty()) {
    nlohmann::json j = provenance(option_config(o.cmd), 0, 1);
    const std::string stem = std::filesystem::path(o.input).stem().string();
    j["plots"] = o.kind == "links"     ? std::vector<std::string>{out + "/" + stem + ".links.png", out + "/" + stem + ".links.svg",
                                                                  out + "/" + stem + ".links.dot"}
                 : o.kind == "latency" ? std::vector<std::string>{out + "/" + stem + ".latency.png",
                                                                  out + "/" + stem + ".latency.svg"}
                                       : std::vector<std::string>{out};
    write_json(o.json, j);
  }
}

}  // namespace

void add_plot_command(CLI::App& app) {
  auto* p = app.add_subcommand("plot", "Figures (PNG 1600 px + SVG) from a run's JSON, a sweep's or os's CSV");
  p->require_subcommand(1);
  for (const char* kind : {"links", "latency", "sweep", "os", "telemetry", "trace"}) {
    auto o = std::make_shared<PlotOptions>();
    o->kind = kind;
    const std::string k = kind;
    auto* c = p->add_subcommand(
        kind, k == "links" ? "Link heat map of a run (rica run --json R.json --csv R.csv): utilisation 0-1 per "
                             "direction; grids (mesh, torus, mesh8, M_{x+x}), stage drawings (banyan, omega, DCE, "
                             "MDCE families), a Graphviz layout for the rest; R.links.png/.svg/.dot beside R.json"
              : k == "latency" ? "Latency histogram and CDF of a run (rica run --json R.json): total and network, "
                                 "per class / job where the report has them; R.latency.png/.svg beside the JSON"
              : k == "sweep" ? "Latency against accepted throughput (default), offered load or packets delivered"
              : k == "telemetry"
                  ? "Throughput, mean latency and occupancy per window over time (rica run/os --telemetry W: the "
                    "windows CSV)"
              : k == "trace" ? "What a trace viewer shows of --trace-events FILE: the first packets' slices per node "
                               "over time and their flows; FILE's stem .trace.png/.svg beside it"
                  : "Switch cost and completion of rica os");
    o->cmd = c;
    add_text(c, "input", o->input,
             k == "links"     ? "The run's JSON (its per-PE CSV is found from it)"
             : k == "latency" ? "The run's JSON"
             : k == "trace"   ? "The trace-event JSON (--trace-events FILE)"
                              : "The CSV",
             "a file written by rica")
        ->required();
    add_output_dir(c, "--out", o->out, "Directory of the figures [default: the input's]");
    if (k == "links")
      add_text(c, "--csv", o->csv, "The run's per-PE CSV (default: the one its JSON names)", "a CSV file");
    if (k != "links" && k != "latency") add_text(c, "--title", o->title, "Figure title", "a title");
    if (k == "sweep") add_text(c, "--x", o->x, "x axis: accepted, offered or delivered", "accepted, offered, delivered");
    add_json(c, o->json, "Write the list of figures as JSON to FILE");
    add_quiet(c, o->quiet);
    c->callback([o] {
      if (o->kind == "sweep" && o->x != "accepted" && o->x != "offered" && o->x != "delivered")
        throw usage_error(fmt::format("--x: '{}'; accepted: accepted, offered, delivered", o->x));
      plot(*o);
    });
  }
}

}  // namespace rica::cli
