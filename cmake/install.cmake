# Installation (included from the top CMakeLists.txt). `cmake --install build --prefix P` lays out:
#   P/bin/rica                             the CLI (finds its libraries and scripts relative to itself)
#   P/lib/librica_*.{a,so}                 rica::runtime and the application libraries, rica::cli
#   P/include/rica/...                     the public API (the switch-policy interface included:
#                                          rica/os_policy.hpp); rica/apps/ the application headers
#                                          (only P/include is on a consumer's include path)
#   P/share/rica/scripts/*.py              rica_plot.py (+ rica_style.py, rica_heatmap.py) and plot_*.py: the plot scripts `rica sweep|os|experiment` call
#   P/lib/cmake/rica/                      find_package(rica CONFIG REQUIRED): rica::runtime, rica::cli, ...
#   P/lib/pkgconfig/rica.pc                pkg-config --cflags --libs rica
# Nothing installed refers to the source or build tree.
include(CMakePackageConfigHelpers)

set(RICA_EXPORTED rica_runtime rica_traffic rica_kernels rica_hpc rica_replay rica_examples rica_experiments rica_cli)
foreach(t ${RICA_EXPORTED})
  string(REPLACE "rica_" "" short ${t})
  set_target_properties(${t} PROPERTIES EXPORT_NAME ${short})
endforeach()

install(TARGETS ${RICA_EXPORTED} EXPORT ricaTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS rica RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

install(DIRECTORY include/rica DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.hpp")
# The generated list of built-in topology families (cmake/topology_families.cmake).
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/generated/include/rica/topology/families.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/rica/topology)
# rica/apps/: the application libraries' headers. Consumers include them by path
# (<rica/apps/traffic.hpp>): only P/include is on their include path, so rica's header names never
# collide with theirs. Nothing of runtime/ (the machine's internals) is installed.
install(FILES apps/traffic/traffic.hpp apps/examples/app_registry.hpp apps/examples/reduce.hpp
              apps/sort/sort.hpp apps/stencil/stencil.hpp apps/stencil/process_map.hpp
              apps/experiments/sweep.hpp apps/experiments/experiment.hpp
              apps/replay/mpi_trace.hpp apps/replay/mpi_replay.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/rica/apps)
foreach(script ${RICA_PLOT_SCRIPTS})
  install(PROGRAMS scripts/${script} DESTINATION ${CMAKE_INSTALL_DATADIR}/rica/scripts)
endforeach()

set(RICA_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/rica)
install(EXPORT ricaTargets NAMESPACE rica:: DESTINATION ${RICA_CMAKE_DIR})
set(RICA_SCRIPTS_INSTALL_DIR ${CMAKE_INSTALL_DATADIR}/rica/scripts)
configure_package_config_file(cmake/ricaConfig.cmake.in ${CMAKE_BINARY_DIR}/ricaConfig.cmake
  INSTALL_DESTINATION ${RICA_CMAKE_DIR} PATH_VARS RICA_SCRIPTS_INSTALL_DIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/ricaConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/ricaConfig.cmake ${CMAKE_BINARY_DIR}/ricaConfigVersion.cmake
        DESTINATION ${RICA_CMAKE_DIR})

# pkg-config: rica.pc gives rica::runtime (the core library); relocatable (${pcfiledir}).
file(RELATIVE_PATH RICA_PC_TO_PREFIX /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
# Built with MPI, the library needs it (runtime/machine/driver_mpi.cpp): pkg-config's `mpi` module.
set(RICA_PC_REQUIRES_MPI "")
if(RICA_HAVE_MPI)
  set(RICA_PC_REQUIRES_MPI " mpi")
endif()
configure_file(cmake/rica.pc.in ${CMAKE_BINARY_DIR}/rica.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/rica.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
