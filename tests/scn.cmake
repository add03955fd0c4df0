provesim_check_test(test_scn SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_scn.c LIBS provesim_sim)
