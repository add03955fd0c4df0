# The engine's random numbers (core/rng.c) against GSL's.
provesim_check_test(test_rng SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_rng.c LIBS provesim_core)
