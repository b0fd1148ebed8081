"""Every sample graph and benchmark workload recorded, its Trace saved as JSON: run it before and after a
change to the Recorder or the trace writer and compare the two folders (`--compare OLD`), so a faster
recording is known to write byte-identical traces.

Run: `.venv/bin/python benchmarks/trace_snapshot.py OUT_DIR [--compare OLD_DIR]`.

Each graph is recorded four ways: the Trace read once at the end (events built late), read after every
step (built as they come), with a checkpointer (checkpoint events), and with a sink that takes each
finished step (built at once). The clock, run id, message ids (`uuid.uuid4`) and checkpoint ids are injected;
durations are the only thing zeroed (they differ in every run).
"""

from __future__ import annotations

import argparse
import copy
import itertools
import logging
import re
import sys
import uuid
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workloads import build_fan, build_loop, build_messages  # noqa: E402

import engine  # noqa: E402
from engine.trace import Recorder  # noqa: E402
from engine.tracefile import to_json  # noqa: E402
from sample_graphs.gallery import SAMPLES, load_sample  # noqa: E402

_UUID4 = uuid.uuid4
CLOCK = "2026-01-01T00:00:00+00:00"
_DURATION = re.compile(r'"(duration|retry_in)": [0-9.e-]+')


class Reading(Recorder):
    """A Recorder whose Trace is read after every step (each event built before the next comes)."""

    def step_committed(self, **kwargs: Any) -> None:
        super().step_committed(**kwargs)
        self.trace  # noqa: B018


class Keep:
    """A sink that keeps each step's JSON as it is handed over."""

    def __init__(self) -> None:
        self.steps: list[Any] = []

    def flush(self, record: Any) -> None:
        self.steps.extend(record.steps)
        record.steps.clear()


def graphs() -> list[tuple[str, Any, Any, dict]]:
    found = []
    for sample in SAMPLES:
        module = load_sample(sample)
        config = dict(getattr(module, "example_config", None) or {})
        for name, value in sorted(vars(module).items()):
            if name.startswith("_") or type(value).__name__ != "CompiledStateGraph":
                continue
            given = module.example_input
            if name == "fixed_graph":
                given = getattr(module, "fixed_input", given)
            found.append((f"{sample}.{name}", value, given, config))
    for build in (build_loop, build_fan, build_messages):
        app, given, config = build(engine)
        found.append((build.__name__, app, given, config))
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from differential.cases import CASES

    for name, case in sorted(CASES.items()):
        found.append((f"case.{name}", case, None, {}))
    return found


def get_backend(name: str) -> Any:
    from differential.backends import get_backend

    return get_backend(name)


def record(graph: Any, given: Any, config: dict, way: str) -> str:
    ids = itertools.count()
    uuid.uuid4 = lambda: uuid.UUID(int=next(ids))  # the ids `add_messages` gives (engine.message_reducer)
    sink = Keep() if way == "sink" else None
    recorder = (Reading if way == "read" else Recorder)(target="t", run_id="r", clock=lambda: CLOCK, sink=sink)
    if given is None:  # a differential case: built afresh (some nodes count their calls)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                built = graph.build(get_backend("engine"))
                graph = built.graph if built.graph is not None else built.builder.compile(**built.compile_kwargs)
        except Exception as exc:  # a case whose graph does not build
            return f"not built: {type(exc).__name__}\n"
        given, config = built.input, built.config or {}
    config = dict(config)
    if way == "saver":
        steps = itertools.count()
        graph = copy.copy(graph)
        graph.checkpointer = engine.InMemorySaver(ids=lambda step: f"cp-{next(steps):06d}", clock=lambda: CLOCK)
        config["configurable"] = {"thread_id": "th"}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            graph.invoke(copy.deepcopy(given), config, hooks=recorder)
    except Exception as exc:  # a lesson may be the error itself
        error = f"{type(exc).__name__}\n"
    else:
        error = ""
    finally:
        uuid.uuid4 = _UUID4
    trace = recorder.trace
    if trace is None:
        return error + "no run\n"
    if sink is not None:
        trace.steps[:0] = sink.steps
    return error + _DURATION.sub(r'"\1": 0', to_json(trace, indent=None)) + "\n"


def main() -> None:
    logging.disable(logging.WARNING)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--compare", type=Path)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for name, graph, given, config in graphs():
        for way in ("late", "read", "saver", "sink"):
            (args.out / f"{name}.{way}.json").write_text(record(graph, given, config, way), encoding="utf-8")
    if args.compare:
        old = {p.name: p.read_bytes() for p in args.compare.glob("*.json")}
        new = {p.name: p.read_bytes() for p in args.out.glob("*.json")}
        differ = sorted(n for n in old.keys() | new.keys() if old.get(n) != new.get(n))
        print(f"{len(new)} traces, {len(differ)} differ" + "".join(f"\n  {n}" for n in differ))
        raise SystemExit(1 if differ else 0)
    print(f"{len(list(args.out.glob('*.json')))} traces in {args.out}")


if __name__ == "__main__":
    main()
