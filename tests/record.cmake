# `provesim record` without a GPU: the busy-time arithmetic on hand-made and committed
# H200 recordings, the stream and header fields through the spans writer and reader, and
# the command's errors.
provesim_check_test(test_record SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_record.c LIBS provesim_measure provesim_common)
add_dependencies(test_record provesim)
