"""Every trace read is validated first (issue 14, part 2): depth bombs and oversized files are refused
unread, every field is checked against one schema, and the message is one line naming the file and
the first offending field. A fuzzer mutates real trace files and checks that no later command ever
crashes on what validation let through."""

import contextlib
import dataclasses
import io
import json
import random
from pathlib import Path

import pytest

from debugger import cli
from debugger.model.trace_view import Scope, TraceView
from debugger.sources.runs import OpenError, open_upload
from debugger.sources.trace_check import MAX_NESTING, TraceFileError, nesting_depth, read_trace_file
from debugger.sources.trace_schema import ReducerCallFile, RunFile, StepFile, TaskFile, TraceFile
from debugger.stores.sqlite import RunStore
from engine.trace import Recorder, ReducerCallRecord, RunRecord, StepRecord, TaskRecord, Trace
from engine.tracefile import to_json
from tests.test_replay_and_store import concat_graph, recorded, trap_trace


def good_file(tmp_path, name="good.json", trace=None):
    path = tmp_path / name
    path.write_text(to_json(trace or trap_trace(), indent=1))
    return path


def mutated(tmp_path, change, name="bad.json"):
    data = json.loads(to_json(trap_trace()))
    change(data)
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def run_cli(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(args))
    return code, out.getvalue(), err.getvalue()


def test_a_depth_bomb_is_refused_by_import_show_diagnose_and_the_upload(tmp_path):
    bomb = tmp_path / "bomb.json"
    bomb.write_text('{"schema_version": 1, "run_id": "x", "input": ' + "[" * 100_000 + "]" * 100_000 + "}")
    assert nesting_depth(bomb.read_text(), MAX_NESTING) == MAX_NESTING + 1
    db = str(tmp_path / "db.sqlite3")
    for command in (["import", str(bomb)], ["show", str(bomb)], ["diagnose", str(bomb)]):
        code, out, err = run_cli(*command, "--db", db)
        assert code == 2 and f"{bomb} is nested more than {MAX_NESTING} levels deep" in err
        assert err.count("\n") == 1
    with pytest.raises(OpenError, match="nested more than"):
        open_upload(bomb.read_bytes(), "bomb.json", db=db)


def test_an_oversized_file_is_refused_before_it_is_read(tmp_path, monkeypatch):
    path = good_file(tmp_path)
    monkeypatch.setenv("STEPSCOPE_MAX_TRACE_MB", "0.001")
    with pytest.raises(TraceFileError, match="good.json is .* MB; traces up to 0 MB .*STEPSCOPE_MAX_TRACE_MB"):
        read_trace_file(path)


@pytest.mark.parametrize(
    "change, expected",
    [
        (lambda d: d.update(graph=None), "graph is null: Input should be a valid dictionary"),
        (lambda d: d.update(status=[1]), "status is list: Input should be"),
        (lambda d: d.update(status="finished"), 'status is "finished": Input should be'),
        (lambda d: d.update(run_id=None), "run_id is null"),
        (lambda d: d.update(run_id=""), 'run_id is ""'),
        (lambda d: d.update(schema_version=0), "schema_version is 0; trace files have versions 1 to"),
        (lambda d: d.update(schema_version=-1), "schema_version is -1"),
        (lambda d: d.update(schema_version=True), "schema_version is true"),
        (lambda d: d.update(schema_version="1"), 'schema_version is "1"'),
        (lambda d: d["steps"][2]["reducer_calls"][0].update(after={"extend": 5}), "steps[2].reducer_calls[0].after is"),
        (lambda d: d["steps"][2]["reducer_calls"][0].update(before={"grow": []}), "not a delta"),
        (lambda d: d.update(error={"$type": "error", "class": "E"}), "error.message is missing"),
        (lambda d: d["steps"][1]["tasks"][0].update(name=7), "steps[1].tasks[0].name is 7"),
        (lambda d: d["steps"][1].update(surprise=1), "steps[1].surprise is not a field"),
        (lambda d: d.update(input={"$type": "message", "message": 3}), "input.message: should be dict"),
        (lambda d: d.update(input={"$type": "pickle", "data": "..."}), "unknown recorded value type 'pickle'"),
        (lambda d: d["steps"][2]["reducer_calls"][0].update(after={"merge": {"a": 1}}), "merges keys into 'log'"),
    ],
)
def test_each_mistyped_field_is_named_in_one_line(tmp_path, change, expected):
    path = mutated(tmp_path, change)
    with pytest.raises(TraceFileError) as caught:
        read_trace_file(path)
    message = str(caught.value)
    assert message.startswith(str(path)) and expected in message, message
    assert "\n" not in message


def test_a_newer_schema_version_asks_for_an_upgrade(tmp_path):
    path = mutated(tmp_path, lambda d: d.update(schema_version=99))
    with pytest.raises(TraceFileError, match="newer StepScope"):
        read_trace_file(path)


def test_a_valid_file_loads_to_the_same_trace(tmp_path):
    trace = trap_trace()
    assert read_trace_file(good_file(tmp_path, trace=trace)) == trace


# ---- the fuzzer ----------------------------------------------------------------------------------

OTHER_VALUES = [None, True, -1, 0, 2.5, "", "x", [], [1], {}, {"$type": "nope"}, {"same": True}, [[["deep"]]]]


def _nodes(data, path=()):
    yield path, data
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _nodes(value, (*path, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from _nodes(value, (*path, index))


def _set(data, path, value):
    target = data
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value


def mutations(text: str, rng: random.Random, count: int):
    raw = text.encode("utf-8")
    base = json.loads(text)
    paths = [p for p, _ in _nodes(base) if p]
    for number in range(count):
        kind = number % 4
        if kind == 0:
            cut = rng.randrange(len(raw))
            yield f"truncated at {cut}", raw[:cut]
        elif kind == 1:
            flipped = bytearray(raw)
            for _ in range(rng.randint(1, 3)):
                flipped[rng.randrange(len(flipped))] ^= 1 << rng.randrange(8)
            yield "bytes flipped", bytes(flipped)
        elif kind == 2:
            data = json.loads(text)
            path = rng.choice(paths)
            _set(data, path, rng.choice(OTHER_VALUES))
            yield f"{path} mistyped", json.dumps(data).encode()
        else:
            data = json.loads(text)
            path = rng.choice(paths)
            parent = data
            for part in path[:-1]:
                parent = parent[part]
            if isinstance(parent, dict):
                del parent[path[-1]]
            else:
                parent.pop(path[-1])
            yield f"{path} removed", json.dumps(data).encode()


def every_later_command(path: Path, db: str) -> None:
    """What a user does next with a file validation accepted: none of it may raise."""
    for command in (["show", str(path)], ["diagnose", str(path)], ["import", str(path), "--replace"], ["runs"]):
        code, _, err = run_cli(*command, "--db", db)
        assert code in (0, 1, 2), (command, err)
    trace = read_trace_file(path)
    view = TraceView(trace)
    stack = [Scope()]
    while stack:
        scope = stack.pop()
        run = view.view(scope)
        run.timeline  # noqa: B018  (a cached property: computing it is the check)
        for step in run.steps:
            run.merge(step)
            run.state(step)
            run.diff(step)
            run.versions(step)
            run.error(step)
            run.triggers(step)
            run.dot(step)
            for task, index, _ in run.subgraph_runs(step):
                stack.append(scope.enter(step, task.id, index))
    stored = RunStore(db).load(trace.run_id)
    assert stored == trace


def fuzz_sources():
    yield "subgraph_trap", to_json(trap_trace())
    yield "concat", to_json(recorded(concat_graph(), {"s": "", "log": []}))
    from sample_graphs.gallery import SAMPLES, load_sample

    for name in ("parallel_conflict", "command_goto"):
        if name in SAMPLES:
            module = load_sample(name)
            recorder = Recorder(target=name)
            try:
                module.graph.invoke(
                    module.example_input, dict(getattr(module, "example_config", None) or {}), hooks=recorder
                )
            except Exception:  # a lesson about an error: the failing run is what we fuzz
                pass
            yield name, to_json(recorder.trace)


@pytest.mark.slow  # hundreds of mutated files, each through every later command: seconds
def test_fuzzed_trace_files_never_raise_and_never_break_a_later_command(tmp_path):
    rng = random.Random(14)
    db = str(tmp_path / "fuzz.sqlite3")
    accepted = refused = 0
    for name, text in fuzz_sources():
        for number, (what, data) in enumerate(mutations(text, rng, 120)):
            path = tmp_path / f"{name}-{number}.json"
            path.write_bytes(data)
            try:
                read_trace_file(path)
            except TraceFileError as exc:
                refused += 1
                assert "\n" not in str(exc) and str(path) in str(exc), (what, str(exc))
                continue
            except Exception as exc:  # pragma: no cover - what this test exists to catch
                pytest.fail(f"{name} {what}: {type(exc).__name__}: {exc}")
            accepted += 1
            try:
                every_later_command(path, db)
            except Exception as exc:
                import traceback

                pytest.fail(f"{name} {what}: accepted, then {type(exc).__name__}: {exc}\n{traceback.format_exc()}")
    assert refused > 100 and accepted > 20  # both sides of the gate were exercised


@pytest.mark.parametrize(
    "record, schema",
    [
        (TaskRecord, TaskFile),
        (ReducerCallRecord, ReducerCallFile),
        (StepRecord, StepFile),
        (RunRecord, RunFile),
        (Trace, TraceFile),
    ],
)
def test_the_file_schema_declares_every_field_the_recorder_writes(record, schema):
    """A field added to a record type must be added to the file schema too, or stored runs stop opening."""
    recorded = {f.name for f in dataclasses.fields(record)}
    declared = {field.alias or name for name, field in schema.model_fields.items()}
    assert recorded == declared
