// rica's whole command line plus the test-only family "circulant" (tests/family_circulant.cpp,
// linked beside this file): tests/family_tests.sh drives it through topo, route, run, partition
// and bound.
#include <rica/cli.hpp>

int main(int argc, char** argv) { return rica::cli::main(argc, argv); }
