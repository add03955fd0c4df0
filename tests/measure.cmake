# The scenario runner (`provesim measure`) end to end on the CPU backend.
provesim_check_test(test_measure SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_measure.c LIBS provesim_common provesim_measure)
add_dependencies(test_measure provesim)
# Alone: its CPU-burning phases time the cores they get, which other tests would take.
set_tests_properties(test_measure PROPERTIES RUN_SERIAL TRUE)
# measure's NVML sampler (utilization, SM clock, slowdown reasons) against a stand-in
# libnvidia-ml.so.1 found first on LD_LIBRARY_PATH, and the report's gpu_clocks.
add_library(fake_nvml SHARED ${CMAKE_CURRENT_SOURCE_DIR}/fake_nvml.c)
set_target_properties(fake_nvml PROPERTIES OUTPUT_NAME nvidia-ml PREFIX lib SUFFIX .so.1
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fake_nvml)
provesim_check_test(test_nvml SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_nvml.c LIBS provesim_measure provesim_common)
add_dependencies(test_nvml fake_nvml)
set_property(TEST test_nvml APPEND PROPERTY ENVIRONMENT "LD_LIBRARY_PATH=${CMAKE_CURRENT_BINARY_DIR}/fake_nvml")
