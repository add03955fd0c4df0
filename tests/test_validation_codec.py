"""The validation archives' spans codec (scripts/validation_store.py: spans_to_cols and
cols_to_spans): every file comes back byte for byte, GPU records go into columns, and
anything written otherwise stays a line as it is."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from validation_store import cols_to_spans, spans_to_cols  # noqa: E402

K = '{"rep":0,"gpu":%d,"kind":"%s","name":"%s","t0":%s,"t1":%s}'
cases = {
    "records and phases": "\n".join([
        '{"schema":"provesim.spans/1","t_unit":"s"}',
        '{"rep":0,"gpu":0,"worker":0,"call":0,"phase":"synth","resource":"cpu","threads":3,"t0":0.048207403,"t1":0.129021554}',
        K % (0, "kernel", "_Z11ntt_pass_r4P4fr_tjjjjPKS_i", "0.128048652", "0.128163435"),
        K % (0, "memcpy", "memcpy HtoD", "0.126936245", "0.129011842"),  # t0 before the last: a negative difference
        K % (1, "kernel", "_Z11ntt_pass_r4P4fr_tjjjjPKS_i", "12.000000001", "12.000000000"),  # t1 < t0
        K % (0, "kernel", "_Z11ntt_pass_r4P4fr_tjjjjPKS_i", "0.128164618", "0.128287017"),
    ]) + "\n",
    "written otherwise": "\n".join([
        K % (0, "kernel", "k", "01.000000000", "1.000000001"),  # a leading zero
        K % (0, "kernel", "k", "1.5", "1.6"),  # not to the nanosecond
        K % (0, "kernel", 'a\\"b', "1.000000000", "1.000000001"),  # an escaped name
        K % (0, "kernel", "tab\there", "1.000000000", "1.000000001"),
        "L-like line", "N\tlike line", "3\t4\t5", "",
    ]),
    "empty": "",
    "no final newline": K % (0, "kernel", "k", "0.000000001", "0.000000002"),
}
failed = 0
for name, text in cases.items():
    cols = spans_to_cols(text)
    back = cols_to_spans(cols)
    if back != text:
        print("FAIL %s: does not come back byte for byte" % name)
        failed += 1
columns = spans_to_cols(cases["records and phases"]).split("\n")
if sum(1 for l in columns if l[:1].isdigit()) != 4 or sum(1 for l in columns if l.startswith("N\t")) != 3:
    print("FAIL records and phases: expected 4 records in columns under 3 keys, got %r" % columns)
    failed += 1
if any(l[:1].isdigit() for l in spans_to_cols(cases["written otherwise"]).split("\n")):
    print("FAIL written otherwise: a record not written to the nanosecond went into columns")
    failed += 1
print("%d of %d checks failed" % (failed, len(cases) + 2))
sys.exit(1 if failed else 0)
