# The spans reader (common/spans.c) on hostile input.
provesim_check_test(test_spans SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_spans.c LIBS provesim_common)
