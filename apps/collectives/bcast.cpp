// The `bcast` application: MPI_Bcast by the algorithms of rica/collectives.hpp, run by the
// shared executor (collective_app.hpp). Registers itself.
#include "collective_app.hpp"

namespace rica::collectives {

void anchor_bcast() {}  // collectives_linked() calls it: keeps this file in a static link

namespace {
const bool registered = (register_collective(coll::Kind::bcast, "bcast",
                                             "the root's vector to every rank: binomial, scatter-allgather (van de Geijn), scatter-ring-allgather, pipeline (docs/collectives.md)",
                                             "bcast:algorithm=scatter-allgather,bytes=65536"),
                         true);
}  // namespace

}  // namespace rica::collectives
