// The `reduce-root` application: MPI_Reduce by the algorithms of rica/collectives.hpp, run by the
// shared executor (collective_app.hpp). Registers itself.
#include "collective_app.hpp"

namespace rica::collectives {

void anchor_reduce() {}  // collectives_linked() calls it: keeps this file in a static link

namespace {
const bool registered = (register_collective(coll::Kind::reduce, "reduce-root",
                                             "every rank's vector reduced to the root (MPI_Reduce): binomial (the name 'reduce' is the tutorial's tree reduce; docs/collectives.md)",
                                             "reduce-root:bytes=4096,root=0"),
                         true);
}  // namespace

}  // namespace rica::collectives
