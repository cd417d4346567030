#pragma once
// The CLI registration of a request's own options (rica/request/fields.hpp): each declared once
// beside the request's fields, registered here with the shared parsers of options.hpp, so --help,
// the recorded configuration, --config keys and the Python keywords follow the declaration.

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "rica/request/fields.hpp"

namespace rica::cli {

/// Declares `f` on `c`, filling `target`; the defaults shown are target's value at the call.
/// RICA_ASSERT: f.kind matches the target's type (rica/request/fields.hpp FieldKind).
CLI::Option* add_field(CLI::App* c, const request::FieldInfo& f, std::string& target);
CLI::Option* add_field(CLI::App* c, const request::FieldInfo& f, std::vector<std::string>& target);
CLI::Option* add_field(CLI::App* c, const request::FieldInfo& f, std::uint64_t& target);
CLI::Option* add_field(CLI::App* c, const request::FieldInfo& f, unsigned& target);
CLI::Option* add_field(CLI::App* c, const request::FieldInfo& f, std::vector<std::uint64_t>& target);
CLI::Option* add_field(CLI::App* c, const request::FieldInfo& f, double& target);
CLI::Option* add_field(CLI::App* c, const request::FieldInfo& f, std::vector<double>& target);
CLI::Option* add_field(CLI::App* c, const request::FieldInfo& f, bool& target);

/// Declares on `c` every option of `fields` listed at `place`, in declaration order, filling
/// `request` (which must outlive the parse).
template <class R>
void add_request_options(CLI::App* c, R& request, const std::vector<request::Field<R>>& fields,
                         request::FieldPlace place) {
  for (const request::Field<R>& f : fields)
    if (f.info.place == place) std::visit([&](auto member) { add_field(c, f.info, request.*member); }, f.member);
}

}  // namespace rica::cli
