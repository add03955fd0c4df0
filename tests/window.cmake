# The measurement window (core/window.c): the rule, and the simulator, measure and
# validate computing the same utilization from the same run. Also report CSV quoting.
provesim_check_test(test_window SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_window.c LIBS provesim_sim provesim_measure)
