#pragma once
// One machine over several processes (MPI ranks; docs/distributed.md). `rica` calls init() first:
// launched by mpirun (the launcher's environment names a world size) in a build with MPI
// (RICA_WITH_MPI), it initialises MPI; otherwise — and under `mpirun -np 1` — it is one process
// and nothing changes. rica::run() then spreads the machine (cycle or async engine) over the ranks by
// itself; every other entry point works as before in each rank.
//
// Thread-safety: init() and finalize() on the main thread only; the queries from any thread.

#include <string>

namespace rica::dist {

/// Initialises MPI when launched by mpirun with more than one process (OMPI_COMM_WORLD_SIZE,
/// PMIX_RANK or PMI_SIZE in the environment) and the build has MPI. Ranks other than 0 then
/// write nothing: their standard output and error go to /dev/null (abort() still reaches the
/// terminal). Idempotent.
void init(int& argc, char**& argv);
/// Finalises MPI if init() started it. Idempotent; also run at exit.
void finalize();
/// Processes in the run (1 without mpirun, without MPI, or under -np 1) and this one's rank.
unsigned size() noexcept;
unsigned rank() noexcept;
/// True when rica was built with MPI support.
bool built_with_mpi() noexcept;
/// Ends every rank of the run at once (MPI_Abort) after writing `why` to this rank's original
/// standard error; with one process, writes it and exits. Never returns.
[[noreturn]] void abort(int status, const std::string& why);
/// Refuses (usage_error, exit 2) a command that does not run across ranks yet when size() > 1:
/// "<what> runs in one process only; run it without mpirun (or with -np 1)".
void require_one_process(const std::string& what);

}  // namespace rica::dist
