# End-to-end tests of the provesim binary.
provesim_check_test(test_cli SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_cli.c LIBS provesim_common)
add_dependencies(test_cli provesim)
