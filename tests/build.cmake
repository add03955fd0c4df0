# The build's own defaults: PROVESIM_CUDA=AUTO builds CUDA only where a GPU answers or
# CMAKE_CUDA_ARCHITECTURES is given (scripts/check_cuda_auto.sh; configures, compiles nothing).
add_test(NAME cuda_auto COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/check_cuda_auto.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(cuda_auto PROPERTIES TIMEOUT 300)
# What `cmake --install` installs: binary, models and configs, bash completion, manual pages.
add_test(NAME install COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/check_install.sh ${PROJECT_BINARY_DIR})
