// `rica os-stream`: the OS-policy workbench (docs/os.md "Job streams"). A thin presenter over the
// library request rica/request/os_stream.hpp: options -> request::OsStream; run; the table
// (stdout), stream.csv, jobs.csv, switches.csv, utilisation.csv, stream.json (with provenance) and
// plots (scripts/plot_os_stream.py); the same request and JSON for Python (os_stream_json).
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <optional>

#include "api.hpp"
#include "commands.hpp"
#include "options.hpp"
#include "request_options.hpp"
#include "rica/distributed.hpp"
#include "rica/io.hpp"
#include "rica/request/os_stream.hpp"
#include "sweep.hpp"

namespace rica::cli {
namespace {

const std::vector<std::string> stream_files = {"stream.csv", "jobs.csv", "switches.csv", "utilisation.csv",
                                               "stream.json"};

struct StreamOptions {
  CLI::App* cmd = nullptr;
  request::OsStream request;  ///< the request's own options; the machine's from `engine`
  EngineOptions engine;
  std::string out, json;
  bool no_plot = false, quiet = false, progress = false;
};

void declare(CLI::App* c, StreamOptions& o) {
  o.cmd = c;
  const auto& fields = request::OsStream::fields();
  add_request_options(c, o.request, fields, request::FieldPlace::before_machine);
  add_engine_options(c, o.engine);
  add_request_options(c, o.request, fields, request::FieldPlace::after_machine);
  add_output_dir(c, "--out", o.out, "Directory for stream.csv, jobs.csv, switches.csv, utilisation.csv, stream.json, plots");
  add_json(c, o.json, "Write the JSON summary (with configuration and provenance) to FILE");
  c->add_flag("--no-plot", o.no_plot, "Write the CSV and JSON only");
  add_quiet(c, o.quiet);
  add_progress(c, o.progress);
}

/// The request's run with the CLI's outputs checked before the first run, its progress and its
/// stuck runs reported on stderr; the JSON report with provenance.
std::pair<request::OsStreamOutcome, nlohmann::json> execute(const StreamOptions& o) {
  request::OsStream r = o.request;
  EngineOptions eo = o.engine;
  eo.cfg.engine = EngineKind::cycle;
  r.engine = engine_config(eo);
  std::optional<Progress> progress;
  request::OsStreamHooks hooks;
  bool made_out = false;  // --out did not exist: a run that fails or is stopped leaves none behind
  hooks.started = [&](const request::OsStreamOutcome& out) {
    if (!o.quiet)
      for (const std::string& note : out.skipped) fmt::print(stderr, "rica: os-stream: skipped {}\n", note);
    std::vector<Output> outputs = dir_outputs(o.out, stream_files);
    outputs.push_back({"--json", o.json});
    check_distinct_outputs(outputs);
    if (!o.json.empty() && o.json != "-") check_output_file(o.json, "--json");
    if (!o.out.empty()) {
      std::error_code ec;
      made_out = !std::filesystem::exists(o.out, ec);
      prepare_output_dir(o.out, "--out");
      for (const std::string& f : stream_files) check_output_file(o.out + "/" + f, "--out");
    }
    // Progress over every job of every run (a run of a long stream takes minutes).
    progress.emplace("jobs", out.planned * out.jobs, o.quiet, o.progress);
  };
  hooks.progress = [&](std::size_t done, const std::string& note) { progress->update(done, note); };
  hooks.ran = [](const request::OsStreamOutcome::Run& run) {
    if (run.stats.machine.deadlock) fmt::print(stderr, "rica: {}", request::OsStreamOutcome::stuck_report(run));
  };
  std::optional<request::OsStreamOutcome> ran;
  try {
    ran.emplace(request::run(r, hooks));
  } catch (...) {
    if (made_out) {
      std::error_code ec;
      if (std::filesystem::is_empty(o.out, ec) && !ec) std::filesystem::remove(o.out, ec);
    }
    throw;
  }
  request::OsStreamOutcome out = std::move(*ran);
  progress->finish();
  nlohmann::json config = option_config(o.cmd);
  config["threads"] = out.engine.threads;
  nlohmann::json j = provenance(config, out.engine.seed, out.engine.threads);
  j.update(out.to_json());
  return {std::move(out), std::move(j)};
}

int run(const StreamOptions& o) {
  const auto [out, j] = execute(o);
  if (show_text(o.quiet, o.json)) fmt::print("{}", out.text());
  if (!o.json.empty()) write_json(o.json, j);
  if (!o.out.empty()) {
    const std::string texts[] = {out.summary_csv(), out.jobs_csv(), out.switches_csv(), out.utilisation_csv(),
                                 j.dump(2) + "\n"};
    for (std::size_t k = 0; k < stream_files.size(); ++k) write_text_file(o.out + "/" + stream_files[k], texts[k], "--out");
    if (!o.no_plot) experiments::run_plot_script("plot_os_stream.py", {o.out, "--out", o.out, "--title", out.plot_title()});
    if (!o.quiet)
      fmt::print("wrote {}/stream.csv, jobs.csv, switches.csv, utilisation.csv, stream.json{}\n", o.out,
                 o.no_plot ? "" : ", plots");
  }
  std::string why;
  const int status = out.status(&why);
  if (status == 1) fmt::print(stderr, "rica: {}", why);
  return status;
}

}  // namespace

nlohmann::json os_stream_json(const std::vector<std::string>& args) {
  StreamOptions o;
  o.quiet = true;
  std::optional<nlohmann::json> out;
  parse_subcommand(
      "os-stream", args, [&](CLI::App* c) { declare(c, o); },
      [&] {
        if (!o.out.empty() || !o.json.empty())
          throw usage_error("os_stream: --out and --json are the CLI's; the result is returned");
        out.emplace(execute(o).second);
      });
  return std::move(*out);
}

void add_os_stream_command(CLI::App& app, int& status) {
  auto o = std::make_shared<StreamOptions>();
  auto* c = app.add_subcommand("os-stream",
                               "OS-policy workbench: a job stream under allocators, schedulers and switch policies");
  declare(c, *o);
  c->callback([o, &status] {
    dist::require_one_process("rica os-stream");
    status = run(*o);
  });
}

}  // namespace rica::cli
