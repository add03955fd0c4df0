# The simulation engine's suite.
provesim_check_test(test_pipe SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_pipe.c LIBS provesim_sim)
