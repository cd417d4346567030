// The `allgather` application: MPI_Allgather by the algorithms of rica/collectives.hpp, run by the
// shared executor (collective_app.hpp). Registers itself.
#include "collective_app.hpp"

namespace rica::collectives {

void anchor_allgather() {}  // collectives_linked() calls it: keeps this file in a static link

namespace {
const bool registered = (register_collective(coll::Kind::allgather, "allgather",
                                             "every rank's block to every rank: ring, recursive doubling, Bruck (docs/collectives.md)",
                                             "allgather:algorithm=bruck,bytes=64"),
                         true);
}  // namespace

}  // namespace rica::collectives
