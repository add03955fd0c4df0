# Suite of the Groth16 prover (prover/groth16.c, r1cs.c, pairing.c, g16_json.c) on the cpu
# backend; it also runs `provesim prove` and `provesim verify` (the binary, so the suite
# links the prover library only).
provesim_check_test(test_groth16 SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_groth16.c LIBS provesim_prover)
add_dependencies(test_groth16 provesim)
