# Check suites of the prover half.
