# Check suites of the simulator half.
