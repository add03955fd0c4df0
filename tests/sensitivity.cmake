# Sensitivity (sim/sensitivity.c, `provesim sensitivity`), run.precision (sim/precision.c
# and the loader's run.precision) and dist_scale: closed forms, common random numbers,
# thread independence, the precision met or the cap reported. About 10 s.
provesim_check_test(test_sensitivity SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_sensitivity.c LIBS provesim_sim)
add_dependencies(test_sensitivity provesim)
