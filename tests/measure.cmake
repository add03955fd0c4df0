# The scenario runner (`provesim measure`) end to end on the CPU backend.
provesim_check_test(test_measure SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_measure.c LIBS provesim_common)
add_dependencies(test_measure provesim)
