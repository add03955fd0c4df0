# Sourced by the build scripts: decides whether to build the prover's CUDA backend.
# PROVESIM_CUDA=ON|OFF in the environment wins; otherwise ON only when a GPU answers
# (nvidia-smi -L), since compiling the CUDA kernels takes minutes and a machine without a
# GPU (CI) cannot run them: the CPU backend is what it tests.
if [ -z "${PROVESIM_CUDA:-}" ]; then
  if command -v nvcc >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    PROVESIM_CUDA=ON
  else
    PROVESIM_CUDA=OFF
  fi
fi
export PROVESIM_CUDA
