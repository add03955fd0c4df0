"""The validation sessions' store: how a session's runs are kept and read, for
scripts/validation.py and the scripts that read its sessions (validation_misses.py,
validation_probes.py, validation_whatif.py).

- runs_dir(DATA): DATA/runs, unpacked from DATA/runs.tar.xz on first use; pack_runs(DATA)
  the inverse (the spans in columns: spans_to_cols, cols_to_spans).
- import_calls(DATA, CALLS): a session's device calls (session.sh's call-TIME.tar) into
  DATA; machines(DATA) which machine each run ran on.
- read_spans(PATH): a run's phase spans and its copies' or kernels' intervals; runs(DATA)
  and row_passes(DATA, ROWS) a session's reports; run_order(DATA) the order they ran in.
- What the tables of validation_misses.py, validation_probes.py and validation_whatif.py
  read the same way: a phase's mean per partition in a run (spans_per_partition,
  phase_per_partition), a calibrated model's phase means and laws (model_means,
  model_time), table 1's ratio (run_phase_ratio), and the share of a span beside other
  intervals (covered, synth_beside).

A call archive that is not a session's (--import) ends the process with exit 2 and a
message naming the file (bad_input); a session's runs.tar.xz that does not unpack as one,
or spans that would not come back from columns, with exit 1. The messages start
"validation.py:", the command that writes the archives.
"""
import glob
import gzip
import io
import json
import math
import os
import re
import shutil
import sys
import tarfile
import tempfile

# the groth16 executor's phases by resource, in the order a call runs them
CPU, GPU = ("synth", "prep", "epilogue"), ("ntt_h", "msm", "b_g2")


# The archive's spans: each NAME.spans.jsonl as NAME.spans.cols, the same lines with the
# GPU records (kernels and copies: nine tenths of a run's bytes) in columns. Such a record,
# {"rep":R,"gpu":G,"kind":K,"name":N,"t0":A,"t1":B} with A and B written to the
# nanosecond, becomes "I<TAB>dt0<TAB>t1-t0": I the index of its (R, G, K, N), declared once
# by a line "N<TAB>R<TAB>G<TAB>K<TAB>N", and dt0 its t0 less the previous such record's, in
# nanoseconds. Every other line is kept as "L" + the line. xz then takes 2.3 times less
# than over the plain lines.
# Decoding gives the file back byte for byte; pack_runs checks that before it writes.
GPU_RECORD = re.compile(r'^\{"rep":(\d+),"gpu":(\d+),"kind":"(kernel|memcpy)","name":"([^"\\\t]*)",'
                        r'"t0":(\d+)\.(\d{9}),"t1":(\d+)\.(\d{9})\}$')


def gpu_record(k, t0, t1):
    ns = lambda t: "%d.%09d" % divmod(t, 10**9)
    return '{"rep":%s,"gpu":%s,"kind":"%s","name":"%s","t0":%s,"t1":%s}' % (*k, ns(t0), ns(t1))


def parse_gpu_record(line):
    """(key, t0, t1 in ns) of a GPU record that gpu_record writes back as it is, else None
    (another line, or a record written otherwise: leading zeros, say)."""
    m = GPU_RECORD.match(line)
    if not m:
        return None
    k, t0, t1 = m.group(1, 2, 3, 4), int(m[5]) * 10**9 + int(m[6]), int(m[7]) * 10**9 + int(m[8])
    return (k, t0, t1) if gpu_record(k, t0, t1) == line else None


def spans_to_cols(text):
    ids, prev, out = {}, 0, []
    for line in text.split("\n"):
        rec = parse_gpu_record(line)
        if not rec:
            out.append("L" + line)
            continue
        k, t0, t1 = rec
        if k not in ids:
            ids[k] = len(ids)
            out.append("N\t" + "\t".join(k))
        out.append("%d\t%d\t%d" % (ids[k], t0 - prev, t1 - t0))
        prev = t0
    return "\n".join(out)


def cols_to_spans(text):
    keys, prev, out = [], 0, []
    for line in text.split("\n"):
        if line.startswith("L"):
            out.append(line[1:])
        elif line.startswith("N\t"):
            keys.append(line.split("\t")[1:])
        else:
            i, d0, d = (int(x) for x in line.split("\t"))
            prev += d0
            out.append(gpu_record(keys[i], prev, prev + d))
    return "\n".join(out)


def runs_dir(data):
    """DATA/runs, unpacked from DATA/runs.tar.xz on first use (git ignores DATA/runs; the
    archive is what the repository keeps: xz over the spans in columns, spans_to_cols,
    takes a quarter to a third of gzip over each file). Spans come out as
    NAME.spans.jsonl.gz, the rest as packed. Archives of plain NAME.spans.jsonl members
    unpack too. Each caller unpacks into a folder of its own and renames it into place, so
    that two processes (two tests at once) never see or remove each other's half."""
    runs, arc = os.path.join(data, "runs"), os.path.join(data, "runs.tar.xz")
    if os.path.isdir(runs) or not os.path.exists(arc):
        return runs
    part = tempfile.mkdtemp(prefix="runs.part.", dir=data)
    with tarfile.open(arc, "r:xz") as tf:
        for m in tf:
            name = os.path.basename(m.name)
            if not m.isfile() or os.path.dirname(m.name) != "runs" or not name or name.startswith("."):
                sys.exit("validation.py: %s: unexpected member %r (expected runs/NAME files)" % (arc, m.name))
            src = tf.extractfile(m)
            if name.endswith(".spans.cols"):
                body = cols_to_spans(src.read().decode()).encode()
                with gzip.open(os.path.join(part, name[:-len(".cols")] + ".jsonl.gz"), "wb", compresslevel=1) as out:
                    out.write(body)
            elif name.endswith(".spans.jsonl"):
                with gzip.open(os.path.join(part, name + ".gz"), "wb", compresslevel=1) as out:
                    shutil.copyfileobj(src, out, 1 << 20)
            else:
                with open(os.path.join(part, name), "wb") as out:
                    shutil.copyfileobj(src, out, 1 << 20)
    try:
        os.rename(part, runs)
    except OSError:  # another process put its copy there first
        shutil.rmtree(part)
        if not os.path.isdir(runs):
            raise
    return runs


def pack_runs(data):
    """DATA/runs into DATA/runs.tar.xz (spans in columns, files in name order, no owners
    or times), the inverse of runs_dir."""
    runs, arc = os.path.join(data, "runs"), os.path.join(data, "runs.tar.xz")
    tmp = arc + ".part"
    with tarfile.open(tmp, "w:xz", preset=9) as tf:
        for name in sorted(os.listdir(runs)):
            path = os.path.join(runs, name)
            if name.endswith(".spans.jsonl.gz"):
                text = gzip.open(path, "rb").read().decode()
                body, name = spans_to_cols(text).encode(), name[:-len(".jsonl.gz")] + ".cols"
                if cols_to_spans(body.decode()) != text:
                    os.unlink(tmp)
                    sys.exit("validation.py: %s: the spans do not come back from columns byte for byte" % path)
            else:
                body = open(path, "rb").read()
            info = tarfile.TarInfo("runs/" + name)
            info.size, info.mode, info.mtime = len(body), 0o644, 0
            tf.addfile(info, io.BytesIO(body))
    os.rename(tmp, arc)
    return arc


def bad_input(msg):
    """Bad input: the message on stderr, exit 2."""
    print("validation.py: " + msg, file=sys.stderr)
    sys.exit(2)


MACHINES = "machines.tsv"
def machines(data):
    """The machines a session's runs (DATA/runs) ran on, from DATA/machines.tsv (--import):
    {machine: [run names]}; {} for a session imported before the file existed."""
    path, out = os.path.join(data, MACHINES), {}
    if os.path.exists(path):
        for line in open(path):
            if line.strip() and not line.startswith("#"):
                name, k = line.rstrip("\n").split("\t")
                if name.startswith("runs/"):
                    out.setdefault(int(k), []).append(name[len("runs/"):])
    return out


def import_calls(data, calls):
    """A session's device calls into DATA, what the repository keeps of it: each call's
    archive (session.sh's call-TIME.tar, in the order the calls ran) unpacked into DATA
    (runs/, rejected-K/runs/, log.txt), DATA/date.txt the first call's TIME (the models'
    provenance date), then DATA/runs.tar.xz, each rejected-K/runs.tar.xz and
    repeats/runs.tar.xz (pack_runs). Every archive is checked before anything is written.
    - A later call's file of the same name replaces an earlier one (a row cut short by a
      signal left its settings in one call and runs whole in the next; a gate ran a
      calibration row again), except a row whose report (NAME.json) an earlier call
      brought from another machine: a fresh machine not told DONE ran it again, its files
      go to repeats/runs/, and the session's runs/ keep the first, the run in the list's
      order.
    - A call's log is its machine's whole log so far. Each machine's last log is kept, in
      the order the calls ran: a log that does not go on from the one before started on a
      fresh machine. DATA/machines.tsv says which machine (1, 2, ...) each run ran on.
    Returns the archives written."""
    member = re.compile(r"^(runs|rejected-\d+/runs)/[^/]+$|^log\.txt$")
    if not calls:
        bad_input("--import: no call archives given")
    times = []
    for path in calls:
        m = re.match(r"call-(\d+)\.tar$", os.path.basename(path))
        if not m:
            bad_input("%s: expected a call archive named call-TIME.tar (session.sh)" % path)
        times.append(int(m.group(1)))
        try:
            with tarfile.open(path) as tf:
                infos = tf.getmembers()
        except (OSError, tarfile.TarError) as e:
            bad_input("%s: not a readable tar archive (%s)" % (path, e))
        for info in infos:
            if not info.isfile() or not member.match(info.name) or os.path.basename(info.name).startswith("."):
                bad_input("%s: unexpected member %r (expected runs/NAME, rejected-K/runs/NAME or log.txt); "
                          "nothing was written" % (path, info.name))
    reported, logs = {}, []  # the rows with a report from an earlier call: their machine; each machine's log
    machine = {}  # runs/NAME or repeats/runs/NAME: the machine its report came from
    for path in calls:
        with tarfile.open(path) as tf:
            infos = tf.getmembers()
            log = next((i for i in infos if i.name == "log.txt"), None)
            if log is not None:
                text = tf.extractfile(log).read().decode()
                if logs and text.startswith(logs[-1]):
                    logs[-1] = text
                else:
                    logs.append(text)
            here = max(1, len(logs))  # this call's machine
            row = lambda name: os.path.basename(name).split(".")[0]  # noqa: E731 (runs/ROW.*)
            reports = {row(i.name) for i in infos if i.name.startswith("runs/") and i.name.endswith(".json")}
            earlier = {n for n in reports if reported.get(n, here) != here}
            for info in infos:
                if info is log:
                    continue
                name = info.name
                if name.startswith("runs/") and row(name) in earlier:
                    name = "repeats/" + name
                if name.endswith(".json") and "/runs/" in "/" + name:
                    machine[name[:-len(".json")]] = here
                out = os.path.join(data, name)
                os.makedirs(os.path.dirname(out), exist_ok=True)
                with tf.extractfile(info) as src, open(out + ".part", "wb") as dst:
                    shutil.copyfileobj(src, dst, 1 << 20)
                os.replace(out + ".part", out)
            reported.update((n, here) for n in reports - earlier)
    if logs:
        with open(os.path.join(data, "log.txt"), "w") as fh:
            fh.write("== the session went on on a fresh machine (the last one went back)\n".join(logs))
    with open(os.path.join(data, MACHINES), "w") as fh:
        fh.write("# the machine each run ran on: 1, 2, ... in the order the session's calls met them "
                 "(validation.py --import; a call whose log does not go on from the last one's ran on a "
                 "fresh machine)\n")
        fh.writelines("%s\t%d\n" % m for m in sorted(machine.items()))
    with open(os.path.join(data, "date.txt"), "w") as fh:
        fh.write("%d\n" % min(times))
    return [pack_runs(d) for d in [data] + sorted(glob.glob(os.path.join(data, "rejected-*"))) +
            [os.path.join(data, "repeats")] if os.path.isdir(os.path.join(d, "runs"))]


def read_spans(path, skip=2, kind="memcpy"):
    """Phase spans of calls after each worker's first `skip`, and the intervals of the
    records of `kind` (the copies by default; "kernel": the kernels), from a spans file,
    gzipped (NAME.gz) or not."""
    spans, copies, first = [], [], {}
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as fh:
        for line in fh:
            r = json.loads(line)
            if "phase" in r:
                spans.append(r)
            elif r.get("kind") == kind:
                copies.append((r["t0"], r["t1"]))
    for r in spans:
        k = (r["rep"], r["gpu"], r["worker"])
        first.setdefault(k, set()).add(r["call"])
    keep = {k: set(sorted(v)[skip:]) for k, v in first.items()}
    return [r for r in spans if r["call"] in keep[(r["rep"], r["gpu"], r["worker"])]], copies


def runs(data):
    """A session's runs, (name, report) in name order; DATA/runs unpacked on first use."""
    out = []
    for f in sorted(os.listdir(runs_dir(data))):
        if f.endswith(".json"):
            d = json.load(open(os.path.join(data, "runs", f)))
            out.append((f[:-5], d))
    return out


def run_order(data):
    """A session's run names in the order they ran (DATA/log.txt's result lines, one per
    run, every call's in turn); [] without a log."""
    log = os.path.join(data, "log.txt")
    return re.findall(r"(?m)^(\S+)\s+util ", open(log).read()) if os.path.exists(log) else []


def row_passes(data, bases):
    """A session's runs of the held-out rows BASES by pass (NAME the first, NAME-pK the K-th):
    {row: [(K, run name, report), ...]} in pass order."""
    out = {}
    for n, d in runs(data):
        m = re.match(r"(.*)-p(\d+)$", n)
        base, k = (m.group(1), int(m.group(2))) if m else (n, 1)
        if base in bases:
            out.setdefault(base, []).append((k, n, d))
    return {b: sorted(l, key=lambda x: x[0]) for b, l in out.items()}


def spans_per_partition(spans, phase, key=None):
    """A phase's mean per partition over phase spans (read_spans'), of their length (key
    None) or of a member such as "cpu_s"; None when the phase, or the member on any of its
    spans, is missing."""
    sp = [r for r in spans if r["phase"] == phase]
    if not sp or (key and any(key not in r for r in sp)):
        return None
    v = [(r[key] if key else r["t1"] - r["t0"]) / len(r.get("partitions") or [0]) for r in sp]
    return sum(v) / len(v)


def phase_per_partition(path, phase, key=None):
    """spans_per_partition over a run's spans file (each worker's first calls left out, as
    read_spans does); None when the run is missing too."""
    return spans_per_partition(read_spans(path)[0], phase, key) if os.path.exists(path) else None


def model_means(path):
    """One-core mean, serial fraction, batch multipliers and run_mode (share, scale) of each
    phase of a calibrated model (the subset of YAML that calibrate writes)."""
    out, cur = {}, None
    for line in open(path):
        m = re.match(r"  - name: (\w+)", line)
        if m:
            cur = out.setdefault(m.group(1), {"serial": None, "scale": [1.0]})
            continue
        if cur is None:
            continue
        m = re.match(r"    scaling: \{serial: ([0-9.e-]+)\}", line)
        if m:
            cur["serial"] = float(m.group(1))
        m = re.match(r"    batch: \{scale: \[([^]]*)\](?:, serial: \[([^]]*)\])?\}", line)
        if m:
            cur["scale"] = [float(x) for x in m.group(1).split(",")]
            if m.group(2):  # the batch's own law (batch.serial)
                cur["bserial"] = [float(x) for x in m.group(2).split(",")]
        m = re.match(r"    run_mode: \{share: ([0-9.]+), scale: ([0-9.]+)\}", line)
        if m:  # a mode by run (calibrate --run-modes fit): "mean" is the distribution's
            cur["run_mode"] = (float(m.group(1)), float(m.group(2)))
        m = re.match(r"    time: \{dist: (\w+), (.*)\}", line)
        if m:
            p = dict((k.strip(), float(v)) for k, v in (x.split(":") for x in m.group(2).split(",")))
            d = m.group(1)
            cur["mean"] = {"lognormal": lambda: math.exp(p["mu"] + p["sigma"] ** 2 / 2),
                           "normal": lambda: p["mean"], "uniform": lambda: (p["min"] + p["max"]) / 2,
                           "gamma": lambda: p["mean"] if "mean" in p else p["shape"] * p["scale"], "exponential": lambda: p["mean"],
                           "const": lambda: p["value"]}[d]()
    return out


def model_time(ph, threads, batch):
    """The model's mean time of one call's phase, per partition (alone on its threads: the
    call of `batch` partitions at its own law when the model gives one, batch.serial)."""
    t, k = ph["mean"], min(batch, len(ph["scale"]))
    serial = ph["bserial"][k - 1] if "bserial" in ph else ph["serial"]
    if serial is not None and threads > 1:
        t *= serial + (1 - serial) / threads
    return t * ph["scale"][k - 1] / k


def run_model_time(d, ph):
    """model_time of a model's phase PH at the threads and batch a run's report D ran with."""
    s = d["scenario"]["system"]
    return model_time(ph, s["threads"].get("threads_per_worker") or 1, s["batch"])


def run_phase_ratio(d, name, ph):
    """Phase NAME's measured mean per partition in run report D over the model's (PH) at the
    run's threads and batch: table 1's ratio."""
    return d["metrics"]["phases_s"][name]["mean"] / d["scenario"]["system"]["batch"] / run_model_time(d, ph)


def covered(t0, t1, ivs):
    """Share of [t0, t1] covered by the union of the intervals ivs (sorted by start)."""
    tot, cur0, cur1 = 0.0, None, None
    for a, b in ivs:
        a, b = max(a, t0), min(b, t1)
        if b <= a:
            continue
        if cur1 is None or a > cur1:
            if cur1 is not None:
                tot += cur1 - cur0
            cur0, cur1 = a, b
        else:
            cur1 = max(cur1, b)
    if cur1 is not None:
        tot += cur1 - cur0
    return tot / (t1 - t0) if t1 > t0 else 0.0


def synth_beside(path):
    """The mean share of a run's synth spans during which another worker ran a CPU phase
    (covered), from its spans."""
    spans = read_spans(path)[0]
    cpu = sorted((r["t0"], r["t1"], r["worker"], r["gpu"]) for r in spans if r.get("resource") == "cpu")
    sh = [covered(r["t0"], r["t1"], [(a, b) for a, b, w, g in cpu if (w, g) != (r["worker"], r["gpu"])])
          for r in spans if r["phase"] == "synth"]
    return sum(sh) / len(sh) if sh else 0.0
