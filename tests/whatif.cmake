# The what-if commands (sim/cli_whatif.c): sweep, plan, estimate, end to end through the
# provesim binary, and the saturation point through the library.
provesim_check_test(test_whatif SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_whatif.c LIBS provesim_cli)
add_dependencies(test_whatif provesim)
