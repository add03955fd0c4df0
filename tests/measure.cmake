# The scenario runner (`provesim measure`) end to end on the CPU backend.
provesim_check_test(test_measure SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_measure.c LIBS provesim_common provesim_measure)
add_dependencies(test_measure provesim)
# Alone: its CPU-burning phases time the cores they get, which other tests would take.
set_tests_properties(test_measure PROPERTIES RUN_SERIAL TRUE)
