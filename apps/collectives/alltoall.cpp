// The `alltoall` application: MPI_Alltoall by the algorithms of rica/collectives.hpp, run by the
// shared executor (collective_app.hpp). Registers itself.
#include "collective_app.hpp"

namespace rica::collectives {

void anchor_alltoall() {}  // collectives_linked() calls it: keeps this file in a static link

namespace {
const bool registered = (register_collective(coll::Kind::alltoall, "alltoall",
                                             "a block from every rank to every rank: pairwise, Bruck, linear (docs/collectives.md)",
                                             "alltoall:algorithm=pairwise,bytes=64"),
                         true);
}  // namespace

}  // namespace rica::collectives
