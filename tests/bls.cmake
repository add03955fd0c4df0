# Suites of the BLS12-381 reference backend (prover/fp, fr, fp2, curve, enc, ntt, msm),
# checked against the py_ecc vectors in tests/vectors.
provesim_check_test(test_bls SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_bls.c LIBS provesim_prover)
provesim_check_test(test_ntt SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_ntt.c LIBS provesim_prover)
provesim_check_test(test_msm SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_msm.c LIBS provesim_prover)
# The CUDA backend's Montgomery multiplication sequences, run on the CPU: the integer one
# (prover/cuda/psf_mont.h) with an emulated carry flag, the FP64 one (psf_fp64.h) on the
# CPU's doubles with its FMAs rounding toward zero (-frounding-math keeps the compiler
# from assuming the default mode).
provesim_check_test(test_montmul SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_montmul.c LIBS provesim_prover m)
set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/test_montmul.c PROPERTIES COMPILE_OPTIONS -frounding-math)
# The radix-4 steps of the CUDA NTT (prover/cuda/ntt_r4.h), run on the CPU, with each
# product mode of PSC_NTT_MUL (the FP64 one on the CPU's doubles, as in test_montmul).
provesim_check_test(test_ntt_r4 SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_ntt_r4.c LIBS provesim_prover m)
set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/test_ntt_r4.c PROPERTIES COMPILE_OPTIONS -frounding-math)
# The CUDA MSM's sort in two steps (prover/cuda/msm_group.h), run on the CPU.
provesim_check_test(test_msm_group SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_msm_group.c LIBS provesim_prover)
# The CUDA MSM's staged segment sums (prover/cuda/msm_seg.h), run on the CPU.
provesim_check_test(test_msm_seg SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_msm_seg.c LIBS provesim_prover)
