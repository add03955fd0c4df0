# The what-if logic (sim/whatif.c, sim/plan.c, sim/estimate.c) through its functions, and
# the what-if commands (cli/cli_whatif.c: sweep, plan, estimate) end to end through the
# provesim binary.
provesim_check_test(test_whatif SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_whatif.c LIBS provesim_sim)
add_dependencies(test_whatif provesim)
