# The hostile-input corpus (tests/hostile/): every reader and every command's arguments fed
# malformed input must exit 2 with one line naming the file (and line), leave nothing
# behind, and stay within time and memory limits (scripts/hostile.py). About 5 s.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME hostile
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/hostile.py $<TARGET_FILE:provesim>
                   ${PROJECT_SOURCE_DIR}/tests/hostile)
  set_tests_properties(hostile PROPERTIES TIMEOUT 120)
endif()
