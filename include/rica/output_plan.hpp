#pragma once
// The files one command or request will write, planned and checked together before any work:
// each file it writes — the named outputs and the ones derived from them (`--csv r.csv` also
// writes r.links.csv; --telemetry writes r.telemetry_NAME.csv beside it; --out DIR the directory's
// files) — and the files it reads. check() refuses, with one line naming both options, two outputs
// that are one file (or both standard output), an output that is one of the inputs (`rica report
// r.json --out r.json`), and an output that cannot be written (rica/io.hpp check_output_file).
// Devices (/dev/null, ...) may be shared. The names of derived files come from the functions
// their writers use (report::link_csv_path, Telemetry::csv_paths), so the plan and the writes agree.
//
// Thread-safety: a value type; one thread at a time per plan.

#include <string>
#include <vector>

namespace rica {

class OutputPlan {
 public:
  /// One planned file: the option that names it ("--json", "--csv (r.links.csv)") and its path,
  /// "-" for standard output.
  struct File {
    std::string option, path;
  };
  /// An output; an empty path (not asked for) is ignored. Returns *this.
  OutputPlan& add(std::string option, std::string path);
  /// The files `names` written into directory `dir`, each as "<option> (NAME)"; none when `dir` is
  /// empty. Returns *this.
  OutputPlan& add_dir(const std::string& option, const std::string& dir, const std::vector<std::string>& names);
  /// A file the command reads (its input, a --config file): no output may be it. Returns *this.
  OutputPlan& input(std::string option, std::string path);
  /// Refuses (usage_error, one line) what the header above lists. With `writable`, each output file
  /// (not "-") is also checked writable (check_output_file).
  void check(bool writable = false) const;
  [[nodiscard]] const std::vector<File>& outputs() const noexcept { return outputs_; }
  [[nodiscard]] const std::vector<File>& inputs() const noexcept { return inputs_; }

 private:
  std::vector<File> outputs_, inputs_;
};

}  // namespace rica
