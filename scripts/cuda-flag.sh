# Sourced by the build scripts: PROVESIM_CUDA=ON|OFF in the environment wins; otherwise
# AUTO, and CMake builds the CUDA backend only where nvcc is found and a GPU answers
# `nvidia-smi -L` (or CMAKE_CUDA_ARCHITECTURES is given): compiling the kernels takes
# minutes, and a machine without a GPU (CI) can only run the cpu backend.
PROVESIM_CUDA=${PROVESIM_CUDA:-AUTO}
export PROVESIM_CUDA
