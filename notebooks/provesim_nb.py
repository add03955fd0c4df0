"""Loading code shared by provesim's notebooks.

The notebooks are driven by the CLI: `provesim sweep --csv/--json` and `provesim plan --csv`.
This module runs those commands and reads their output into plain Python rows (lists of
dicts with numbers converted) or pandas DataFrames when pandas is installed. It has no
dependency beyond the standard library; pandas is imported only by the *_frame helpers.
"""
import csv
import json
import os
import shutil
import subprocess
import tempfile

__all__ = ["provesim_bin", "run_sweep", "read_sweep_csv", "read_sweep_json", "to_frame",
           "series", "frontier"]


def provesim_bin():
    """The provesim binary: $PROVESIM_BIN, else `provesim` on PATH, else ../build/provesim."""
    b = os.environ.get("PROVESIM_BIN")
    if b:
        return b
    on_path = shutil.which("provesim")
    if on_path:
        return on_path
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(here, "..", "build", "provesim")


def _number(text):
    """'12' -> 12, '1.5' -> 1.5, '' -> None, anything else unchanged."""
    if text is None or text == "":
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def read_sweep_csv(path):
    """Rows of a `provesim sweep --csv` (or `simulate`/`measure --csv`) file, numbers
    converted, empty cells as None; each override of the `overrides` column
    ("KEY=VALUE; KEY=VALUE") also under its own key, e.g. row["system.workers_per_gpu"]."""
    rows = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            r = {k: _number(v) for k, v in row.items()}
            for item in (row.get("overrides") or "").split("; "):
                if "=" in item:
                    k, v = item.split("=", 1)
                    r.setdefault(k, _number(v))
            rows.append(r)
    return rows


def read_sweep_json(path):
    """Rows of a `provesim sweep --json` document, flattened: the varied values under their
    keys, then metrics (`gpu_util_mean`, `throughput_pps`, `latency_s.p99`, ...) and
    confidence half-widths under `ci95.NAME`."""
    with open(path) as f:
        doc = json.load(f)
    if doc.get("schema") != "provesim.sweep/1":
        raise ValueError("%s: expected schema provesim.sweep/1, got %r" % (path, doc.get("schema")))
    rows = []
    for p in doc["points"]:
        row = {"point": p["point"]}
        row.update(p["values"])
        row.update({"system." + k: v for k, v in p["system"].items()})
        _flatten(p["metrics"], "", row)
        _flatten(p["ci95"], "ci95.", row)
        rows.append(row)
    return rows


def _flatten(obj, prefix, out):
    for k, v in obj.items():
        if isinstance(v, dict):
            _flatten(v, prefix + k + ".", out)
        elif isinstance(v, list):
            out[prefix + k] = v
        else:
            out[prefix + k] = v


def run_sweep(scenario, vary, sets=(), jobs=None, fmt="csv", binary=None):
    """Runs `provesim sweep SCENARIO --vary K=V ...` and returns its rows.

    vary: a dict {key: values} (values a string like '1..8' or a list, joined with ';'),
    in the order the grid should vary (first slowest). sets: fixed overrides 'k=v'."""
    b = binary or provesim_bin()
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "sweep." + fmt)
        cmd = [b, "sweep", scenario, "-q", "--" + fmt, out]
        for k, v in vary.items():
            if not isinstance(v, str):
                v = ";".join(str(x) for x in v)
            cmd += ["--vary", "%s=%s" % (k, v)]
        for s in sets:
            cmd += ["--set", s]
        if jobs:
            cmd += ["--jobs", str(jobs)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("provesim sweep failed (exit %d): %s" % (r.returncode, r.stderr.strip()))
        return read_sweep_csv(out) if fmt == "csv" else read_sweep_json(out)


def series(rows, x, y, by=None):
    """Groups rows into {group: (xs, ys)} sorted by x; group is row[by] (None when by is None)."""
    groups = {}
    for r in rows:
        g = r.get(by) if by else None
        groups.setdefault(g, []).append((r[x], r[y]))
    return {g: ([a for a, _ in sorted(v)], [b for _, b in sorted(v)]) for g, v in groups.items()}


def frontier(rows, x="throughput_pps", y="latency_p99_s"):
    """The rows no other row beats on both counts (higher x, lower y), sorted by x."""
    keep = []
    for r in rows:
        dominated = any(o is not r and o[x] >= r[x] and o[y] <= r[y] and (o[x] > r[x] or o[y] < r[y])
                        for o in rows)
        if not dominated:
            keep.append(r)
    return sorted(keep, key=lambda r: r[x])


def to_frame(rows):
    """A pandas DataFrame of rows (imports pandas lazily)."""
    import pandas as pd
    return pd.DataFrame(rows)
