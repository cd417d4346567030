#pragma once
// The driver registry: every engine (driver) registers itself with its name, one line of
// documentation, its traits (rica/engine.hpp EngineTraits) and its entry point; rica::run, the
// validation and the CLI find it by name or number and read its traits, never its name. Adding a
// driver takes its own file(s) and no edit of the machine's parts (docs/runtime.md, "Adding a
// driver"):
//  - built in: runtime/machine/driver_<name>.cpp defining `const DriverEntry&
//    builtin_driver_<name>()`, and one line `rica_engine(<name> <sources...>)` in CMakeLists.txt
//    (cmake/engines.cmake generates the list that links it in: a static library would otherwise
//    drop an object file nothing refers to);
//  - from code linked into the program (a test: tests/test_driver_registry.cpp), a static
//    `DriverRegistration`.
// Thread safety: registration happens before main() (static initialisation) or at least before
// any run; after that the registry is read-only.
#include "rica/engine.hpp"

namespace rica::detail {

class Machine;

/// A driver's entry point: runs an allocated machine until it is done or stuck, filling st's
/// wall_s, deadlock (analyse_stuck then finds the waiting cycle), cycles_skipped. run_prepared()
/// calls observers' on_start / on_end, collects and verifies around it; a driver with windows
/// (EngineTraits::windows) calls on_window itself (as CycleDriver::observe does).
using DriveFn = void (*)(Machine& m, RunStats& st);

struct DriverEntry {
  EngineInfo info;  ///< name, doc, traits, link_bytes (info.kind is set by the registry)
  DriveFn drive = nullptr;
};

/// Adds a driver and returns its number. usage_error for an invalid or taken name (rica/registry.hpp
/// check_registered_name) or no entry point.
EngineKind register_driver(DriverEntry e);

/// `static DriverRegistration reg{DriverEntry{...}};` registers a driver when its program starts.
struct DriverRegistration {
  explicit DriverRegistration(DriverEntry e) : kind(register_driver(std::move(e))) {}
  const EngineKind kind;
};

/// Engine k's entry point. Precondition: k is registered (validate(EngineConfig) checks it).
DriveFn driver_of(EngineKind k);

}  // namespace rica::detail
