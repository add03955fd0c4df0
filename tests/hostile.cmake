# The hostile-input corpus (tests/hostile/): every reader and every command's arguments fed
# malformed input must exit 2 with one line naming the file (and line), leave nothing
# behind, and stay within time and memory limits (scripts/hostile.py). About 5 s.
# Under ASan (PROVESIM_SANITIZE) there is no address-space limit, and any sanitizer report
# fails the case.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  set(_hostile_flags)
  if(PROVESIM_SANITIZE)
    set(_hostile_flags --sanitized)
  endif()
  add_test(NAME hostile
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/hostile.py $<TARGET_FILE:provesim>
                   ${PROJECT_SOURCE_DIR}/tests/hostile ${_hostile_flags})
  set_tests_properties(hostile PROPERTIES TIMEOUT 120)
endif()
