#!/usr/bin/env bash
# End-to-end test of `provesim validate` (cli/cli_validate.c): measurements of the model
# itself (the simulator's spans and report with another seed) fall inside every 95%
# prediction interval; a measurement of another model falls outside; the
# provesim.validate/1 document parses, has one row per metric and intervals around the
# prediction, narrowed by sqrt(n) for a mean of n windows; bad --windows exits 2; and the
# document does not depend on --threads.
#
#   bash tests/test_validate.sh BUILD/provesim SOURCE_DIR
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$(cd "$2" && pwd)
seed=$src/configs/measure-seed.yaml    # 30 partitions, mutex around the call
coarse=$src/configs/seed-coarse-mutex.yaml
short=(--set workload.partitions=200 --set run.warmup=20)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# expect RC CMD...: runs provesim CMD, output in out.txt, errors in err.txt.
expect() {
  local want=$1
  shift
  "$bin" "$@" >out.txt 2>err.txt
  local rc=$?
  [ "$rc" -eq "$want" ] || { fail "provesim $* exited $rc, expected $want"; cat out.txt err.txt; }
}
has() { grep -qF -- "$2" "$1" || { fail "$1 lacks \"$2\""; cat "$1"; }; }
lacks() { ! grep -qF -- "$2" "$1" || { fail "$1 has \"$2\""; cat "$1"; }; }

# The measurements: the simulator's spans and reports with seeds other than validate's.
expect 0 simulate "$seed" --set run.seed=7 --spans same.jsonl -o sim1.txt
expect 0 simulate "$seed" --set run.seed=7 --set run.replications=3 --json -o same3.json
expect 0 simulate "$coarse" "${short[@]}" --set run.seed=3 --set run.replications=2 --spans coarse2.jsonl -o sim2.txt
# Another model: the msm phase (GPU) takes twice as long.
expect 0 simulate "$seed" --set run.seed=7 --set phases.msm.time.mean=2.26 --spans other.jsonl -o sim3.txt

# (h) A measurement on a shared host (measure's spans header host_steal): validate says so
# in its table and JSON, the largest over the files; a quiet one (under 2%) gets no note.
sed '1s/}$/,"host_steal":0.080000}/' same.jsonl >stolen.jsonl
sed '1s/}$/,"host_steal":0.010000}/' same.jsonl >quiet.jsonl
expect 0 validate "$seed" --measured stolen.jsonl
has out.txt "note: the measured run lost up to 8.0% of its cores' busy time to other guests of the host"
expect 0 validate "$seed" --measured quiet.jsonl --measured stolen.jsonl --json
python3 -c "import json,sys; d=json.load(open('out.txt')); sys.exit(0 if d['measured']['host_steal'] == 0.08 else 1)" ||
  fail "validate --json: measured.host_steal is not 0.08: $(head -c 300 out.txt)"
expect 0 validate "$seed" --measured quiet.jsonl
lacks out.txt "hypervisor steal"
expect 0 validate "$seed" --measured same.jsonl --json
python3 -c "import json,sys; d=json.load(open('out.txt')); sys.exit(0 if d['measured'].get('host_steal', 1) is None else 1)" ||
  fail "validate --json: measured.host_steal is not null without it"

# (a) The model's own measurements: every verdict inside, exit 0 under --strict.
expect 0 validate "$seed" --measured same.jsonl --strict
has out.txt "4 of 4 metrics inside their 95% prediction intervals"
has out.txt "strict: agree"
lacks out.txt "outside"
expect 0 validate "$seed" --measured same3.json --strict
has out.txt "6 of 6 metrics inside"
has out.txt "means of 3 measured windows"
expect 0 validate "$coarse" "${short[@]}" --measured coarse2.jsonl --strict --max-error-pp 1
has out.txt "4 of 4 metrics inside"
has out.txt "agree: the largest utilization error"

# (b) Another model: verdicts outside, exit 1 under --strict (and under a tight
# --max-error-pp), exit 0 without either.
expect 1 validate "$seed" --measured other.jsonl --strict
has out.txt "outside"
has out.txt "strict: DISAGREE"
expect 0 validate "$seed" --measured other.jsonl
has out.txt "0 of 4 metrics inside"
expect 1 validate "$seed" --measured other.jsonl --max-error-pp 5
has out.txt "DISAGREE: the largest utilization error"
expect 1 validate "$seed" --measured other.jsonl --strict --json
has err.txt "strict: DISAGREE"

# (c) The document: one row per metric, the interval around the prediction, verdicts that
# match the interval; a mean of 3 windows gets an interval sqrt(3) narrower.
expect 0 validate "$seed" --measured same.jsonl --json -o one.json
[ -s out.txt ] && fail "-o one.json also wrote to standard output"
expect 0 validate "$seed" --measured same3.json --json
cp out.txt three.json
expect 1 validate "$seed" --measured other.jsonl --json -o other.json --strict
python3 - one.json three.json other.json <<'EOF' || fails=$((fails + 1))
import json, math, sys
one, three, other = (json.load(open(p)) for p in sys.argv[1:])
def check(d, kind, n, names):
    assert d["schema"] == "provesim.validate/1", d["schema"]
    assert d["measured"]["kind"] == kind and d["measured"]["replications"] == n, d["measured"]
    assert d["windows"] == 200, d["windows"]
    got = [r["metric"] for r in d["metrics"]]
    assert got == names, got
    for r in d["metrics"]:
        assert r["pi_low"] <= r["predicted"] <= r["pi_high"], r
        assert r["pi_low"] < r["pi_high"], r
        inside = r["pi_low"] <= r["measured"] <= r["pi_high"]
        assert r["verdict"] == ("inside" if inside else "outside"), r
        assert r["error_unit"] == ("pp" if r["metric"] == "gpu_util" else "%"), r
        if r["metric"] == "gpu_util":
            assert r["gpu"] == 0 and 0 < r["measured"] < 1, r
            assert math.isclose(r["error"], 100 * (r["predicted"] - r["measured"]), rel_tol=1e-9), r
        else:
            assert math.isclose(r["error"], 100 * (r["predicted"] - r["measured"]) / r["measured"], rel_tol=1e-9), r
    assert d["inside"] + d["outside"] == len(names), d
base = ["gpu_util", "throughput", "call_mean", "mutex_wait_mean"]
check(one, "spans", 1, base)
check(three, "report", 3, base + ["latency_p50", "latency_p99"])
check(other, "spans", 1, base)
assert one["outside"] == 0 and three["outside"] == 0, (one["outside"], three["outside"])
assert other["outside"] > 0, other["outside"]
# The same simulation, so the same predicted mean; the interval of a mean of 3 windows is
# the single window's brought toward the mean by sqrt(3).
for a, b in zip(one["metrics"], three["metrics"]):
    assert a["predicted"] == b["predicted"], (a, b)
    for k in ("pi_low", "pi_high"):
        want = a["predicted"] + (a[k] - a["predicted"]) / math.sqrt(3)
        assert math.isclose(b[k], want, rel_tol=1e-12, abs_tol=1e-15), (k, a, b)
print("validate documents: ok")
EOF

# The interval is the windows' own 2.5th and 97.5th percentiles: the simulator's 40
# replications with validate's seed, each measured alone from its spans, give the same
# mean and percentiles (linear between order statistics) as `validate --windows 40`.
expect 0 simulate "$seed" --set run.replications=40 --spans win.jsonl -o sim4.txt
python3 - win.jsonl <<'EOF' || fails=$((fails + 1))
import re, sys
lines = open(sys.argv[1]).read().splitlines()
for r in range(40):
    with open(f"w{r}.jsonl", "w") as f:
        f.write(lines[0] + "\n")
        for l in lines[1:]:
            if l.startswith('{"rep":%d,' % r):
                f.write(re.sub(r'^\{"rep":\d+,', '{"rep":0,', l) + "\n")
EOF
for r in $(seq 0 39); do
  "$bin" validate "$seed" --measured "w$r.jsonl" --json --windows 10 >"m$r.json" || fail "validate w$r.jsonl"
done
expect 0 validate "$seed" --measured same.jsonl --json --windows 40
python3 - out.txt <<'EOF' || fails=$((fails + 1))
import json, math, sys
d = json.load(open(sys.argv[1]))
def q(x, p):  # linear between order statistics
    h = p * (len(x) - 1)
    i = int(h)
    return x[-1] if i >= len(x) - 1 else x[i] + (h - i) * (x[i + 1] - x[i])
for k, row in enumerate(d["metrics"]):
    x = sorted(json.load(open(f"m{r}.json"))["metrics"][k]["measured"] for r in range(40))
    want = (sum(x) / len(x), q(x, 0.025), q(x, 0.975))
    got = (row["predicted"], row["pi_low"], row["pi_high"])
    for w, g in zip(want, got):
        assert math.isclose(w, g, rel_tol=1e-6), (row["metric"], want, got)
print("percentiles of the windows: ok")
EOF

# (d) Bad --windows: exit 2, a message naming the option, nothing on standard output.
for w in 0 5 -3 abc 2.5 ""; do
  expect 2 validate "$seed" --measured same.jsonl --windows="$w"
  has err.txt "--windows: expected an integer from 10 to 1000000"
  [ -s out.txt ] && fail "--windows=$w wrote to standard output"
done
expect 2 validate "$seed" --measured same.jsonl --windows
has err.txt "--windows: expected a value"

# (e) Determinism: the same inputs give the same bytes whatever --threads is.
expect 0 validate "$seed" --measured same3.json --json --threads 1 --windows 64
cp out.txt t1.json
expect 0 validate "$seed" --measured same3.json --json --threads 2 --windows 64
cmp -s t1.json out.txt || fail "--threads 1 and --threads 2 give different documents"
grep -qF '"windows":	64' t1.json || fail "--windows 64 not in the document"

# (f) Several --measured files: their mean, weighted by replications, against the interval
# of a mean of all their windows. The spans of seed 7 (1 replication) and its report of 3
# give a mean of 4 windows; the same file twice gives that file's values and 2 windows.
expect 0 validate "$seed" --measured same.jsonl --measured same3.json --json -o mix.json
expect 0 validate "$seed" --measured same.jsonl --measured same.jsonl --json -o twice.json
expect 0 validate "$seed" --measured same.jsonl --measured same3.json
has out.txt "means of 4 measured windows"
has out.txt "   and    same3.json"
python3 - one.json three.json mix.json twice.json <<'EOF' || fails=$((fails + 1))
import json, math, sys
one, three, mix, twice = (json.load(open(p)) for p in sys.argv[1:])
assert mix["measured"]["replications"] == 4 and mix["measured"]["paths"] == ["same.jsonl", "same3.json"], mix["measured"]
assert mix["measured"]["kind"] == "reports and spans", mix["measured"]
assert twice["measured"]["replications"] == 2 and twice["measured"]["kind"] == "spans", twice["measured"]
# latency needs every file to be a report
assert [r["metric"] for r in mix["metrics"]] == ["gpu_util", "throughput", "call_mean", "mutex_wait_mean"], mix["metrics"]
by = lambda d: {r["metric"]: r for r in d["metrics"]}
o, t, m, w = by(one), by(three), by(mix), by(twice)
for k in m:
    want = (o[k]["measured"] + 3 * t[k]["measured"]) / 4
    assert math.isclose(m[k]["measured"], want, rel_tol=1e-12), (k, m[k], want)
    assert math.isclose(w[k]["measured"], o[k]["measured"], rel_tol=1e-12), (k, w[k], o[k])
    for key in ("pi_low", "pi_high"):
        want = o[k]["predicted"] + (o[k][key] - o[k]["predicted"]) / 2
        assert math.isclose(m[k][key], want, rel_tol=1e-12, abs_tol=1e-15), (k, key, m[k])
print("validate, several measurements: ok")
EOF
expect 0 simulate "$seed" --set run.seed=7 --set system.gpus=2 --json -o two_gpus.json
expect 2 validate "$seed" --measured same.jsonl --measured two_gpus.json
has err.txt "two_gpus.json: 2 GPUs measured, but same.jsonl has 1: expected measurements of the same scenario"
[ -s out.txt ] && fail "a refused second measurement still wrote output"

# (g) One worker per GPU: nobody waits for the mutex, so there is no mutex-wait row (the
# model's 0 against a run's microseconds of locking would read as a -100% miss).
expect 0 simulate "$seed" --set run.seed=7 --set system.workers_per_gpu=1 --json -o one_w.json
expect 0 validate "$seed" --set system.workers_per_gpu=1 --measured one_w.json --json -o one_w_v.json
python3 - one_w_v.json <<'EOF' || fails=$((fails + 1))
import json, sys
d = json.load(open(sys.argv[1]))
got = [r["metric"] for r in d["metrics"]]
assert got == ["gpu_util", "throughput", "call_mean", "latency_p50", "latency_p99"], got
print("validate, one worker: ok")
EOF

# (i) Arrivals replayed: measure's report of a Poisson run (the synthetic executor on the
# CPU, seed 5) against windows that get the arrivals it had, drawn again from the report's
# seed (validate's scenario says seed 1). With them the window's throughput follows the
# measured arrivals (a 30% load leaves room for a loaded machine's slower cpu phases);
# each window drawing its own (--arrivals process) spreads it several times wider.
# measure's spans carry the seed in their header and replay too; the simulator's spans
# (other arrivals, no seed) get the process, and say why.
cs=$src/tests/data/measure/const-seed.yaml
pois=(--set "workload.arrivals={process: poisson, proofs_per_hour: 14400}" --set workload.partitions=24
      --set run.warmup=2 --set run.cooldown=2)
expect 0 measure "$cs" --backend cpu "${pois[@]}" --set run.seed=5 --json -o pois.json --spans pois.jsonl
expect 0 validate "$cs" "${pois[@]}" --measured pois.json --json -o replay.json
expect 0 validate "$cs" "${pois[@]}" --measured pois.json --json --arrivals process -o process.json
expect 0 validate "$cs" "${pois[@]}" --measured pois.jsonl --json -o spans.json
expect 0 simulate "$cs" "${pois[@]}" --spans simpois.jsonl -o simpois.txt
expect 0 validate "$cs" "${pois[@]}" --measured simpois.jsonl --json -o simspans.json
head -1 pois.jsonl | grep -qF '"seed":5' || fail "measure's spans header lacks \"seed\":5: $(head -c 300 pois.jsonl)"
expect 0 validate "$cs" "${pois[@]}" --measured pois.json
has out.txt "arrivals  replayed: every window gets the measured run's 24 proof arrivals (seed 5)"
python3 - replay.json process.json spans.json simspans.json <<'EOF2' || fails=$((fails + 1))
import json, sys
rp, pr, sp, ss = (json.load(open(p)) for p in sys.argv[1:])
assert rp["arrivals"] == {"mode": "replayed", "seed": 5, "proofs": 24}, rp["arrivals"]
assert pr["arrivals"] == {"mode": "process"}, pr["arrivals"]
assert sp["arrivals"] == {"mode": "replayed", "seed": 5, "proofs": 24}, sp["arrivals"]
assert ss["arrivals"]["mode"] == "process" and "cannot be drawn again" in ss["arrivals"]["why"], ss["arrivals"]
t = lambda d: next(r for r in d["metrics"] if r["metric"] == "throughput")
a, b = t(rp), t(pr)
assert abs(a["error"]) < 5, ("replayed arrivals: throughput off by %.1f%%" % a["error"], a)
wa, wb = a["pi_high"] - a["pi_low"], b["pi_high"] - b["pi_low"]
assert wb > 3 * wa, ("the process's interval is not wider than the replay's", wa, wb)
print("validate, arrivals replayed: ok (throughput %+.1f%%, intervals %.3f and %.3f)" % (a["error"], wa, wb))
EOF2
expect 2 validate "$cs" "${pois[@]}" --measured pois.json --arrivals sometimes
has err.txt "--arrivals: expected replay or process, got \"sometimes\""

if [ "$fails" -ne 0 ]; then
  echo "test_validate: $fails failure(s)"
  exit 1
fi
echo "test_validate: ok"
