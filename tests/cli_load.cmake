# End-to-end tests of open workloads: the stability warning, replayed arrival traces and
# the automatic warm-up (issue 16).
provesim_check_test(test_cli_load SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_cli_load.c LIBS provesim_core)
add_dependencies(test_cli_load provesim)
