# The docs' command output is real: every `$ provesim ...` block of these pages is run and
# compared with the page (scripts/regen_docs.py --check; regenerate with the same script).
add_test(NAME docs COMMAND python3 ${PROJECT_SOURCE_DIR}/scripts/regen_docs.py --check --bin $<TARGET_FILE:provesim>
         ${PROJECT_SOURCE_DIR}/docs/whatif.md ${PROJECT_SOURCE_DIR}/docs/measure.md ${PROJECT_SOURCE_DIR}/docs/prover.md ${PROJECT_SOURCE_DIR}/docs/diagnose.md ${PROJECT_SOURCE_DIR}/README.md)
set_tests_properties(docs PROPERTIES TIMEOUT 600)
# docs/measure.md promises `h200-run.sh ... cpu quick` anywhere in about 30 s: run it, and
# it must exit 0 (any failed or cut-short run makes it exit 1).
add_test(NAME measure_quick COMMAND bash -c "d=$(mktemp -d) && bash docs/data/measure/h200-run.sh $<TARGET_FILE:provesim> $d cpu quick > $d/log.txt 2>&1; rc=$?; tail -12 $d/log.txt; rm -rf $d; exit $rc"
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(measure_quick PROPERTIES TIMEOUT 300)
# docs/validation.md, docs/data/validation.json and the calibrated H200 models are what
# scripts/validation.py makes from the committed H200 runs (no GPU needed; 256 s in CI with
# nine sessions and a second calibration, unpacked from their archives, side by side on
# CI's two cores). The suite's longest test: its COST has ctest start it first, so that the
# others run beside it instead of after it.
add_test(NAME validation COMMAND python3 ${PROJECT_SOURCE_DIR}/scripts/validation.py --check --bin $<TARGET_FILE:provesim>)
set_tests_properties(validation PROPERTIES TIMEOUT 600 COST 10000)
# The validation archives' spans codec gives every file back byte for byte.
add_test(NAME validation_codec COMMAND python3 ${PROJECT_SOURCE_DIR}/tests/test_validation_codec.py)
add_test(NAME validation_rows COMMAND python3 ${PROJECT_SOURCE_DIR}/tests/test_validation_rows.py)
# A session's call stopped by a signal keeps the runs it finished, and the next call runs
# the rest (docs/data/validation/session.sh, on the CPU backend).
add_test(NAME validation_session COMMAND bash ${PROJECT_SOURCE_DIR}/tests/test_session.sh $<TARGET_FILE:provesim>)
# validation.py --data on a session it does not list yet (the twelfth's runs): the newest
# protocol end to end, and the committed verdict back.
add_test(NAME validation_data COMMAND python3 ${PROJECT_SOURCE_DIR}/tests/test_validation_data.py $<TARGET_FILE:provesim>)
set_tests_properties(validation_data PROPERTIES TIMEOUT 300)
# The thirteenth session's figures that docs/validation-sessions.md quotes from
# scripts/validation_misses.py (probe 10's reading, the passes resampled) come back.
add_test(NAME validation_misses COMMAND python3 ${PROJECT_SOURCE_DIR}/tests/test_validation_misses.py $<TARGET_FILE:provesim>)
set_tests_properties(validation_misses PROPERTIES TIMEOUT 300)
# The fourteenth session's pooled verdict (validation.pooled) on rows made by hand.
add_test(NAME validation_pooled COMMAND python3 ${PROJECT_SOURCE_DIR}/tests/test_validation_pooled.py)
# validation.calibrate's fallback to every run when --max-steal leaves a law without its runs.
add_test(NAME validation_fallback COMMAND python3 ${PROJECT_SOURCE_DIR}/tests/test_validation_fallback.py)
set_tests_properties(validation_session PROPERTIES TIMEOUT 180)
# Every option a command parses is in its --help.
add_test(NAME cli_help COMMAND python3 ${PROJECT_SOURCE_DIR}/tests/test_cli_help.py $<TARGET_FILE:provesim>)
# scripts/sass_counts.py (performance.md's instruction counts) on a stand-in nvdisasm.
add_test(NAME sass_counts COMMAND python3 ${PROJECT_SOURCE_DIR}/tests/test_sass_counts.py)
# docs/data/kernels/stall/summary.py (performance.md's stall table) on a source page made by hand.
add_test(NAME stall_summary COMMAND python3 ${PROJECT_SOURCE_DIR}/tests/test_stall_summary.py)
