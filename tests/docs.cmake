# The docs' command output is real: every `$ provesim ...` block of these pages is run and
# compared with the page (scripts/regen_docs.py --check; regenerate with the same script).
add_test(NAME docs COMMAND python3 ${PROJECT_SOURCE_DIR}/scripts/regen_docs.py --check --bin $<TARGET_FILE:provesim>
         ${PROJECT_SOURCE_DIR}/docs/whatif.md)
set_tests_properties(docs PROPERTIES TIMEOUT 600)
