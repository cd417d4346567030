// Planned outputs, checked together (rica/output_plan.hpp).
#include "rica/output_plan.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <system_error>
#include <utility>

#include "rica/core.hpp"
#include "rica/io.hpp"

namespace rica {
namespace {
namespace fs = std::filesystem;

/// A file's identity for the comparison: "-" for standard output, its resolved path otherwise;
/// empty for a device or anything else that is not a regular file or a missing one (shareable).
fs::path identity(const std::string& path) {
  if (path == "-") return "-";
  std::error_code ec;
  if (fs::exists(path, ec) && !fs::is_regular_file(path, ec)) return {};
  fs::path id = fs::weakly_canonical(fs::absolute(path, ec), ec);
  if (ec) id = fs::absolute(path, ec).lexically_normal();
  return id;
}

bool same(const fs::path& a, const fs::path& b) {
  if (a.empty() || b.empty()) return false;
  if (a == b) return true;
  if (a == "-" || b == "-") return false;
  std::error_code ec;
  return fs::equivalent(a, b, ec);
}
}  // namespace

OutputPlan& OutputPlan::add(std::string option, std::string path) {
  if (!path.empty()) outputs_.push_back({std::move(option), std::move(path)});
  return *this;
}

OutputPlan& OutputPlan::add_dir(const std::string& option, const std::string& dir, const std::vector<std::string>& names) {
  if (!dir.empty())
    for (const auto& n : names) outputs_.push_back({fmt::format("{} ({})", option, n), (fs::path(dir) / n).string()});
  return *this;
}

OutputPlan& OutputPlan::input(std::string option, std::string path) {
  if (!path.empty() && path != "-") inputs_.push_back({std::move(option), std::move(path)});
  return *this;
}

void OutputPlan::check(bool writable) const {
  std::vector<std::pair<const File*, fs::path>> seen;
  for (const File& in : inputs_) seen.emplace_back(&in, identity(in.path));
  const std::size_t reads = seen.size();
  for (const File& out : outputs_) {
    if (writable && out.path != "-") check_output_file(out.path, out.option);
    const fs::path id = identity(out.path);
    for (std::size_t i = 0; i < seen.size(); ++i) {
      const auto& [other, other_id] = seen[i];
      if (!same(id, other_id)) continue;
      if (i < reads)
        throw usage_error(fmt::format("{} would overwrite {}'s file '{}', which this command reads; give the output "
                                      "another name",
                                      out.option, other->option, out.path));
      if (id == "-")
        throw usage_error(fmt::format("{} and {} both write to standard output ('-'); give one of them a file",
                                      other->option, out.option));
      throw usage_error(fmt::format("{} and {} both name the file '{}'; give each output its own file", other->option,
                                    out.option, out.path));
    }
    seen.emplace_back(&out, id);
  }
}

}  // namespace rica
