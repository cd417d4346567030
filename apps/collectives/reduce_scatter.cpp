// The `reduce-scatter` application: MPI_Reduce_scatter by the algorithms of rica/collectives.hpp, run by the
// shared executor (collective_app.hpp). Registers itself.
#include "collective_app.hpp"

namespace rica::collectives {

void anchor_reduce_scatter() {}  // collectives_linked() calls it: keeps this file in a static link

namespace {
const bool registered = (register_collective(coll::Kind::reduce_scatter, "reduce-scatter",
                                             "every rank's vector reduced, block i left at rank i: ring, recursive halving, pairwise (docs/collectives.md)",
                                             "reduce-scatter:algorithm=recursive-halving,bytes=256"),
                         true);
}  // namespace

}  // namespace rica::collectives
