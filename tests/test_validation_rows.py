"""The rows a validation session runs: validation.selected (session.sh's calibration gate)
must pick exactly the rows run.sh runs, whose filter is grep -E on the name (ROWS keeps a
match, SKIP leaves one out). The tenth session's first call stopped after its calibration
because the gate counted rows that SKIP had left out as not yet run."""
import glob
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
from validation import read_tsv, selected  # noqa: E402

tsvs = sorted(glob.glob(os.path.join(HERE, "..", "docs", "data", "validation", "*.tsv")))
filters = [{}, {"SKIP": "-(a|b)$|g2"}, {"ROWS": "^cal22"}, {"ROWS": "20", "SKIP": "-t[0-9]+$"}, {"SKIP": "p[2-4]"}]
failed = checks = 0
for tsv in tsvs:
    names = [r["name"] for r in read_tsv(tsv)]
    for env in filters:
        # run.sh's two lines, as it runs them, over the names
        sh = ('while read -r name; do '
              '[ -n "${ROWS:-}" ] && ! grep -Eq -e "$ROWS" <<<"$name" && continue; '
              '[ -n "${SKIP:-}" ] && grep -Eq -e "$SKIP" <<<"$name" && continue; echo "$name"; done')
        want = subprocess.run(["bash", "-c", sh], env=dict(env, PATH=os.environ["PATH"]), input="\n".join(names) + "\n",
                              capture_output=True, text=True, check=True).stdout.split()
        got = [n for n in names if selected(n, env)]
        checks += 1
        if got != want:
            failed += 1
            print("FAIL %s with %s: run.sh runs %s, selected gives %s" % (os.path.basename(tsv), env, want, got))
if checks < 20 or not any(selected(n, {"SKIP": "-(a|b)$|g2"}) != selected(n, {})
                          for t in tsvs for n in (r["name"] for r in read_tsv(t))):
    print("FAIL the run lists changed: no row that SKIP leaves out, or fewer than 20 checks")
    failed += 1
print("%d of %d checks failed" % (failed, checks))
sys.exit(1 if failed else 0)
