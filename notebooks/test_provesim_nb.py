"""Tests of provesim_nb: CSV/JSON reading on small fixtures, grouping, the frontier,
(when the provesim binary is available) a real sweep, and the calibration notebook's
readers: spans, the model YAML parser, durations and their one-core rescaling, Amdahl's
law, the distributions' densities and the validation document."""
import glob
import gzip
import json
import math
import os
import shutil

import pytest

import provesim_nb as nb

CSV = """point,overrides,scenario,gpu_util,gpu_util_ci95,throughput_pps,latency_p99_s,limited_by
0,system.workers_per_gpu=1; system.mutex=call,s,0.45,,0.25,4.6,mutex held without kernels
1,"system.workers_per_gpu=1; system.mutex={from: a, to: b}",s,0.45,0.001,0.25,4.6,mutex held without kernels
2,run.replications=2; system.workers_per_gpu=2; system.mutex=kernels,s,0.88,0.002,0.49,4.7,GPU busy
"""


def test_read_sweep_csv(tmp_path):
    p = tmp_path / "s.csv"
    p.write_text(CSV)
    rows = nb.read_sweep_csv(str(p))
    assert len(rows) == 3
    assert rows[0]["system.workers_per_gpu"] == 1
    assert rows[0]["gpu_util_ci95"] is None
    assert rows[1]["system.mutex"] == "{from: a, to: b}"
    assert rows[2]["throughput_pps"] == pytest.approx(0.49)
    assert rows[2]["limited_by"] == "GPU busy"


def test_read_sweep_json(tmp_path):
    doc = {"schema": "provesim.sweep/1", "scenario": "s", "file": "x.yaml",
           "vary": [{"key": "system.batch", "values": [1, 2]}],
           "points": [{"point": 0, "values": {"system.batch": 1},
                       "system": {"gpus": 1, "workers_per_gpu": 2, "cpu_cores": 32, "batch": 1, "mutex": "call"},
                       "metrics": {"gpu_util_mean": 0.5, "latency_s": {"p99": 8.8}},
                       "ci95": {"gpu_util_mean": 0.01}, "replications": 3}]}
    p = tmp_path / "s.json"
    p.write_text(json.dumps(doc))
    rows = nb.read_sweep_json(str(p))
    assert rows[0]["system.batch"] == 1
    assert rows[0]["latency_s.p99"] == 8.8
    assert rows[0]["ci95.gpu_util_mean"] == 0.01
    assert rows[0]["system.mutex"] == "call"


def test_read_sweep_json_rejects_other_schema(tmp_path):
    p = tmp_path / "r.json"
    p.write_text(json.dumps({"schema": "provesim.report/1"}))
    with pytest.raises(ValueError):
        nb.read_sweep_json(str(p))


def test_series_and_frontier():
    rows = [{"w": 2, "m": "call", "x": 1.0, "y": 5.0}, {"w": 1, "m": "call", "x": 0.5, "y": 4.0},
            {"w": 1, "m": "kernels", "x": 0.5, "y": 6.0}, {"w": 2, "m": "kernels", "x": 2.0, "y": 5.0}]
    s = nb.series(rows, "w", "x", by="m")
    assert s["call"] == ([1, 2], [0.5, 1.0])
    assert s["kernels"] == ([1, 2], [0.5, 2.0])
    f = nb.frontier(rows, x="x", y="y")
    assert [(r["x"], r["y"]) for r in f] == [(0.5, 4.0), (2.0, 5.0)]


def _binary():
    b = nb.provesim_bin()
    return b if os.path.exists(b) or shutil.which(b) else None


@pytest.mark.skipif(_binary() is None, reason="no provesim binary (set PROVESIM_BIN)")
def test_run_sweep_real():
    here = os.path.dirname(os.path.abspath(__file__))
    scn = os.path.join(here, "..", "tests", "data", "whatif", "det.yaml")
    rows = nb.run_sweep(scn, {"system.workers_per_gpu": "1..3", "system.mutex": ["call", "kernels"]}, jobs=2)
    assert len(rows) == 6
    by = {(r["system.workers_per_gpu"], r["system.mutex"]): r for r in rows}
    assert by[(3, "kernels")]["throughput_pps"] == pytest.approx(1.0, rel=5e-3)
    assert by[(3, "call")]["throughput_pps"] == pytest.approx(1 / 3, rel=5e-3)
    rows = nb.run_sweep(scn, {"system.batch": [1, 2]}, fmt="json")
    assert [r["system.batch"] for r in rows] == [1, 2]
    with pytest.raises(RuntimeError):
        nb.run_sweep(scn, {"system.nope": [1]})



# --- calibration readers ---------------------------------------------------------------

HERE = os.path.dirname(os.path.abspath(__file__))

MODEL = """model: test-220   # a calibrated model, as provesim calibrate writes it
source: "calibrated by provesim calibrate from a.gz b.gz (2 warm-up calls skipped: per worker)"
provenance:
  gpu: "NVIDIA H200"
  commit: "abc"
gpu_overlap: {interference: 0.25}
phases:
  - name: synth
    resource: cpu
    threads: all
    scaling: {serial: 0.2}
    time: {dist: lognormal, mu: -1.5, sigma: 0.1}
    after: []
  - name: ntt_h
    resource: gpu
    time: {dist: normal, mean: 0.03, sd: 0.002}
    after: [synth]
    host_threads: 1
    busy: 0.9
  - name: epilogue
    resource: cpu
    threads: 2
    time: 0.002
    batch: {scale: [1, 1.9, 2.7]}
scopes:
  call: {from: synth, to: epilogue}
  kernels: {from: ntt_h, to: ntt_h}
"""


def test_parse_yaml_model_shape(tmp_path):
    p = tmp_path / "m.yaml"
    p.write_text(MODEL)
    m = nb.read_model(str(p))
    assert m["model"] == "test-220"
    assert m["source"].startswith("calibrated by") and m["source"].endswith("per worker)")
    assert m["provenance"] == {"gpu": "NVIDIA H200", "commit": "abc"}
    assert m["gpu_overlap"] == {"interference": 0.25}
    assert [ph["name"] for ph in m["phases"]] == ["synth", "ntt_h", "epilogue"]
    synth = nb.model_phase(m, "synth")
    assert synth["threads"] == "all" and synth["after"] == []
    assert synth["serial"] == 0.2
    assert synth["time"] == {"dist": "lognormal", "mu": -1.5, "sigma": 0.1}
    ntt = nb.model_phase(m, "ntt_h")
    assert ntt["after"] == ["synth"] and ntt["host_threads"] == 1 and ntt["busy"] == 0.9
    assert ntt["serial"] is None
    ep = nb.model_phase(m, "epilogue")
    assert ep["time"] == {"dist": "const", "value": 0.002}
    assert ep["batch"] == {"scale": [1, 1.9, 2.7]}
    assert m["scopes"]["kernels"] == {"from": "ntt_h", "to": "ntt_h"}
    with pytest.raises(KeyError):
        nb.model_phase(m, "nope")


def test_parse_yaml_constructs():
    text = """a: >
  folded
  text
b: |-
  line 1
  line 2
c: [1, 2.5, {d: 'x # y', e: [f, "g: h"]}]
n: ~
k: 1e3
q: it's # a comment, not a quote
s:
- 1
- - 2
  - 3
- name: x  # comment
  v: {table: {threads: [1,
      2], speedup: [1, 1.8]}}
"""
    y = nb.parse_yaml(text)
    assert y["a"] == "folded text\n"
    assert y["b"] == "line 1\nline 2"
    assert y["c"] == [1, 2.5, {"d": "x # y", "e": ["f", "g: h"]}]
    assert y["n"] is None and y["k"] == 1000.0 and y["q"] == "it's"
    assert y["s"] == [1, [2, 3], {"name": "x", "v": {"table": {"threads": [1, 2], "speedup": [1, 1.8]}}}]
    for bad in ("a: 1\na: 2\n", "a: 1\n   b: 2\n", "a: {b: 1\n", "a: &x 1\n"):
        with pytest.raises(ValueError):
            nb.parse_yaml(bad)


def test_parse_yaml_repository_models_agree_with_pyyaml():
    """Every model and scenario of the repository reads as PyYAML reads it (PyYAML comes
    with jupyter; the notebooks do not use it)."""
    yaml = pytest.importorskip("yaml")
    files = glob.glob(os.path.join(HERE, "..", "models", "*.yaml")) + glob.glob(os.path.join(HERE, "..", "configs", "*.yaml"))
    assert files
    for f in files:
        with open(f) as fh:
            text = fh.read()
        assert nb.parse_yaml(text) == yaml.safe_load(text), f


def _spans_file(tmp_path, spans, gz=True):
    lines = [json.dumps({"schema": "provesim.spans/1", "source": "prover", "t_unit": "s"})]
    lines += [json.dumps(s) for s in spans]
    text = "\n".join(lines) + "\n"
    p = tmp_path / ("s.jsonl.gz" if gz else "s.jsonl")
    if gz:
        with gzip.open(str(p), "wt") as f:
            f.write(text)
    else:
        p.write_text(text)
    return str(p)


def _span(call, phase, t0, t1, threads=None, worker=0, parts=1):
    s = {"rep": 0, "gpu": 0, "worker": worker, "call": call, "partitions": list(range(parts)),
         "phase": phase, "resource": "cpu" if threads else "gpu", "t0": t0, "t1": t1}
    if threads:
        s["threads"] = threads
    return s


def test_read_spans_gzip_and_plain(tmp_path):
    spans = [_span(0, "synth", 0.0, 0.5, threads=4), {"rep": 0, "gpu": 0, "kind": "kernel", "name": "msm", "t0": 0.1, "t1": 0.2}]
    for gz in (True, False):
        d = tmp_path / ("gz" if gz else "plain")
        d.mkdir()
        hdr, got = nb.read_spans(_spans_file(d, spans, gz=gz))
        assert hdr["schema"] == "provesim.spans/1"
        assert len(got) == 1 and got[0]["phase"] == "synth" and got[0]["threads"] == 4
        _, got = nb.read_spans(_spans_file(d, spans, gz=gz), kernels=True)
        assert len(got) == 2 and got[1]["kind"] == "kernel"
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"schema": "provesim.report/1"}) + "\n")
    with pytest.raises(ValueError):
        nb.read_spans(str(bad))


def test_amdahl_and_one_core_time():
    assert nb.amdahl(2.0, 0.25, 1) == pytest.approx(2.0)
    assert nb.amdahl(2.0, 0.25, 4) == pytest.approx(2.0 * (0.25 + 0.75 / 4))
    assert nb.amdahl(2.0, 0.0, 8) == pytest.approx(0.25)
    assert nb.amdahl(2.0, 1.0, 8) == pytest.approx(2.0)
    # one_core_time inverts amdahl: d at k threads stands for the one-core time t1.
    for k in (1, 2, 6, 15):
        assert nb.one_core_time(nb.amdahl(3.0, 0.3, k), k, 0.3) == pytest.approx(3.0)
    assert nb.one_core_time(0.5, 2, 0.5) == pytest.approx(0.5 / 0.75)


def test_phase_durations_skip_rescale_and_batch():
    spans = [_span(c, "synth", 10.0 * c, 10.0 * c + d, threads=k) for c, (d, k) in
             enumerate([(9.0, 2), (9.0, 2), (0.4, 4), (0.6, 2), (0.35, 4)])]
    spans += [_span(c, "synth", 0.0, 1.0, threads=2, worker=1) for c in (5, 6, 7)]  # a second worker
    spans += [_span(8, "synth", 0.0, 1.6, threads=2, parts=2)]                       # a batch of 2: dropped
    spans += [_span(c, "msm", 0.0, 0.05 * (c + 1)) for c in range(4)]
    spans += [{"rep": 0, "gpu": 0, "worker": 0, "call": 2, "partitions": [2], "phase": "mutex_wait",
               "resource": "none", "t0": 0.0, "t1": 5.0}]
    # Each worker's first two calls (by call number) are warm-up; worker 1 keeps call 7.
    raw = nb.phase_durations(spans, "synth", skip_calls=2)
    assert sorted(raw) == pytest.approx(sorted([0.4, 0.6, 0.35, 1.0]))
    assert len(nb.phase_durations(spans, "synth")) == 8
    by = nb.durations_by_threads(spans, "synth", skip_calls=2)
    assert sorted(by) == [2, 4]
    assert sorted(by[4]) == pytest.approx([0.35, 0.4])
    s = 0.5
    one = nb.phase_durations(spans, "synth", skip_calls=2, serial=s)
    want = [0.4 / (s + (1 - s) / 4), 0.6 / (s + (1 - s) / 2), 0.35 / (s + (1 - s) / 4), 1.0 / (s + (1 - s) / 2)]
    assert sorted(one) == pytest.approx(sorted(want))
    # GPU phases have no threads: as measured, whatever serial says.
    assert nb.phase_durations(spans, "msm", skip_calls=2, serial=0.3) == pytest.approx([0.15, 0.2])
    # Only batches of two: per partition; asked for calls of one partition: none.
    b2 = [_span(0, "synth", 0.0, 1.6, threads=2, parts=2)]
    assert nb.phase_durations(b2, "synth") == pytest.approx([0.8])
    assert nb.phase_durations(b2, "synth", partitions=1) == []
    assert nb.phase_durations(spans, "synth", partitions=2) == pytest.approx([0.8])
    assert nb.durations_by_threads(spans, "synth", skip_calls=2, partitions=2) == {2: pytest.approx([0.8])}


def _integrate(d, lo, hi, n=20000):
    h = (hi - lo) / n
    return sum(nb.dist_pdf(d, lo + (i + 0.5) * h) for i in range(n)) * h


def test_dist_pdfs_and_means():
    ln = {"dist": "lognormal", "mu": -1.0, "sigma": 0.3}
    x = 0.4
    assert nb.dist_pdf(ln, x) == pytest.approx(
        math.exp(-(math.log(x) + 1.0) ** 2 / (2 * 0.09)) / (x * 0.3 * math.sqrt(2 * math.pi)))
    assert nb.dist_mean(ln) == pytest.approx(math.exp(-1.0 + 0.045))
    # lognormal by mean and cv (as the model loader converts it).
    lmc = {"dist": "lognormal", "mean": 0.5, "cv": 0.1}
    assert nb.dist_mean(lmc) == pytest.approx(0.5)
    assert nb.dist_params(lmc)[1][1] == pytest.approx(math.sqrt(math.log1p(0.01)))
    g = {"dist": "gamma", "mean": 2.0, "cv": 0.5}
    assert nb.dist_params(g) == ("gamma", (4.0, 0.5))
    assert nb.dist_pdf(g, 1.5) == pytest.approx(1.5 ** 3 * math.exp(-3.0) / (6 * 0.5 ** 4))
    assert nb.dist_mean(g) == pytest.approx(2.0)
    e = {"dist": "exponential", "mean": 2.0}
    assert nb.dist_pdf(e, 1.0) == pytest.approx(0.5 * math.exp(-0.5))
    assert nb.dist_pdf(e, -1.0) == 0.0
    u = {"dist": "uniform", "min": 1.0, "max": 3.0}
    assert nb.dist_pdf(u, 2.0) == 0.5 and nb.dist_pdf(u, 3.5) == 0.0
    assert nb.dist_mean(u) == 2.0
    # The normal is truncated at 0 (core/dist.c redraws negatives): its density integrates to 1 over x >= 0.
    n = {"dist": "normal", "mean": 0.1, "sd": 0.1}
    assert nb.dist_pdf(n, -0.01) == 0.0
    assert nb.dist_pdf(n, 0.1) > 1 / (0.1 * math.sqrt(2 * math.pi))
    assert _integrate(n, 0.0, 1.0) == pytest.approx(1.0, rel=1e-4)
    assert nb.dist_mean(n) > 0.1
    for d, hi in ((ln, 5.0), (g, 20.0), (u, 4.0), (e, 60.0)):
        assert _integrate(d, 1e-9, hi) == pytest.approx(1.0, rel=2e-3)
    # Point masses and samples have no density.
    assert nb.dist_pdf({"dist": "const", "value": 0.3}, 0.3) is None
    assert nb.dist_mean(0.25) == 0.25
    assert nb.dist_pdf({"dist": "empirical", "samples": [1, 2]}, 1.5) is None
    assert nb.dist_mean({"dist": "empirical", "samples": [1, 2]}) == 1.5
    with pytest.raises(ValueError):
        nb.dist_params({"dist": "weibull"})


def test_histogram_is_a_density():
    edges, dens = nb.histogram([1.0, 1.0, 2.0, 3.0], bins=4)
    assert edges[0] == 1.0 and edges[-1] == 3.0 and len(dens) == 4
    assert sum(d * (edges[1] - edges[0]) for d in dens) == pytest.approx(1.0)
    assert dens[0] == pytest.approx(2 / 4 / 0.5)
    assert nb.histogram([]) == ([], [])
    edges, dens = nb.histogram([2.0, 2.0])
    assert sum(d * (edges[1] - edges[0]) for d in dens) == pytest.approx(1.0)


def test_validation_document(tmp_path, monkeypatch):
    doc = {"schema": "provesim.validation/1", "rows": [
        {"name": "k20-w2", "constraints": "2^20", "overrides": ["system.mutex=kernels", "system.workers_per_gpu=2"],
         "gpu_util": {"predicted": 0.9, "pi": [0.88, 0.92], "measured": 0.91, "nvidia_smi": None, "error_pp": -1.0},
         "throughput_pps": {"predicted": 5.0, "pi": [4.9, 5.1], "measured": 5.1, "error_pct": -1.96},
         "latency_p50_s": None, "latency_p99_s": {"predicted": 0.4, "pi": [0.3, 0.5], "measured": 0.41, "error_pct": -2.4},
         "within_target": True, "inside_pi": {"gpu_util": True, "throughput": True}}]}
    p = tmp_path / "v.json"
    p.write_text(json.dumps(doc))
    rows = nb.validation_rows(nb.read_validation(str(p)))
    r = rows[0]
    assert r["overrides"] == "system.mutex=kernels; system.workers_per_gpu=2"
    assert r["gpu_util.pi_lo"] == 0.88 and r["gpu_util.pi_hi"] == 0.92
    assert r["throughput_pps.measured"] == 5.1 and r["latency_p99_s.error_pct"] == -2.4
    assert r["latency_p50_s.predicted"] is None
    assert r["within_target"] is True and r["inside_pi.throughput"] is True
    bad = tmp_path / "b.json"
    bad.write_text(json.dumps({"schema": "provesim.sweep/1"}))
    with pytest.raises(ValueError):
        nb.read_validation(str(bad))
    # validation_paths: the environment overrides; a missing folder is a clear error.
    (tmp_path / "data" / "runs").mkdir(parents=True)
    monkeypatch.setenv("PROVESIM_VALIDATION_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("PROVESIM_VALIDATION_JSON", str(p))
    assert nb.validation_paths("/nowhere") == (str(tmp_path / "data"), str(p))
    monkeypatch.delenv("PROVESIM_VALIDATION_DATA")
    monkeypatch.delenv("PROVESIM_VALIDATION_JSON")
    with pytest.raises(FileNotFoundError, match="PROVESIM_VALIDATION_DATA"):
        nb.validation_paths(str(tmp_path / "empty-root"))


def test_read_calib_tsv(tmp_path):
    p = tmp_path / "c.tsv"
    p.write_text("# comment\ncal20-t6\t2^20\tsystem.mutex=kernels; system.threads.per_worker=6\n\n")
    assert nb.read_calib_tsv(str(p)) == [{"name": "cal20-t6", "size": "2^20",
                                          "overrides": ["system.mutex=kernels", "system.threads.per_worker=6"]}]
