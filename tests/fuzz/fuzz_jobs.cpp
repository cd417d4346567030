// Fuzz target: job specs of `rica os` / `rica os-stream`: line 1 is --jobs (a poisson: stream; a
// file path is fuzz_swf's), line 2 --job (one spec or a weighted mix "SPEC@W;..."), line 3
// --job-map ("N=SPEC;..."). The mix is parsed against every job name, each chosen spec is built on
// a small machine's job of the stream's first size (experiments::make_job).
#include <algorithm>

#include "fuzz.hpp"
#include "machines.hpp"
#include "os_jobs.hpp"
#include "rica/os_stream.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1 || size > 512) return 0;
  const auto [jobs, rest] = rica::fuzz::split_first_line(rica::fuzz::text_of(data + 1, size - 1));
  const auto [job, map] = rica::fuzz::split_first_line(rest);
  rica::fuzz::refused_or_ok([&] {
    const rica::Topology& t = rica::fuzz::machine(data[0]);
    rica::JobStream stream;
    const bool poisson = jobs.starts_with("poisson");
    if (poisson) {
      stream = rica::job_stream(jobs);
      if (stream.jobs.empty()) std::abort();
      if (stream.jobs.size() > 64) stream.jobs.resize(64);
    } else {
      stream.jobs.push_back(rica::StreamJob{.id = 1, .pes = static_cast<rica::node_t>(1 + data[0] % 8), .executable = data[0] % 3});
    }
    const rica::JobMix mix = rica::parse_job_mix(job, map, rica::experiments::job_names(), !poisson);
    rica::assign_apps(stream, mix, data[0]);
    for (const rica::StreamJob& j : stream.jobs) {
      if (j.app.empty()) std::abort();
      const rica::node_t pes = std::min<rica::node_t>(j.pes, t.pes());
      (void)rica::experiments::make_job(j.app, t, rica::Shape{pes}, 0.1, 2, data[0]);
    }
  });
  return 0;
}
