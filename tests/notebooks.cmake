# The notebooks (notebooks/*.ipynb) executed on a small sweep, and the tests of their
# loading module; installs Jupyter from PyPI on first use (see notebooks/run_notebooks.sh).
add_test(NAME notebooks COMMAND bash ${PROJECT_SOURCE_DIR}/notebooks/run_notebooks.sh $<TARGET_FILE:provesim>)
set_tests_properties(notebooks PROPERTIES TIMEOUT 600)
