# The layering of docs/design.md ("Architecture"): no file includes a header of a layer
# above its own (scripts/check_layers.py).
add_test(NAME layers COMMAND python3 ${PROJECT_SOURCE_DIR}/scripts/check_layers.py ${PROJECT_SOURCE_DIR})
