# Check suite of the analytic models (sim/analytic.c): machine repairman, MVA, closed forms, bounds.
provesim_check_test(test_analytic SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_analytic.c LIBS provesim_sim)
