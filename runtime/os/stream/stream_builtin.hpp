#pragma once
// The built-in allocators and schedulers of job streams (rica/os_stream.hpp). A built-in one is a
// file runtime/os/stream/alloc_<name>.cpp or sched_<name>.cpp plus one line in the registry
// (runtime/os/stream/stream_input.cpp); from user code, AllocatorRegistration /
// SchedulerRegistration in one file. Not API.

#include <memory>

#include "rica/os_stream.hpp"

namespace rica::detail {

std::unique_ptr<Allocator> make_buddy_allocator(const Topology& t, std::uint64_t seed);
std::unique_ptr<Allocator> make_first_fit_allocator(const Topology& t, std::uint64_t seed);
std::unique_ptr<Allocator> make_best_fit_allocator(const Topology& t, std::uint64_t seed);
std::unique_ptr<Allocator> make_random_allocator(const Topology& t, std::uint64_t seed);
std::unique_ptr<Allocator> make_compact_allocator(const Topology& t, std::uint64_t seed);

std::unique_ptr<Scheduler> make_fcfs_scheduler();
std::unique_ptr<Scheduler> make_easy_scheduler();
std::unique_ptr<Scheduler> make_gang_scheduler();

}  // namespace rica::detail
