// The `allreduce` application: MPI_Allreduce by the algorithms of rica/collectives.hpp, run by the
// shared executor (collective_app.hpp). Registers itself.
#include "collective_app.hpp"

namespace rica::collectives {

void anchor_allreduce() {}  // collectives_linked() calls it: keeps this file in a static link

namespace {
const bool registered = (register_collective(coll::Kind::allreduce, "allreduce",
                                             "every rank's vector reduced, the result at every rank: ring, recursive doubling, Rabenseifner, binomial (docs/collectives.md)",
                                             "allreduce:algorithm=rabenseifner,bytes=4096"),
                         true);
}  // namespace

}  // namespace rica::collectives
