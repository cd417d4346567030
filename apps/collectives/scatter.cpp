// The `scatter` application: MPI_Scatter by the algorithms of rica/collectives.hpp, run by the
// shared executor (collective_app.hpp). Registers itself.
#include "collective_app.hpp"

namespace rica::collectives {

void anchor_scatter() {}  // collectives_linked() calls it: keeps this file in a static link

namespace {
const bool registered = (register_collective(coll::Kind::scatter, "scatter",
                                             "the root's blocks, one to each rank: binomial (docs/collectives.md)",
                                             "scatter:bytes=256"),
                         true);
}  // namespace

}  // namespace rica::collectives
