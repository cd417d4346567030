// `rica report PATH`: one self-contained HTML page (configuration and provenance, summary tables,
// figures inline as SVG, link heat map, telemetry, the os drain/flush timeline) from what `rica
// run`, `sweep`, `os` or `experiment` wrote. A thin command: it checks its input and output before
// any work, then asks scripts/rica_report.py (which draws through scripts/rica_plot.py, the one
// plotting module) for the page.
#include <fmt/format.h>

#include <filesystem>
#include <memory>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "options.hpp"
#include "rica/core.hpp"
#include "rica/io.hpp"
#include "rica/output_plan.hpp"
#include "sweep.hpp"

namespace rica::cli {
namespace {

struct ReportOptions {
  CLI::App* cmd = nullptr;
  std::string input, out, json;
  bool quiet = false;
};

/// Where the page goes by default: beside a file input ("r.json" -> "r.report.html"), inside a
/// directory input ("DIR/report.html").
std::string default_page(const std::string& input) {
  namespace fs = std::filesystem;
  const fs::path p(input);
  if (fs::is_directory(p)) return (p / "report.html").string();
  return (p.parent_path() / (p.stem().string() + ".report.html")).string();
}

/// The files a page is drawn from, which --out and --json must not overwrite: the input itself; for
/// a run's JSON the files its "outputs" and telemetry name; for a directory every file in it but
/// the pages (*.html) a report writes there.
std::vector<Output> report_inputs(const std::string& input) {
  namespace fs = std::filesystem;
  std::vector<Output> in = {{"report <path>", input}};
  std::error_code ec;
  if (fs::is_directory(input, ec)) {
    for (const auto& e : fs::directory_iterator(input, ec))
      if (e.is_regular_file(ec) && e.path().extension() != ".html")
        in.push_back({fmt::format("report <path> ({})", e.path().filename().string()), e.path().string()});
    return in;
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_text_file(input, "report <path>", {std::uint64_t{1} << 30, std::uint64_t{1} << 30}));
  } catch (const nlohmann::json::exception&) {
    return in;  // not JSON: the script says what it is not
  }
  auto named = [&](const nlohmann::json& v, const std::string& what) {
    if (v.is_string() && !v.get<std::string>().empty() && v.get<std::string>() != "-")
      in.push_back({fmt::format("report <path> ({})", what), v.get<std::string>()});
  };
  if (j.is_object() && j.contains("outputs") && j["outputs"].is_object())
    for (const auto& [key, v] : j["outputs"].items())
      if (key != "json") named(v, key);
  if (j.is_object() && j.contains("telemetry") && j["telemetry"].is_object() && j["telemetry"].contains("files") &&
      j["telemetry"]["files"].is_array())
    for (const auto& v : j["telemetry"]["files"]) named(v, "telemetry");
  return in;
}

void report(const ReportOptions& o) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto status = fs::status(o.input, ec);
  if (!fs::exists(status))
    throw usage_error(fmt::format("report <path>: {} does not exist; give a run's JSON or the output directory of "
                                  "rica sweep, os or experiment",
                                  quote_input(o.input)));
  if (fs::is_regular_file(status))
    (void)read_text_file(o.input, "report <path>", {std::uint64_t{1} << 30, std::uint64_t{1} << 30});
  else if (!fs::is_directory(status))
    throw usage_error(fmt::format("report <path>: {} is neither a regular file nor a directory", quote_input(o.input)));
  const std::string page = o.out.empty() ? default_page(o.input) : o.out;
  check_output_file(page, "--out");  // before any work: an unwritable page is refused now
  // The page and the JSON, never over a file the page is drawn from (rica/output_plan.hpp).
  OutputPlan plan;
  for (const Output& in : report_inputs(o.input)) plan.input(in.option, in.path);
  plan.add("--out", page).add("--json", o.json).check();
  std::string bad_input;
  if (!experiments::run_plot_script("rica_report.py", {o.input, "--out", page}, &bad_input))
    throw usage_error(bad_input.empty() ? fmt::format("report: could not write '{}' (see the message above)", page)
                                        : fmt::format("report: {}", bad_input));
  if (!o.quiet && show_text(o.quiet, o.json)) fmt::print("report written to {}\n", page);
  if (!o.json.empty()) {
    nlohmann::json j = provenance(option_config(o.cmd), 0, 1);
    j["report"] = page;
    write_json(o.json, j);
  }
}

}  // namespace

void add_report_command(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  auto* c = app.add_subcommand(
      "report", "One self-contained HTML page (tables, figures, heat map, telemetry, os timeline) from a run's JSON or "
                "a sweep's, os's or experiment's output directory");
  o->cmd = c;
  add_text(c, "path", o->input, "A run's JSON (rica run --json), or the --out directory of rica sweep, os or experiment",
           "a file or directory written by rica")
      ->required();
  add_output_file(c, "--out", o->out, "The page [default: beside a file input as NAME.report.html, DIR/report.html "
                                      "inside a directory]");
  add_json(c, o->json, "Write the page's path and provenance as JSON to FILE");
  add_quiet(c, o->quiet);
  c->callback([o] { report(*o); });
}

}  // namespace rica::cli
