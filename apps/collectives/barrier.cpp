// The `barrier` application: MPI_Barrier by the algorithms of rica/collectives.hpp, run by the
// shared executor (collective_app.hpp). Registers itself.
#include "collective_app.hpp"

namespace rica::collectives {

void anchor_barrier() {}  // collectives_linked() calls it: keeps this file in a static link

namespace {
const bool registered = (register_collective(coll::Kind::barrier, "barrier",
                                             "no rank leaves before every rank arrived: dissemination, tree (docs/collectives.md)",
                                             "barrier:algorithm=dissemination"),
                         true);
}  // namespace

}  // namespace rica::collectives
