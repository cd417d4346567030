#pragma once
// Tests of refusals: the one-line message a call refuses with.

#include <string>

#include "rica/core.hpp"

namespace rica::test {

/// The usage_error message `f()` throws, or "(accepted)" when it returns.
template <class F>
std::string refusal(F&& f) {
  try {
    f();
  } catch (const usage_error& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace rica::test
