# provesim infer: the CPU work hidden inside a lock, recovered from per-call logs the engine
# made from a known truth (2 and 4 workers, 10 seeds each), the interval's coverage, the
# split reported as not identified, and malformed logs refused (about 30 s on two cores).
provesim_check_test(test_infer SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_infer.c LIBS provesim_sim)
add_dependencies(test_infer provesim)
set_tests_properties(test_infer PROPERTIES TIMEOUT 600)
