# core/svg.c: nice ticks, the pixel mapping, escaping. `provesim report` (cli/cli_report*.c):
# the page's structure and numbers from real outputs of simulate, sweep, plan, validate and
# sensitivity (about 2 s); and the page in a real browser, headless Chromium, which renders
# it to a PNG (skipped, exit 77, where Chromium is not installed: `bash scripts/deps.sh
# browser`).
provesim_check_test(test_svg SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_svg.c LIBS provesim_core)
provesim_check_test(test_report SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_report.c LIBS provesim_common)
add_dependencies(test_report provesim)
add_test(NAME test_report_browser
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_report_browser.sh $<TARGET_FILE:provesim> ${PROJECT_SOURCE_DIR})
# Chromium on two busy cores can take a minute to start: a generous limit, and no timing
# is asserted.
set_tests_properties(test_report_browser PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)
