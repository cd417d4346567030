#pragma once
// The version of rica: the project version (CMakeLists.txt) and `git describe --always --dirty`
// of the source tree when it was configured ("unknown" outside a git clone or without git).
// Every JSON report records version_string().

#include <string>

namespace rica {

/// The project version, e.g. "0.1.0".
const char* version() noexcept;
/// `git describe --always --dirty --tags` at configure time, or "unknown".
const char* git_describe() noexcept;
/// "0.1.0 (git ced620d)", or "0.1.0 (git unknown)".
inline std::string version_string() { return std::string(version()) + " (git " + git_describe() + ")"; }

}  // namespace rica
