/* `provesim prove` and `provesim verify`: make a Groth16 proof of a circuit instance and
 * write it with its verifying key and public inputs as JSON (docs/prover.md;
 * prover/g16_json.h), and check such a directory. */
#ifndef PROVESIM_CLI_PROVE_H
#define PROVESIM_CLI_PROVE_H

#ifdef __cplusplus
extern "C" {
#endif

int prover_cmd_prove(int argc, char **argv);
int prover_cmd_verify(int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
