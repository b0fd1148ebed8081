"""A whole-trace golden test: the subgraph trap sample, recorded, must equal tests/golden/subgraph_trap.json
field by field (tasks, writes, every reducer call, versions, the nested subgraph run). Any change to
what the engine records shows up here as a readable diff of one file.

Timings and the clock are the only things that vary between runs: durations are zeroed and the clock
and run id are injected. After a deliberate change to the trace, regenerate the file with
`STEPSCOPE_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_golden.py` and review its diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from engine.trace import Recorder
from engine.tracefile import to_dict
from sample_graphs.gallery import load_sample

GOLDEN = Path(__file__).parent / "golden" / "subgraph_trap.json"


def _without_timings(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: (0 if k == "duration" else _without_timings(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_timings(v) for v in value]
    return value


def recorded() -> dict[str, Any]:
    module = load_sample("subgraph_trap")
    recorder = Recorder(target="subgraph_trap", run_id="golden", clock=lambda: "2026-01-01T00:00:00+00:00")
    module.graph.invoke(module.example_input, dict(getattr(module, "example_config", None) or {}), hooks=recorder)
    return _without_timings(to_dict(recorder.trace))


def test_the_subgraph_trap_records_exactly_the_golden_trace():
    actual = json.loads(json.dumps(recorded(), sort_keys=True))
    if os.environ.get("STEPSCOPE_UPDATE_GOLDEN"):
        GOLDEN.write_text(json.dumps(actual, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    expected = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert actual == expected
