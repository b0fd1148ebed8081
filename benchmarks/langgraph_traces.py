"""The Traces the langgraph recorder makes, saved as JSON, to check that a change to the recorder left
every record as it was (the recorder's speed-ups must not change a byte of what it records).

    .venv/bin/python benchmarks/langgraph_traces.py save DIR      # record everything, one file per run
    .venv/bin/python benchmarks/langgraph_traces.py compare DIR   # record again and compare with DIR
                                                                  # (or with any of DIR1 DIR2 ...)

Recorded: the benchmark workloads (`workloads.py`), every gallery sample executed with langgraph
imports, every differential case and checkpoint scenario built by langgraph (tests/differential/),
and a `create_react_agent` run. What differs from run to run by nature is masked: run ids, start
times and durations, uuids (task and checkpoint ids, message ids: numbered by first appearance in
each file), interrupt ids, traceback line numbers and the recorder's own frames in tracebacks (they
change with its code). A run that differs is recorded again (up to 5 times): langgraph reports
parallel tasks that interrupt in the order they finished. Runs with PYTHONHASHSEED=0 (it starts
itself again so): langgraph iterates sets of names.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
import sys
import warnings
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "benchmarks")]

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\b[0-9a-f]{32}\b")
LINE = re.compile(r"line \d+")
OWN_FRAME = re.compile(r'  File "[^"]*/debugger/runtimes/langgraph/recorder/[^"]*", line \d+, in \S+\n(    .*\n)*')
TIMING = {"run_id", "started_at", "duration", "ended_at"}


def masked(value: Any, ids: dict[str, str]) -> Any:
    if isinstance(value, dict):
        return {masked(k, ids): ("<t>" if k in TIMING else masked(v, ids)) for k, v in value.items()}
    if isinstance(value, list):
        return [masked(v, ids) for v in value]
    if isinstance(value, str):
        value = OWN_FRAME.sub("", UUID.sub(lambda m: ids.setdefault(m.group(0), f"<id{len(ids)}>"), value))
        return LINE.sub("line N", value)
    return value


def text_of(trace: Any) -> str:
    from engine.tracefile import to_json

    return json.dumps(masked(json.loads(to_json(trace)), {}), indent=1, sort_keys=True)


def recorded(fn: Callable[[], Any]) -> list[Any]:
    from debugger.runtimes.langgraph.recorder import recording

    with recording(db=False) as session:
        try:
            fn()
        except Exception:  # noqa: BLE001 - a failing run is recorded too
            pass
    return list(session.traces)


def runs() -> dict[str, Callable[[], Any]]:
    import workloads
    from differential import test_checkpoint_differential as checkpoint_suite
    from differential.backends import get_backend
    from differential.cases import CASES
    from differential.harness import _with_timeout
    from test_langgraph_import import SAMPLE_GRAPHS, load_with_langgraph, sample_input
    from test_langgraph_recorder import react_agent

    from sample_graphs.gallery import load_sample

    lg = workloads.langgraph_namespace()
    found: dict[str, Callable[[], Any]] = {}
    for name, build in (("loop", workloads.build_loop), ("fan", workloads.build_fan)):
        app, inp, config = build(lg)
        found[f"bench-{name}"] = lambda app=app, inp=inp, config=config: app.invoke(copy.deepcopy(inp), config)
    app, inp, config = workloads.build_messages(lg)
    found["bench-messages"] = lambda: app.invoke(copy.deepcopy(inp), config)
    for sample, attribute in SAMPLE_GRAPHS:
        ours = load_sample(sample)
        compiled = getattr(load_with_langgraph(sample), attribute)
        graph_input = sample_input(ours, attribute)
        config = getattr(ours, "example_config", None)
        found[f"sample-{sample}.{attribute}"] = lambda c=compiled, i=graph_input, k=config: c.invoke(
            copy.deepcopy(i), k
        )
    backend = get_backend("langgraph")
    for name, case in CASES.items():

        def run_case(case: Any = case) -> Any:
            built = case.build(backend)
            graph = built.graph if built.graph is not None else built.builder.compile(**built.compile_kwargs)
            args = (built.input,) if built.config is None else (built.input, built.config)
            return _with_timeout(lambda: graph.invoke(*args))

        found[f"case-{name}"] = run_case
    for name, scenario in checkpoint_suite.SCENARIOS.items():
        found[f"scenario-{name}"] = lambda s=scenario: s(backend, checkpoint_suite.Recorder(backend))
    found["react-agent"] = lambda: react_agent().invoke({"messages": [react_messages()]})
    return found


def react_messages() -> Any:
    from langchain_core.messages import HumanMessage

    return HumanMessage("weather and time in Paris?", id="h1")


def record_all(only: set[str] | None = None) -> dict[str, str]:
    texts: dict[str, str] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, fn in runs().items():
            if only is None or name in only:
                for i, trace in enumerate(recorded(fn)):
                    texts[f"{name}.{i}"] = text_of(trace)
    return texts


def main() -> None:
    if os.environ.get("PYTHONHASHSEED") != "0":  # langgraph writes a set of edges in hash order
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONHASHSEED": "0"})
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=["save", "compare"])
    parser.add_argument("folders", type=Path, nargs="+", help="compare: a trace may equal its file in any of them")
    args = parser.parse_args()
    texts = record_all()
    if args.action == "save":
        (folder,) = args.folders
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in texts.items():
            (folder / f"{name}.json").write_text(text)
        print(f"{len(texts)} traces saved in {folder}")
        return
    saved: dict[str, set[str]] = {}
    for folder in args.folders:
        for path in folder.glob("*.json"):
            saved.setdefault(path.name[: -len(".json")], set()).add(path.read_text())
    differ = sorted(n for n in texts if texts[n] not in saved.get(n, ()))
    for _ in range(5):  # parallel tasks that interrupt are reported in the order they finished: try again
        if not differ:
            break
        again = record_all({n.rpartition(".")[0] for n in differ})
        differ = [n for n in differ if again.get(n) not in saved.get(n, ())]
    missing = sorted(set(saved) - set(texts))
    for name in differ:
        print(f"differs: {name}" if name in saved else f"new: {name}")
    for name in missing:
        print(f"missing: {name}")
    print(f"{len(texts)} traces, {len(differ)} differ, {len(missing)} missing")
    sys.exit(1 if differ or missing else 0)


if __name__ == "__main__":
    main()
