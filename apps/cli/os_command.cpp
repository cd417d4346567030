// `rica os`: time sharing of one partition by two or more jobs under the switch policies, over
// loads and slice lengths. A thin presenter over the library request rica/request/os.hpp: options
// -> request::Os; run; the table (stdout), os.csv, switches.csv, os.json (with provenance),
// telemetry CSVs, trace events and plots (scripts/plot_os.py).
#include <fmt/format.h>

#include <memory>
#include <optional>

#include "commands.hpp"
#include "options.hpp"
#include "request_options.hpp"
#include "rica/distributed.hpp"
#include "rica/io.hpp"
#include "rica/request/os.hpp"
#include "sweep.hpp"

namespace rica::cli {
namespace {

struct OsOptions {
  CLI::App* cmd = nullptr;  ///< the subcommand, for its configuration
  request::Os request;      ///< the request's own options; the machine's from `engine`
  EngineOptions engine;
  std::string out, json, trace_events;
  bool no_plot = false, quiet = false, progress = false;
};

/// Refuses, before the first run, outputs that cannot be written or would collide.
void check_outputs(const OsOptions& o, const std::vector<std::string>& files) {
  if (o.engine.values.telemetry && o.out.empty())
    throw usage_error("--telemetry: rica os writes the telemetry CSVs into --out DIR; give --out DIR");
  std::vector<Output> outputs = dir_outputs(o.out, files);
  outputs.push_back({"--json", o.json});
  outputs.push_back({"--trace-events", o.trace_events});
  check_distinct_outputs(outputs);
  if (o.out.empty()) return;
  prepare_output_dir(o.out, "--out");
  for (const std::string& f : files) check_output_file(o.out + "/" + f, "--out");
}

/// Runs the request and presents it; returns the exit status: 0, 1 (a run lost, duplicated or
/// misdelivered packets, broke the drain bound, or a job failed verification: why on stderr), 3
/// (a run got stuck: its report on stderr).
int run(const OsOptions& o) {
  request::Os r = o.request;
  EngineOptions eo = o.engine;
  eo.cfg.engine = EngineKind::cycle;  // time sharing runs on the cycle engine
  r.engine = engine_config(eo);
  r.faults = o.engine.faults;
  r.trace_events = !o.trace_events.empty();
  r.telemetry = o.engine.values.telemetry;  // the option table's --telemetry / --telemetry-links (as run's)
  r.telemetry_links = o.engine.values.telemetry_links;
  const std::vector<std::string> tfiles = r.telemetry_files();
  std::vector<std::string> files = {"os.csv", "switches.csv", "os.json"};
  files.insert(files.end(), tfiles.begin(), tfiles.end());
  std::optional<Progress> progress;
  request::OsHooks hooks;
  hooks.started = [&](const request::OsOutcome& out) {
    check_outputs(o, files);
    if (!o.quiet) fmt::print("{}", out.header());
    progress.emplace("runs", r.runs(), o.quiet, o.progress);
  };
  hooks.next = [&](std::size_t done, const std::string& what) { progress->update(done, what); };
  const request::OsOutcome out = request::run(r, hooks);
  progress->update(out.runs.size());
  progress->finish();
  if (show_text(o.quiet, o.json)) fmt::print("{}", out.table());  // --quiet with --json: the JSON has it (Python)
  nlohmann::json config = option_config(o.cmd);
  config["threads"] = out.engine.threads;
  config["job"] = r.jobs;  // the list (the default's text is one word per job, not re-runnable)
  nlohmann::json j = provenance(config, out.engine.seed, out.engine.threads);
  j.update(out.to_json());
  if (!o.trace_events.empty()) {
    TraceEvents::write(o.trace_events, out.trace_event_runs(), "--trace-events");
    j["trace_events"] = {{"file", o.trace_events}, {"runs", out.runs.size()}};
    if (!o.quiet) fmt::print("wrote {} (trace events: {} runs)\n", o.trace_events, out.runs.size());
  }
  if (!o.json.empty()) write_json(o.json, j);
  if (!o.out.empty()) {
    write_text_file(o.out + "/os.csv", out.csv(), "--out");
    write_text_file(o.out + "/switches.csv", out.switches_csv(), "--out");
    write_text_file(o.out + "/os.json", j.dump(2) + "\n", "--out");
    for (const auto& [file, text] : out.telemetry_csvs()) write_text_file(o.out + "/" + file, text, "--out");
    if (!o.no_plot)
      experiments::run_plot_script("plot_os.py", {o.out + "/os.csv", "--out", o.out, "--title", out.plot_title()});
    if (!o.no_plot && !tfiles.empty())
      experiments::run_plot_script("rica_plot.py", {"telemetry", o.out + "/" + tfiles[0], "--out", o.out});
    if (!o.quiet)
      fmt::print("wrote {}/os.csv, switches.csv, os.json{}{}\n", o.out, tfiles.empty() ? "" : ", telemetry_*.csv",
                 o.no_plot ? "" : ", plots");
  }
  std::string stuck;
  const int status = out.status(&stuck);
  if (status != 0) fmt::print(stderr, "rica: {}", stuck);
  return status;
}

}  // namespace

void add_os_command(CLI::App& app, int& status) {
  auto o = std::make_shared<OsOptions>();
  auto* c = app.add_subcommand("os", "Time sharing of a partition: drain vs flush over loads and slice lengths");
  o->cmd = c;
  const auto& fields = request::Os::fields();
  add_request_options(c, o->request, fields, request::FieldPlace::before_machine);
  add_engine_options(c, o->engine);
  add_request_options(c, o->request, fields, request::FieldPlace::after_machine);
  add_output_dir(c, "--out", o->out, "Directory for os.csv, switches.csv, os.json and the plots");
  add_trace_events(c, o->trace_events, o->request.trace_events_packets);
  add_json(c, o->json, "Write the JSON summary (with configuration and provenance) to FILE");
  c->add_flag("--no-plot", o->no_plot, "Write the CSV and JSON only");
  add_quiet(c, o->quiet);
  add_progress(c, o->progress);
  c->callback([o, &status] {
    dist::require_one_process("rica os");  // the OS layer across ranks may come later (docs/distributed.md)
    status = run(*o);
  });
}

}  // namespace rica::cli
