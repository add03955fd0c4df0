# The backend API (prover/backend.h) with the cpu backend, in CI; and gpu_check, the
# GPU-vs-CPU comparison that needs a GPU and so is built but not registered with ctest.
provesim_check_test(test_backend SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_backend.c LIBS provesim_prover)
add_executable(gpu_check ${CMAKE_CURRENT_SOURCE_DIR}/gpu_check.c)
target_link_libraries(gpu_check PRIVATE provesim_prover)
