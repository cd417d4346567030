// rica's whole command line plus the test-only option --test-knob (tests/option_knob.cpp, linked
// beside this file): tests/option_table_tests.sh drives it.
#include <rica/cli.hpp>

int main(int argc, char** argv) { return rica::cli::main(argc, argv); }
