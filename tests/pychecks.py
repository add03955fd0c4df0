"""The tally of a Python test's checks (the tests/test_validation_*.py that count them):
check(ok, what) counts one and prints FAIL what when ok is false; done() prints how many
failed and returns the exit status."""
failed = checks = 0


def check(ok, what):
    global failed, checks
    checks += 1
    if not ok:
        failed += 1
        print("FAIL", what)


def done():
    print("%d of %d checks failed" % (failed, checks))
    return 1 if failed else 0
