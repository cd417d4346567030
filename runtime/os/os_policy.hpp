#pragma once
// The built-in switch policies and the registry's factory (the interface every policy implements,
// built-in or not, is the public rica/os_policy.hpp). A built-in policy is one file
// runtime/os/os_<name>.cpp plus one line in runtime/os/os_policies.cpp.

#include <memory>

#include "rica/os_policy.hpp"

namespace rica::detail {

/// The policy a selector names (registered: built-in or from user code).
std::unique_ptr<SwitchPolicyImpl> make_switch_policy(SwitchPolicy p);

/// The built-in policies (runtime/os/os_drain.cpp, os_flush.cpp, os_drain_pe.cpp).
std::unique_ptr<SwitchPolicyImpl> make_drain_policy();
std::unique_ptr<SwitchPolicyImpl> make_flush_policy();
std::unique_ptr<SwitchPolicyImpl> make_drain_pe_policy();

}  // namespace rica::detail
