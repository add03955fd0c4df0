# Calibration (spans -> model) and validation (prediction vs measurement).
provesim_check_test(test_calib SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_calib.c LIBS provesim_sim)
add_dependencies(test_calib provesim)
