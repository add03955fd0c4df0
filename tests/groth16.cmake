# Suite of the Groth16 prover (prover/groth16.c, r1cs.c, pairing.c, cli_prove.c) on the cpu
# backend; it also runs `provesim prove` and `provesim verify`.
provesim_check_test(test_groth16 SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_groth16.c LIBS provesim_cli)
add_dependencies(test_groth16 provesim)
