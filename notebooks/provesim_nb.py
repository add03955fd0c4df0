"""Loading code shared by provesim's notebooks.

The what-if notebook is driven by the CLI: `provesim sweep --csv/--json` and `provesim plan
--csv`. This module runs those commands and reads their output into plain Python rows
(lists of dicts with numbers converted) or pandas DataFrames when pandas is installed.

The calibration notebook reads committed files only: spans (`provesim.spans/1`, gzip or
plain), calibrated models (the YAML `provesim calibrate` writes, read by a small parser of
block YAML with flow maps and lists) and `provesim.validation/1` documents; with the
densities of the model's distributions (core/dist.c) and Amdahl's law it draws the fits.

It has no dependency beyond the standard library; pandas is imported only by to_frame.
"""
import csv
import gzip
import json
import math
import os
import shutil
import subprocess
import tempfile

__all__ = ["provesim_bin", "run_sweep", "read_sweep_csv", "read_sweep_json", "to_frame",
           "series", "frontier",
           "validation_paths", "read_calib_tsv", "read_spans", "parse_yaml", "read_model",
           "model_phase", "phase_durations", "durations_by_threads", "one_core_time", "amdahl",
           "dist_params", "dist_mean", "dist_pdf", "histogram", "read_validation",
           "validation_rows"]


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


# ---------------------------------------------------------------------------------------
# Calibration data: validation runs, spans, calibrated models, distributions.

def validation_paths(root):
    """(data_dir, validation_json) of the held-out validation: $PROVESIM_VALIDATION_DATA,
    else ROOT/docs/data/validation/h200 (runs/, model-220.yaml, ...), and
    $PROVESIM_VALIDATION_JSON, else ROOT/docs/data/validation.json. Raises
    FileNotFoundError, saying what is missing and how to point elsewhere, when either is
    absent."""
    data = os.environ.get("PROVESIM_VALIDATION_DATA") or os.path.join(root, "docs", "data", "validation", "h200")
    doc = os.environ.get("PROVESIM_VALIDATION_JSON") or os.path.join(root, "docs", "data", "validation.json")
    missing = []
    if not os.path.isdir(os.path.join(data, "runs")):
        missing.append("%s/runs (the spans and reports of docs/data/validation/run.sh)" % data)
    if not os.path.isfile(doc):
        missing.append("%s (written by scripts/validation.py)" % doc)
    if missing:
        raise FileNotFoundError(
            "no validation data: missing " + " and ".join(missing) + ". The H200 runs land there once "
            "docs/data/validation/run.sh has run on an H200 and scripts/validation.py has calibrated and "
            "compared them; to use another copy, set PROVESIM_VALIDATION_DATA (a folder with runs/ and "
            "model-SIZE.yaml) and PROVESIM_VALIDATION_JSON (its validation.json).")
    return data, doc


def read_calib_tsv(path):
    """Rows {name, size, overrides: [...]} of a calib.tsv/matrix.tsv file
    (name<TAB>size<TAB>overrides separated by ';'; '#' lines are comments)."""
    rows = []
    with open(path) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            name, size, ov = line.rstrip("\n").split("\t")
            rows.append({"name": name, "size": size, "overrides": [x.strip() for x in ov.split(";") if x.strip()]})
    return rows


def read_spans(path, kernels=False):
    """(header, spans) of a provesim.spans/1 file, gzip (by its magic bytes) or plain: the
    header line as a dict, then one dict per span. Kernel and memcpy records (spans with a
    "kind") are skipped unless kernels=True (skipping them unparsed keeps big files fast)."""
    with open(path, "rb") as f:
        gz = f.read(2) == b"\x1f\x8b"
    opener = gzip.open if gz else open
    spans = []
    with opener(path, "rt") as f:
        first = f.readline()
        if not first.strip():
            raise ValueError("%s: empty spans file" % path)
        header = json.loads(first)
        if header.get("schema") != "provesim.spans/1":
            raise ValueError("%s: expected schema provesim.spans/1, got %r" % (path, header.get("schema")))
        for n, line in enumerate(f, 2):
            if not line.strip():
                continue
            if not kernels and '"kind"' in line:
                continue
            try:
                spans.append(json.loads(line))
            except ValueError as e:
                raise ValueError("%s:%d: %s" % (path, n, e))
    return header, spans


# --- a small YAML reader for the models provesim writes --------------------------------

def _strip_comment(line):
    """The line without a '#' comment (one outside quotes, at its start or after a space)."""
    q, esc = None, False
    for i, c in enumerate(line):
        if esc:
            esc = False
        elif q:
            if c == q:
                q = None
            elif c == "\\" and q == '"':
                esc = True
        elif c in "\"'" and (i == 0 or line[i - 1] in " \t[{,"):  # a quote opens only a scalar
            q = c
        elif c == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i]
    return line


def _scalar(text):
    """A plain or quoted YAML scalar: null/true/false, an int, a float, else the string."""
    t = text.strip()
    if t.startswith('"'):
        return json.loads(t)
    if t.startswith("'"):
        return t[1:-1].replace("''", "'")
    if t in ("", "~", "null", "Null", "NULL"):
        return None
    if t in ("true", "True", "TRUE"):
        return True
    if t in ("false", "False", "FALSE"):
        return False
    try:
        return int(t)
    except ValueError:
        pass
    try:
        if t.lower() not in ("nan", "inf", "-inf", "+inf", "infinity"):
            return float(t)
    except ValueError:
        pass
    if t in (".inf", "+.inf"):
        return math.inf
    if t == "-.inf":
        return -math.inf
    if t == ".nan":
        return math.nan
    return t


class _Flow:
    """Parses one flow value: {k: v, ...}, [a, b, ...], a quoted or a plain scalar."""

    def __init__(self, text):
        self.s, self.i = text, 0

    def ws(self):
        while self.i < len(self.s) and self.s[self.i] in " \t\n":
            self.i += 1

    def value(self, stops):
        self.ws()
        c = self.s[self.i:self.i + 1]
        if c == "{":
            return self.mapping()
        if c == "[":
            return self.sequence()
        if c in ("'", '"'):
            j = self.i + 1
            while j < len(self.s):
                if self.s[j] == "\\" and c == '"':
                    j += 2
                    continue
                if self.s[j] == c:
                    if c == "'" and self.s[j + 1:j + 2] == "'":
                        j += 2
                        continue
                    break
                j += 1
            if j >= len(self.s):
                raise ValueError("unterminated string in %r" % self.s)
            tok, self.i = self.s[self.i:j + 1], j + 1
            return _scalar(tok)
        j = self.i
        while j < len(self.s) and self.s[j] not in stops:
            if self.s[j] == ":" and ":" in stops and (j + 1 == len(self.s) or self.s[j + 1] in " \t,}]"):
                break
            j += 1
        tok, self.i = self.s[self.i:j], j
        return _scalar(tok)

    def expect(self, c):
        self.ws()
        if self.s[self.i:self.i + 1] != c:
            raise ValueError("expected %r at %d in %r" % (c, self.i, self.s))
        self.i += 1

    def mapping(self):
        self.expect("{")
        out = {}
        self.ws()
        if self.s[self.i:self.i + 1] == "}":
            self.i += 1
            return out
        while True:
            k = self.value(":,}")
            self.expect(":")
            out[k] = self.value(",}")
            self.ws()
            c = self.s[self.i:self.i + 1]
            self.i += 1
            if c == "}":
                return out
            if c != ",":
                raise ValueError("expected ',' or '}' in %r" % self.s)

    def sequence(self):
        self.expect("[")
        out = []
        self.ws()
        if self.s[self.i:self.i + 1] == "]":
            self.i += 1
            return out
        while True:
            out.append(self.value(",]"))
            self.ws()
            c = self.s[self.i:self.i + 1]
            self.i += 1
            if c == "]":
                return out
            if c != ",":
                raise ValueError("expected ',' or ']' in %r" % self.s)


def _flow_value(text):
    p = _Flow(text)
    v = p.value(() if text.strip()[:1] not in "{[" else ",")
    p.ws()
    if p.i != len(p.s):
        raise ValueError("unexpected text after a value: %r" % text)
    return v


def _split_key(text):
    """(key, rest) of 'key: rest' / 'key:' (the first ': ' outside quotes), or None."""
    q = None
    for i, c in enumerate(text):
        if q:
            if c == q:
                q = None
        elif c in "\"'" and i == 0:
            q = c
        elif c == ":" and (i + 1 == len(text) or text[i + 1] in " \t"):
            return _scalar(text[:i]), text[i + 1:].strip()
        elif c in "{[" and i == 0:
            return None
    return None


def parse_yaml(text):
    """Parses the subset of YAML that provesim's models and scenarios use: block mappings
    and sequences by indentation ('- key: value' items included), flow mappings and lists
    ({a: 1, b: [x, y]}, nested, and spanning lines while brackets are open), quoted and
    plain scalars (numbers converted, 1e3 included; null, true, false), literal and folded
    block scalars (| and >; '-' strips the final newline, '+' is read as the default) and '#'
    comments. Anchors, tags and several documents (---) are refused with ValueError."""
    lines = []
    pending = None
    raws = text.splitlines()
    skip_to = 0
    for n, raw in enumerate(raws, 1):
        if n <= skip_to:
            continue
        line = _strip_comment(raw).rstrip()
        head, bs = _block_scalar_head(line)
        if bs is not None:
            body, skip_to = _block_scalar(raws, n, len(line) - len(line.lstrip(" ")), bs)
            line = head + " " + json.dumps(body)
        if pending is not None:
            pending[1] += " " + line.strip()
            if _balanced(pending[1]):
                lines.append(tuple(pending))
                pending = None
            continue
        if not line.strip():
            continue
        if line.strip() in ("---", "..."):
            raise ValueError("line %d: several YAML documents are not supported" % n)
        indent = len(line) - len(line.lstrip(" "))
        if "\t" in line[:indent + 1]:
            raise ValueError("line %d: tab in indentation" % n)
        if _balanced(line):
            lines.append((indent, line.strip(), n))
        else:
            pending = [indent, line.strip(), n]
    if pending is not None:
        raise ValueError("line %d: unclosed '{' or '['" % pending[2])
    if not lines:
        return None
    value, i = _block(lines, 0, lines[0][0])
    if i != len(lines):
        raise ValueError("line %d: unexpected indentation" % lines[i][2])
    return value


def _block_scalar_head(line):
    """('key:', '>-') when a line ends a mapping key or a '- ' with a block scalar
    indicator (|, >, with an optional - or +), else (line, None)."""
    t = line.rstrip()
    for ind in ("|-", "|+", ">-", ">+", "|", ">"):
        if t.endswith(" " + ind):
            head = t[:-len(ind)].rstrip()
            if head.endswith(":") or head.lstrip() == "-":
                return head, ind
    return line, None


def _block_scalar(raws, n, indent, ind):
    """The text of a block scalar whose indicator ends line n (1-based) at this indent:
    the following lines indented deeper (and blank ones among them); returns (text, the
    last line number it took)."""
    body, last = [], n
    for j in range(n, len(raws)):
        r = raws[j]
        if r.strip() and len(r) - len(r.lstrip(" ")) <= indent:
            break
        body.append(r)
        last = j + 1
    while body and not body[-1].strip():
        body.pop()
    cut = min((len(r) - len(r.lstrip(" ")) for r in body if r.strip()), default=0)
    body = [r[cut:] for r in body]
    if ind[0] == "|":
        text = "\n".join(body)
    else:
        text, prev_blank = "", True
        for r in body:
            if not r.strip():
                text += "\n"
                prev_blank = True
            elif r.startswith(" "):
                text += ("" if prev_blank else "\n") + r + "\n"
                prev_blank = True
            else:
                text += ("" if prev_blank else " ") + r
                prev_blank = False
        text = text.rstrip("\n") if text.endswith("\n") else text
    if ind.endswith("-"):
        return text, last
    return text + "\n", last


def _balanced(text):
    depth, q, esc = 0, None, False
    for i, c in enumerate(text):
        if esc:
            esc = False
        elif q:
            if c == q:
                q = None
            elif c == "\\" and q == '"':
                esc = True
        elif c in "\"'" and (i == 0 or text[i - 1] in " \t[{,"):
            q = c
        elif c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
    return depth <= 0


def _inline(text, n):
    t = text.strip()
    if t[:1] in ("&", "*", "!", "|", ">"):
        raise ValueError("line %d: anchors, tags and block scalars in this place are not supported: %r" % (n, t))
    try:
        return _flow_value(t) if t[:1] in "{[" else _scalar(t)
    except ValueError as e:
        raise ValueError("line %d: %s" % (n, e))


def _block(lines, i, indent):
    """The block value starting at lines[i] (at this indent); returns (value, next index)."""
    if lines[i][1].startswith("- ") or lines[i][1] == "-":
        return _block_seq(lines, i, indent)
    if _split_key(lines[i][1]) is None:
        if i + 1 < len(lines) and lines[i + 1][0] >= indent:
            raise ValueError("line %d: a value spanning lines is not supported" % lines[i][2])
        return _inline(lines[i][1], lines[i][2]), i + 1
    return _block_map(lines, i, indent)


def _block_seq(lines, i, indent):
    out = []
    while i < len(lines) and lines[i][0] == indent and (lines[i][1].startswith("- ") or lines[i][1] == "-"):
        rest, n = lines[i][1][1:].strip(), lines[i][2]
        if not rest:
            if i + 1 < len(lines) and lines[i + 1][0] > indent:
                v, i = _block(lines, i + 1, lines[i + 1][0])
            else:
                v, i = None, i + 1
        elif _split_key(rest) is not None or rest.startswith("- "):
            # '- key: value': the item is a block at the column after the dash.
            col = indent + (len(lines[i][1]) - len(rest))
            sub = [(col, rest, n)] + lines[i + 1:]
            v, j = _block(sub, 0, col)
            i = i + j
        else:
            v, i = _inline(rest, n), i + 1
        out.append(v)
    return out, i


def _block_map(lines, i, indent):
    out = {}
    while i < len(lines) and lines[i][0] == indent:
        kv = _split_key(lines[i][1])
        if kv is None:
            raise ValueError("line %d: expected 'key: value', got %r" % (lines[i][2], lines[i][1]))
        k, rest = kv
        if k in out:
            raise ValueError("line %d: key %r twice" % (lines[i][2], k))
        n = lines[i][2]
        i += 1
        if rest:
            out[k] = _inline(rest, n)
        elif i < len(lines) and (lines[i][0] > indent or
                                 (lines[i][0] == indent and lines[i][1].startswith("- "))):
            out[k], i = _block(lines, i, lines[i][0])
        else:
            out[k] = None
    if i < len(lines) and lines[i][0] > indent:
        raise ValueError("line %d: unexpected indentation" % lines[i][2])
    return out, i


def read_model(path):
    """A provesim model (models/*.yaml, or one `provesim calibrate` wrote) as a dict: the
    YAML's keys, with each phase's `time` (and `fixed`) as a distribution mapping (a bare
    number of seconds becomes {dist: const, value: N}), and, for convenience, each phase's
    `serial` (its Amdahl share, None without `scaling: {serial: f}`)."""
    with open(path) as f:
        m = parse_yaml(f.read())
    if not isinstance(m, dict) or not isinstance(m.get("phases"), list):
        raise ValueError("%s: not a model (no phases: list)" % path)
    for ph in m["phases"]:
        for key in ("time", "fixed"):
            if isinstance(ph.get(key), (int, float)) and not isinstance(ph.get(key), bool):
                ph[key] = {"dist": "const", "value": float(ph[key])}
        sc = ph.get("scaling")
        ph["serial"] = sc.get("serial") if isinstance(sc, dict) else None
    return m


def model_phase(model, name):
    """The phase called name in a model from read_model (KeyError if none)."""
    for ph in model["phases"]:
        if ph["name"] == name:
            return ph
    raise KeyError("model %s has no phase %r" % (model.get("model"), name))


# --- durations and Amdahl's law ----------------------------------------------------------

def amdahl(t1, serial, k):
    """Amdahl's law: the time on k threads of a phase taking t1 on one core, serial its
    share that does not run in parallel: t1 * (serial + (1 - serial) / k)."""
    return t1 * (serial + (1.0 - serial) / k)


def one_core_time(d, k, serial):
    """The one-core time a duration d on k threads stands for under Amdahl's law:
    d / (serial + (1 - serial) / k), as `provesim calibrate` rescales before fitting."""
    return d / (serial + (1.0 - serial) / k)


def _kept(spans, phase, skip_calls, partitions=None):
    """The phase spans of `phase`, leaving out each worker's first skip_calls calls (as
    `calibrate --skip-calls`: calls ranked by number within (rep, gpu, worker)), and only
    calls of `partitions` partitions (None: the smallest count seen): [(span, partitions)]."""
    calls = {}
    for s in spans:
        if s.get("kind") is None and "phase" in s:
            calls.setdefault((s.get("rep", 0), s.get("gpu", 0), s.get("worker", 0)), set()).add(s.get("call", 0))
    skipped = set()
    for w, cs in calls.items():
        for c in sorted(cs)[:skip_calls]:
            skipped.add(w + (c,))
    out = []
    for s in spans:
        if s.get("kind") is not None or s.get("phase") != phase:
            continue
        if (s.get("rep", 0), s.get("gpu", 0), s.get("worker", 0), s.get("call", 0)) in skipped:
            continue
        out.append((s, max(1, len(s.get("partitions") or []))))
    if out:
        keep = min(k for _, k in out) if partitions is None else partitions
        out = [(s, k) for s, k in out if k == keep]
    return out


def phase_durations(spans, phase, skip_calls=0, serial=None, partitions=None):
    """The durations (seconds per partition) of one phase's spans in one run's spans,
    leaving out each worker's first skip_calls calls and keeping the calls of `partitions`
    partitions (None: the smallest count in these spans; calibrate fits the time from the
    smallest calls of all its files, so pass 1 when some runs batch). With serial (the
    model's Amdahl share) each span that says its "threads" k is rescaled to the one-core
    time it stands for (one_core_time), which is what the model's `time` distribution
    describes; without it, as measured."""
    out = []
    for s, k in _kept(spans, phase, skip_calls, partitions):
        d = (s["t1"] - s["t0"]) / k
        if serial is not None and s.get("threads"):
            d = one_core_time(d, s["threads"], serial)
        out.append(d)
    return out


def durations_by_threads(spans, phase, skip_calls=0, partitions=None):
    """{threads: [durations per partition]} of one phase's spans (as phase_durations,
    not rescaled); spans without "threads" go under None."""
    out = {}
    for s, k in _kept(spans, phase, skip_calls, partitions):
        out.setdefault(s.get("threads"), []).append((s["t1"] - s["t0"]) / k)
    return out


# --- distributions (core/dist.c) ----------------------------------------------------------

def dist_params(d):
    """(family, params) of a model distribution mapping, in the parameters core/dist.c
    draws from: const (value,), uniform (lo, hi), normal (mean, sd) before truncation at 0,
    lognormal (mu, sigma), gamma (shape, scale), exponential (mean,), empirical (samples).
    Accepts every form the model loader does (lognormal and gamma by mean and cv too)."""
    if isinstance(d, (int, float)) and not isinstance(d, bool):
        return "const", (float(d),)
    kind = d.get("dist")
    if kind == "const":
        return kind, (float(d["value"]),)
    if kind == "uniform":
        return kind, (float(d["min"]), float(d["max"]))
    if kind == "normal":
        return kind, (float(d["mean"]), float(d["sd"]))
    if kind == "lognormal":
        if "mu" in d:
            return kind, (float(d["mu"]), float(d["sigma"]))
        s2 = math.log1p(float(d["cv"]) ** 2)
        return kind, (math.log(float(d["mean"])) - s2 / 2, math.sqrt(s2))
    if kind == "gamma":
        if "shape" in d:
            return kind, (float(d["shape"]), float(d["scale"]))
        cv = float(d["cv"])
        return kind, (1.0 / (cv * cv), float(d["mean"]) * cv * cv)
    if kind == "exponential":
        return kind, (float(d["mean"]),)
    if kind == "empirical":
        return kind, tuple(float(x) for x in d.get("samples") or ())
    raise ValueError("unknown distribution %r" % (d,))


def _Phi(z):
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


def dist_mean(d):
    """The mean of a model distribution (the normal's truncated at 0, as core/dist.c)."""
    kind, p = dist_params(d)
    if kind == "const":
        return p[0]
    if kind == "uniform":
        return (p[0] + p[1]) / 2
    if kind == "normal":
        m, sd = p
        if sd == 0:
            return m
        al = -m / sd
        return m + sd * math.exp(-al * al / 2) / math.sqrt(2 * math.pi) / (1 - _Phi(al))
    if kind == "lognormal":
        return math.exp(p[0] + p[1] ** 2 / 2)
    if kind == "gamma":
        return p[0] * p[1]
    if kind == "exponential":
        return p[0]
    return sum(p) / len(p) if p else math.nan


def dist_pdf(d, x):
    """The density at x (seconds) of a model distribution, as core/dist.c draws it (the
    normal truncated at 0). None for const, a normal with sd 0, a lognormal with sigma 0
    and empirical: point masses or samples, with no density to draw."""
    kind, p = dist_params(d)
    if kind == "uniform":
        lo, hi = p
        if hi <= lo:
            return None
        return 1.0 / (hi - lo) if lo <= x <= hi else 0.0
    if kind == "normal":
        m, sd = p
        if sd <= 0:
            return None
        if x < 0:
            return 0.0
        z = (x - m) / sd
        return math.exp(-z * z / 2) / (sd * math.sqrt(2 * math.pi)) / (1 - _Phi(-m / sd))
    if kind == "lognormal":
        mu, sigma = p
        if sigma <= 0:
            return None
        if x <= 0:
            return 0.0
        z = (math.log(x) - mu) / sigma
        return math.exp(-z * z / 2) / (x * sigma * math.sqrt(2 * math.pi))
    if kind == "gamma":
        k, theta = p
        if x < 0 or (x == 0 and k > 1):
            return 0.0
        if x == 0:
            return math.inf if k < 1 else 1.0 / theta
        return math.exp((k - 1) * math.log(x) - x / theta - math.lgamma(k) - k * math.log(theta))
    if kind == "exponential":
        mean = p[0]
        return math.exp(-x / mean) / mean if x >= 0 else 0.0
    return None


def histogram(values, bins=20, lo=None, hi=None):
    """(edges, densities) of values in `bins` equal bins over [lo, hi] (default: their
    range), normalised so the bars' area is 1 (comparable with a pdf)."""
    if not values:
        return [], []
    lo = min(values) if lo is None else lo
    hi = max(values) if hi is None else hi
    if hi <= lo:
        hi = lo + (abs(lo) * 1e-3 or 1e-9)
    w = (hi - lo) / bins
    counts = [0] * bins
    for v in values:
        if lo <= v <= hi:
            counts[min(bins - 1, int((v - lo) / w))] += 1
    n = float(len(values))
    return [lo + i * w for i in range(bins + 1)], [c / (n * w) for c in counts]


# --- the validation document --------------------------------------------------------------

def read_validation(path):
    """A provesim.validation/1 document (scripts/validation.py) as a dict."""
    with open(path) as f:
        doc = json.load(f)
    if doc.get("schema") != "provesim.validation/1":
        raise ValueError("%s: expected schema provesim.validation/1, got %r" % (path, doc.get("schema")))
    return doc


def validation_rows(doc):
    """The rows of a validation document flattened for a table: name, constraints,
    overrides (joined with '; '), then `metric.field` for each metric's predicted, measured,
    error and interval (pi as pi_lo/pi_hi), within_target and inside_pi.*."""
    out = []
    for r in doc["rows"]:
        row = {"name": r["name"], "constraints": r.get("constraints"),
               "overrides": "; ".join(r.get("overrides") or [])}
        for k, v in r.items():
            if k in row or k == "overrides":
                continue
            if isinstance(v, dict):
                for f, x in v.items():
                    if f == "pi" and isinstance(x, list) and len(x) == 2:
                        row[k + ".pi_lo"], row[k + ".pi_hi"] = x
                    else:
                        row[k + "." + f] = x
            elif v is None and k.startswith("latency"):
                row[k + ".predicted"] = row[k + ".measured"] = None
            else:
                row[k] = v
        out.append(row)
    return out
