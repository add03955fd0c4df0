"""Tests of provesim_nb: CSV/JSON reading on small fixtures, grouping, the frontier, and
(when the provesim binary is available) a real sweep."""
import json
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
