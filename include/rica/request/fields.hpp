#pragma once
// A request's own options, declared once beside its fields (e.g. request::Os::fields(),
// rica/request/os.hpp): the command-line name, the kind of value, the accepted range, the help text
// and where --help lists it. The CLI registers them from that list (apps/cli/request_options.hpp),
// so --help, the recorded configuration, --config keys and the Python keywords all follow it; the
// request's validate() checks its fields against the same list (check_fields) with the CLI's
// words, so a C++ caller gets the CLI's one-line refusal for the same value. The machine's options
// (rica::EngineConfig) are the CLI's option table's, not declared here. Implemented in
// rica::experiments (apps/experiments/request_fields.cpp).
//
// Thread-safety: a request's list is built once (a function-local static) and read-only after.

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace rica::request {

/// What an option takes, and so which of the CLI's parsers reads it (apps/cli/options.hpp).
enum class FieldKind : std::uint8_t {
  text,       ///< std::string: non-empty text whose syntax the request checks
  texts,      ///< std::vector<std::string>: the same, one value per occurrence (repeatable)
  uint,       ///< std::uint64_t or unsigned: an unsigned integer in [lo, hi]
  uint_list,  ///< std::vector<std::uint64_t>: a comma list of unsigned integers, each in [lo, hi]
  names,      ///< std::vector<std::string>: a comma list of names, at least one (the request checks them)
  rate,       ///< double: --rate, one injection rate in (0, 1] (the CLI's shared option)
  rates,      ///< std::vector<double>: FROM:TO:STEP or a comma list, each in (0, 1]
  packets,    ///< std::uint64_t: --packets per PE in [1, defaults::limits::packets] (the CLI's shared option)
  real,       ///< double: a number in (lo, hi]
  flag,       ///< bool: a switch
};

/// Where --help lists an option: before or after the machine's options (the option table's).
enum class FieldPlace : std::uint8_t { before_machine, after_machine };

/// The registry a names option lists in its help ("{}" in the help): (name, doc) pairs.
using FieldRegistry = std::vector<std::pair<std::string, std::string>> (*)();

/// One option, without the member it fills.
struct FieldInfo {
  const char* name = "";  ///< "--slice"; a positional's name without dashes ("topology")
  FieldKind kind = FieldKind::text;
  std::uint64_t lo = 0, hi = 0;  ///< uint, uint_list: [lo, hi]; real: (lo, hi]
  const char* help = "";         ///< --help's text; for names, "{}" stands for the registry's names
  const char* accepted = "";     ///< text, texts: what is accepted (completes the refusal of "")
  FieldRegistry registry = nullptr;  ///< names: the registry the help lists
  bool required = false;             ///< the CLI requires it (a positional spec)
  bool may_be_empty = false;         ///< text: "" means not given (its default); otherwise "" is refused
  FieldPlace place = FieldPlace::before_machine;
  [[nodiscard]] bool positional() const noexcept { return name[0] != '-'; }
  /// How refusals name it: "--slice", or "<command> <topology>" for a positional (the CLI's words).
  [[nodiscard]] std::string flag(const std::string& command) const;
  /// --help's text: `help` with the registry's names in place of "{}".
  [[nodiscard]] std::string help_text() const;
};

/// One option of request type R and the member of R it fills (its type matches `info.kind`).
template <class R>
struct Field {
  using Member = std::variant<std::string R::*, std::vector<std::string> R::*, std::uint64_t R::*, unsigned R::*,
                              std::vector<std::uint64_t> R::*, double R::*, std::vector<double> R::*, bool R::*>;
  FieldInfo info;
  Member member;
};

/// The CLI's refusal of each kind for a value a caller set (usage_error, one line, the CLI's text
/// for the same value given on the command line); `command` names a positional ("os").
void check_field(const FieldInfo& f, const std::string& command, const std::string& value);
void check_field(const FieldInfo& f, const std::string& command, const std::vector<std::string>& value);
void check_field(const FieldInfo& f, const std::string& command, std::uint64_t value);
void check_field(const FieldInfo& f, const std::string& command, const std::vector<std::uint64_t>& value);
void check_field(const FieldInfo& f, const std::string& command, double value);
void check_field(const FieldInfo& f, const std::string& command, const std::vector<double>& value);
inline void check_field(const FieldInfo&, const std::string&, bool) {}

/// Every field of `request` against its declaration, in declaration order; the first refusal throws.
template <class R>
void check_fields(const R& request, const std::vector<Field<R>>& fields, const std::string& command) {
  for (const Field<R>& f : fields)
    std::visit(
        [&](auto member) {
          const auto& value = request.*member;
          if constexpr (std::is_same_v<std::decay_t<decltype(value)>, unsigned>)
            check_field(f.info, command, static_cast<std::uint64_t>(value));
          else
            check_field(f.info, command, value);
        },
        f.member);
}

}  // namespace rica::request
