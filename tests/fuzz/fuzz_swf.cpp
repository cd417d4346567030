// Fuzz target: Standard Workload Format job streams (`rica os-stream --jobs FILE`, load_swf through
// rica::read_text_file). An accepted stream has at least one job, in submit order, each of at
// least one PE and a run time >= 0.
#include <cmath>

#include "fuzz.hpp"
#include "rica/os_stream.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = rica::fuzz::scratch_file(rica::fuzz::text_of(data, size), ".swf");
  rica::fuzz::refused_or_ok([&] {
    const rica::JobStream s = rica::load_swf(path);
    if (s.jobs.empty()) std::abort();
    for (std::size_t i = 0; i < s.jobs.size(); ++i) {
      const rica::StreamJob& j = s.jobs[i];
      if (j.pes < 1 || !std::isfinite(j.submit) || !std::isfinite(j.run_time) || j.run_time < 0) std::abort();
      if (i > 0 && s.jobs[i].submit < s.jobs[i - 1].submit) std::abort();
    }
  });
  return 0;
}
