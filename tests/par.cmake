# The one parallel-for (common/par.c): every item once, and the CPU time it reports.
provesim_check_test(test_par SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_par.c LIBS provesim_sim)
