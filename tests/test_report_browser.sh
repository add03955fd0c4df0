#!/usr/bin/env bash
# `provesim report` in a real browser: headless Chromium loads a page made from real
# outputs (simulate with spans, sweep, plan, validate, sensitivity), with no console error
# (a page with a broken script, rendered first, shows the check can see one); the DOM
# Chromium builds has every plot with its x and y axes, both axis labels and a reading;
# and the page renders to a PNG of the window's size that holds far more than a blank
# page of the same size does (their PNGs' sizes are compared, from one run). Exit 77
# (skipped) without Chromium.
#
#   bash tests/test_report_browser.sh BUILD/provesim SOURCE_DIR
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$(cd "$2" && pwd)
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ]; then
  echo "no chromium: skipped (bash scripts/deps.sh browser installs it)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
export HOME=$tmp # Chromium writes its profile and caches under HOME
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
cfg=$src/configs/seed-coarse-mutex.yaml
small=(--set workload.partitions=300 --set run.warmup=20)
provesim() { "$bin" "$@" >/dev/null 2>err.txt || { echo "provesim $* failed:"; cat err.txt; exit 1; }; }
provesim simulate "$cfg" "${small[@]}" --set run.replications=3 --json -o run.json --spans run.jsonl
provesim sweep "$cfg" "${small[@]}" --set run.replications=2 --vary system.workers_per_gpu=1..3 \
  --vary system.mutex=call,kernels --json sweep.json -q
provesim plan "$cfg" "${small[@]}" --set run.replications=2 --target proofs_per_hour=1500 --max-workers 2 \
  --batches 1 --csv plan.csv
provesim validate "$cfg" "${small[@]}" --measured run.json --windows 40 --json -o val.json
provesim sensitivity "$cfg" "${small[@]}" --set run.replications=2 --json -o sens.json
provesim report run.json run.jsonl sweep.json plan.csv val.json sens.json -o report.html
nplots=7 # breakdown, timeline, sweep (utilization, throughput), plan, validate, tornado

# chrome ARGS...: headless Chromium with its own profile; a generous limit for a slow start.
chrome() {
  timeout 400 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$tmp/profile" \
    --enable-logging=stderr --v=0 "$@"
}

# The console check sees a script error when there is one.
printf '<!DOCTYPE html><html><body><p>x</p><script>no_such_function();</script></body></html>\n' >broken.html
chrome --dump-dom "file://$tmp/broken.html" >broken.dom 2>broken.err
grep -q 'CONSOLE.*Uncaught' broken.err || fail "the broken page's script error is not in Chromium's log"

chrome --dump-dom "file://$tmp/report.html" >dom.html 2>dom.err || fail "chromium --dump-dom exited $?"
if grep -E 'CONSOLE|Uncaught' dom.err; then fail "console messages while loading the report"; fi
python3 - "$nplots" <<'PY' || fail "the DOM lacks plots, axes or readings"
import sys
from html.parser import HTMLParser

class Figures(HTMLParser):
    """Per <figure>: the SVGs, axis groups, axis labels and reading, with their texts."""
    def __init__(self):
        super().__init__()
        self.figs, self.cur, self.text_of = [], None, None
    def handle_starttag(self, tag, attrs):
        cls = (dict(attrs).get("class") or "").split()
        if tag == "figure":
            self.cur = {"svg": 0, "x-axis": 0, "y-axis": 0, "x-label": "", "y-label": "", "reading": ""}
            self.figs.append(self.cur)
        if self.cur is None:
            return
        if tag == "svg":
            self.cur["svg"] += 1
        if tag == "g":
            for c in ("x-axis", "y-axis"):
                if c in cls:
                    self.cur[c] += 1
        for c in ("x-label", "y-label", "reading"):
            if c in cls:
                self.text_of = c
    def handle_data(self, data):
        if self.cur is not None and self.text_of:
            self.cur[self.text_of] += data
    def handle_endtag(self, tag):
        if tag in ("text", "figcaption"):
            self.text_of = None
        if tag == "figure":
            self.cur = None

p = Figures()
p.feed(open("dom.html", encoding="utf-8").read())
want = int(sys.argv[1])
ok = len(p.figs) == want
if not ok:
    print(f"{len(p.figs)} figures in the DOM, expected {want}")
for i, f in enumerate(p.figs):
    bad = [k for k in ("svg", "x-axis", "y-axis") if f[k] != 1] + \
          [k for k in ("x-label", "y-label", "reading") if not f[k].strip()]
    if bad:
        ok = False
        print(f"figure {i}: missing or repeated {bad}: {f}")
sys.exit(0 if ok else 1)
PY

# The PNG: the window's size, and much more drawn than on a blank page of that size.
printf '<!DOCTYPE html><html><body></body></html>\n' >blank.html
chrome --window-size=1000,3000 --screenshot="$tmp/blank.png" "file://$tmp/blank.html" >/dev/null 2>&1
chrome --window-size=1000,3000 --screenshot="$tmp/report.png" "file://$tmp/report.html" >/dev/null 2>&1
for f in blank.png report.png; do [ -s "$f" ] || { fail "no $f"; echo "$fails failure(s)"; exit 1; }; done
python3 - <<'PY' || fail "report.png is not a 1000x3000 PNG well beyond a blank page"
import os, struct
def ihdr(path):
    b = open(path, "rb").read(32)
    assert b[:8] == b"\x89PNG\r\n\x1a\n" and b[12:16] == b"IHDR", f"{path}: not a PNG"
    return struct.unpack(">II", b[16:24])
for f in ("blank.png", "report.png"):
    w, h = ihdr(f)
    assert (w, h) == (1000, 3000), f"{f}: {w}x{h}"
r, b = os.path.getsize("report.png"), os.path.getsize("blank.png")
print(f"report.png {r} bytes, blank.png {b} bytes: {r / b:.1f} times")
assert r >= 5 * b, "the report's PNG is hardly larger than a blank page's"
PY
[ "$fails" -eq 0 ] && echo "all checks passed" || echo "$fails failure(s)"
[ "$fails" -eq 0 ]
