// The `gather` application: MPI_Gather by the algorithms of rica/collectives.hpp, run by the
// shared executor (collective_app.hpp). Registers itself.
#include "collective_app.hpp"

namespace rica::collectives {

void anchor_gather() {}  // collectives_linked() calls it: keeps this file in a static link

namespace {
const bool registered = (register_collective(coll::Kind::gather, "gather",
                                             "every rank's block to the root: binomial (docs/collectives.md)",
                                             "gather:bytes=256"),
                         true);
}  // namespace

}  // namespace rica::collectives
