# Ordered, bounded delivery of parallel replications' spans (sim/spanord.c).
provesim_check_test(test_spanord SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_spanord.c LIBS provesim_sim)
