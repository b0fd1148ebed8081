"""A long stored run keeps states (issue 26 item 2): the state after chosen steps is stored beside the run,
so it opens at its last step, or any step, by folding from the nearest kept state, never from the first
step. Thresholds are lowered so a run of a few hundred steps takes the long-run path."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Annotated, TypedDict

import pytest

import engine
from debugger.diagnostics import snapshots
from debugger.diagnostics.replay import Replay
from debugger.stores import row_store
from debugger.stores import sqlite as sqlite_store
from debugger.stores.sqlite import RunStore
from engine.trace import Recorder


class Chat(TypedDict):
    n: int
    log: Annotated[list, lambda a, b: a + b]


def _run(steps: int) -> engine.trace.Trace:
    """A counter and a list that grows by one item a step."""
    g = engine.StateGraph(Chat)
    g.add_node("step", lambda s: {"n": s["n"] + 1, "log": [f"line {s['n']}"]})
    g.add_edge(engine.START, "step")
    g.add_conditional_edges("step", lambda s: "step" if s["n"] < steps else engine.END)
    recorder = Recorder()
    g.compile().invoke({"n": 0, "log": []}, {"recursion_limit": steps + 5}, hooks=recorder)
    return recorder.trace


@pytest.fixture
def small_gaps(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every stored run is long, and states are kept at most 16 steps apart."""
    monkeypatch.setattr(row_store, "STREAM_MIN_BYTES", 0)
    monkeypatch.setattr(snapshots, "MIN_GAP", 16)


class CountingReads:
    """Wraps a stored run's row reader: which step positions were read."""

    def __init__(self, trace) -> None:
        source = trace.steps.source
        self.positions: list[int] = []
        read = source.read
        first = {seq: i for i, seq in enumerate(source.seqs)}

        def counted(seqs):
            self.positions.extend(first[s] for s in range(seqs[0], seqs[-1] + 1) if s in first)
            return read(seqs)

        source.read = counted


def _saved(tmp_path, trace: engine.trace.Trace) -> tuple[Path, RunStore]:
    """`trace` saved in a new store under `tmp_path`: the database's path and the store."""
    path = tmp_path / "runs.sqlite3"
    store = RunStore(path)
    store.save(trace)
    return path, store


def _kept(db_path) -> list[int]:
    with sqlite3.connect(db_path) as db:
        return [p for (p,) in db.execute("SELECT position FROM run_snapshots ORDER BY position")]


def test_a_stored_long_run_opens_at_its_last_step_reading_no_step_before_it(tmp_path, small_gaps) -> None:
    trace = _run(200)
    store = RunStore(tmp_path / "runs.sqlite3")
    store.save(trace)
    kept = _kept(tmp_path / "runs.sqlite3")
    assert kept[-1] == len(trace.steps) - 1  # the last step is always kept
    loaded = store.load(trace.run_id)
    reads = CountingReads(loaded)
    replay = Replay(loaded)
    assert replay.state_after(replay.order[-1]) == Replay(trace).state_after(trace.steps[-1].step)
    assert reads.positions == []  # the kept state of the last step: no step was read at all
    assert replay.provenance(replay.order[-1], "log") == Replay(trace).provenance(trace.steps[-1].step, "log")


def test_every_step_of_a_stored_long_run_is_the_state_a_fold_from_the_start_gives(tmp_path, small_gaps) -> None:
    trace = _run(120)
    store = RunStore(tmp_path / "runs.sqlite3")
    store.save(trace)
    loaded = store.load(trace.run_id)
    reads = CountingReads(loaded)
    replay, plain = Replay(loaded), Replay(trace)
    for number in reversed(plain.order):  # stepping back: each from the nearest kept state before it
        assert replay.histories_after(number) == plain.histories_after(number)
    # a fold from the start reads every step once; stepping back from kept states reads each gap again,
    # never all the steps before each one
    assert len(reads.positions) < 2 * len(trace.steps) + 64


def test_a_growing_list_keeps_its_states_further_apart(tmp_path, small_gaps) -> None:
    trace = _run(400)
    RunStore(tmp_path / "runs.sqlite3").save(trace)
    kept = _kept(tmp_path / "runs.sqlite3")
    gaps = [b - a for a, b in zip(kept, kept[1:-1])]
    assert gaps and all(gap >= 16 for gap in gaps)
    assert gaps[-1] >= 4 * gaps[0]  # the list (one item a step) grows: kept when the steps since pay for it
    items = sum(position + 1 for position in kept[:-1])  # the log holds one item per step so far
    assert items <= 3 * len(trace.steps)  # not the whole list again every 16 steps


def test_a_run_first_opened_without_kept_states_keeps_them_then(tmp_path, small_gaps) -> None:
    trace = _run(100)
    path, store = _saved(tmp_path, trace)
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM run_snapshots")  # as a run stored by version 2 is, once migrated
    first = Replay(store.load(trace.run_id))
    first.state_after(first.order[-1])
    assert _kept(path) and _kept(path)[-1] == len(trace.steps) - 1
    again = store.load(trace.run_id)
    reads = CountingReads(again)
    assert Replay(again).state_after(first.order[-1]) == first.state_after(first.order[-1])
    assert reads.positions == []


def test_a_long_run_recorded_into_the_store_keeps_its_states_when_it_ends(tmp_path, small_gaps) -> None:
    from debugger.sources.recording import StoreSink

    path = tmp_path / "runs.sqlite3"
    store = RunStore(path)
    sink = StoreSink(store)
    g = engine.StateGraph(Chat)
    g.add_node("step", lambda s: {"n": s["n"] + 1, "log": [f"line {s['n']}"]})
    g.add_edge(engine.START, "step")
    g.add_conditional_edges("step", lambda s: "step" if s["n"] < 150 else engine.END)
    recorder = Recorder(sink=sink)
    g.compile().invoke({"n": 0, "log": []}, {"recursion_limit": 160}, hooks=recorder)
    sink.finish(recorder.trace)
    stored = store.load(recorder.trace.run_id)
    assert _kept(path) and _kept(path)[-1] == len(stored.steps) - 1  # before anyone opened it
    reads = CountingReads(stored)
    replay = Replay(stored)
    assert replay.state_after(replay.order[-1])["n"] == 150
    assert reads.positions == []  # its first open reads the last kept state, no step


def test_the_states_a_recorder_folds_as_it_streams_are_those_a_fold_of_the_stored_run_keeps(
    tmp_path, small_gaps
) -> None:
    """The sink folds each step as it is handed over (not reading the run back when it ends); what it keeps
    must be, row for row, what the first open's fold of the stored run would have kept."""
    from debugger.sources.recording import StoreSink

    path = tmp_path / "runs.sqlite3"
    store = RunStore(path)
    sink = StoreSink(store)
    g = engine.StateGraph(Chat)
    g.add_node("step", lambda s: {"n": s["n"] + 1, "log": [f"line {s['n']}"] * (s["n"] % 3)})
    g.add_edge(engine.START, "step")
    g.add_conditional_edges("step", lambda s: "step" if s["n"] < 120 else engine.END)
    recorder = Recorder(sink=sink)
    g.compile().invoke({"n": 0, "log": []}, {"recursion_limit": 130}, hooks=recorder)
    sink.finish(recorder.trace)

    def rows() -> list[tuple[int, str]]:
        with sqlite3.connect(path) as db:
            return list(db.execute("SELECT position, data FROM run_snapshots ORDER BY position"))

    streamed = rows()
    assert len(streamed) > 2 and streamed[-1][0] == len(store.load(recorder.trace.run_id).steps) - 1
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM run_snapshots")
    replay = Replay(store.load(recorder.trace.run_id))
    replay.state_after(replay.order[-1])  # the first open folds the run and keeps its states
    assert rows() == streamed


def test_a_damaged_kept_state_is_passed_over(tmp_path, small_gaps) -> None:
    trace = _run(100)
    path, store = _saved(tmp_path, trace)
    with sqlite3.connect(path) as db:
        db.execute('UPDATE run_snapshots SET data = \'{"format": 1, "channels": {"n": [5, [[0]]]}}\'')
    replay = Replay(store.load(trace.run_id))
    assert replay.state_after(replay.order[-1]) == Replay(trace).state_after(trace.steps[-1].step)


def test_replacing_or_deleting_a_run_removes_its_kept_states(tmp_path, small_gaps) -> None:
    path = tmp_path / "runs.sqlite3"
    store = RunStore(path)
    trace = _run(100)
    store.save(trace)
    other = _run(60)
    other.run_id = trace.run_id
    store.save(other)
    assert _kept(path)[-1] == len(other.steps) - 1
    replay = Replay(store.load(trace.run_id))
    assert replay.state_after(replay.order[-1]) == Replay(other).state_after(other.steps[-1].step)
    store.delete(trace.run_id)
    assert _kept(path) == []


def test_a_version_2_database_gets_the_kept_states_table(tmp_path) -> None:
    path = tmp_path / "runs.sqlite3"
    RunStore(path)
    with sqlite3.connect(path) as db:
        db.execute("DROP TABLE run_snapshots")
        db.execute("PRAGMA user_version = 2")
    RunStore(path).save(_run(5))
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == sqlite_store.VERSION == 5
        assert db.execute("SELECT count(*) FROM run_snapshots").fetchone()[0] == 0  # a short run keeps none


def test_a_version_3_database_without_the_table_is_refused_unchanged(tmp_path) -> None:
    path = tmp_path / "runs.sqlite3"
    RunStore(path)
    with sqlite3.connect(path) as db:
        db.execute("DROP TABLE run_snapshots")
    with pytest.raises(sqlite_store.StoreError, match="another shape; it was not changed"):
        RunStore(path)


# ---- long trace files: indexed and checked once, their states kept in the file cache -----------------


@pytest.fixture
def long_files(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    from debugger.sources import trace_check

    monkeypatch.setattr(trace_check, "STREAM_MIN_BYTES", 0)
    monkeypatch.setattr(snapshots, "MIN_GAP", 16)
    monkeypatch.setenv("STEPSCOPE_FILE_CACHE", str(tmp_path / "cache"))


def _file(tmp_path, trace) -> "Path":  # noqa: F821
    from engine.tracefile import to_json

    path = tmp_path / "run.json"
    path.write_text(to_json(trace), encoding="utf-8")
    return path


def test_a_long_file_opened_again_is_neither_scanned_nor_checked_nor_folded(tmp_path, long_files, monkeypatch):
    from debugger.sources import trace_stream
    from debugger.sources.trace_check import StreamCheck, read_trace_file

    trace = _run(120)
    path = _file(tmp_path, trace)
    first = Replay(read_trace_file(path))
    assert first.state_after(first.order[-1]) == Replay(trace).state_after(trace.steps[-1].step)

    def refuse(*args, **kwargs):
        raise AssertionError("read again")

    monkeypatch.setattr(trace_stream.StepIndex, "_scan", refuse)
    monkeypatch.setattr(StreamCheck, "step", refuse)
    monkeypatch.setattr(trace_stream.FileSteps, "load_range", refuse)
    monkeypatch.setattr(trace_stream.FileSteps, "loads", refuse)
    again = Replay(read_trace_file(path))
    assert again.state_after(again.order[-1]) == first.state_after(first.order[-1])
    assert again.provenance(again.order[-1], "log") == first.provenance(first.order[-1], "log")


def test_a_cached_file_rewritten_with_other_bytes_of_the_same_size_is_checked_again(tmp_path, long_files):
    from debugger.sources.trace_check import TraceFileError, read_trace_file

    trace = _run(60)
    path = _file(tmp_path, trace)
    read_trace_file(path)
    text = path.read_text(encoding="utf-8")
    damaged = text.replace('"channel": "log"', '"channel": "lgo"', 1)
    assert damaged != text and len(damaged) == len(text)
    stat = path.stat()
    path.write_text(damaged, encoding="utf-8")
    import os

    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # the same size and modification time
    with pytest.raises(TraceFileError, match="lgo"):
        read_trace_file(path)


def test_a_cache_turned_off_or_unwritable_leaves_the_file_opening_as_before(tmp_path, long_files, monkeypatch):
    from debugger.sources.trace_check import read_trace_file

    trace = _run(40)
    path = _file(tmp_path, trace)
    monkeypatch.setenv("STEPSCOPE_FILE_CACHE", "off")
    assert list(read_trace_file(path).steps) == trace.steps
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")
    monkeypatch.setenv("STEPSCOPE_FILE_CACHE", str(blocked / "cache"))
    replay = Replay(read_trace_file(path))
    assert replay.state_after(replay.order[-1]) == Replay(trace).state_after(trace.steps[-1].step)


def test_a_file_index_is_saved_packed_and_read_back_the_same(tmp_path, long_files) -> None:
    from array import array

    from debugger.sources.file_index import packed, unpacked
    from debugger.sources.trace_check import read_trace_file

    for values in ([], [5], [-1, 0, 1, 2], [3, -2, 2**62 - 1, -(2**62) + 1, 0], list(range(0, 10**6, 733))):
        assert list(unpacked(packed(array("q", values)))) == values
    assert len(packed(array("q", range(0, 733 * 200_000, 733)))) < 20_000  # 1.6 MB as an array
    trace = _run(50)
    path = _file(tmp_path, trace)
    first = read_trace_file(path).steps.source.index
    again = read_trace_file(path).steps.source.index
    assert again is not first and (again.starts, again.ends) == (first.starts, first.ends)
    assert again.numbers == first.numbers == range(-1, len(trace.steps) - 1)  # one after another: no array
    assert list(read_trace_file(path).steps) == trace.steps


def test_step_numbers_that_do_not_run_one_after_another_stay_as_they_are() -> None:
    from array import array

    from debugger.sources.trace_stream import one_after_another

    assert one_after_another(array("q", [-1, 0, 1])) == range(-1, 2)
    for kept in ([], [0, 2, 3], [0, 1, 1], [3, 2]):
        assert one_after_another(array("q", kept)) == array("q", kept)


def test_a_long_stored_run_keeps_a_bounded_number_of_folded_states_in_memory(tmp_path, small_gaps, monkeypatch):
    from debugger.diagnostics import replay as replay_module

    monkeypatch.setattr(replay_module, "STATES_IN_MEMORY", 3)
    trace = _run(400)
    store = RunStore(tmp_path / "runs.sqlite3")
    store.save(trace)
    stored = Replay(store.load(trace.run_id))
    whole = Replay(trace)
    for step in stored.order:
        assert stored.state_after(step) == whole.state_after(step)
    assert len(stored._states) == 3 and len(whole._states) > 3  # steps in memory: every 32nd kept
    for step in (stored.order[5], stored.order[-1], stored.order[200]):  # back again: from the shelf's states
        assert stored.state_after(step) == whole.state_after(step)
        assert stored.provenance(step, "log") == whole.provenance(step, "log")


def test_a_kept_state_is_stored_compressed_and_one_of_format_1_still_reads() -> None:
    from debugger.diagnostics.replay import ChannelHistory, Origin

    channels = {
        "log": ChannelHistory(
            [f"line {i} \udc80" for i in range(500)], [Origin(i, "step", f"task-{i}", 0) for i in range(500)]
        ),
        "n": ChannelHistory(500, []),
    }
    text = snapshots.pack(channels)
    plain = json.dumps(
        {
            "format": 1,
            "channels": {
                key: [h.value, [[o.step, o.task, o.task_id, o.call_index] for o in h.origins]]
                for key, h in channels.items()
            },
        }
    )
    assert text.startswith(snapshots.PACKED) and len(text) * 3 < len(plain)
    assert snapshots.unpack(text) == channels
    assert snapshots.unpack(plain) == channels  # a run stored before kept states were compressed
    assert snapshots.unpack(snapshots._packed({**json.loads(plain), "format": 2})) == channels  # before deltas
    assert snapshots.unpack(snapshots.PACKED + "not base64!") is None  # damaged: folded from the steps instead


def test_folding_in_place_while_recording_changes_no_step_record_and_gives_the_plain_fold() -> None:
    """`StatesToKeep` appends each step's new items to the list it holds (no copy of the grown list a
    step); a list that is a step record's own (the input's, a node's whole new list) is copied first."""
    from debugger.diagnostics.replay import fold_step

    g = engine.StateGraph(Chat)

    def step(s):
        if s["n"] == 3:  # a plain list written over the reducer's result: a `set`/`splice` mid-run
            return {"n": s["n"] + 1, "log": engine.Overwrite(["reset"])}
        return {"n": s["n"] + 1, "log": [f"line {s['n']}"] * (1 + s["n"] % 2)}

    g.add_node("step", step)
    g.add_edge(engine.START, "step")
    g.add_conditional_edges("step", lambda s: "step" if s["n"] < 12 else engine.END)
    recorder = Recorder()
    g.compile().invoke({"n": 0, "log": ["given"]}, {"recursion_limit": 20}, hooks=recorder)
    steps = recorder.trace.steps
    recorded = json.dumps([[c.before, c.after] for s in steps for c in s.reducer_calls] + [s.state for s in steps])

    folded = snapshots.StatesToKeep(None)
    plain: snapshots.States = {}
    for record in steps:
        folded.add(record)
        fold_step(plain, record)
        assert folded.channels == plain
    assert folded.owned == {"log"} and plain["log"].value[:2] == ["reset", "line 4"]
    assert (
        json.dumps([[c.before, c.after] for s in steps for c in s.reducer_calls] + [s.state for s in steps]) == recorded
    )


# ---- kept states as deltas of the one before ---------------------------------------------------------


def _json(text: str) -> dict:
    """A packed state's JSON, whole or delta."""
    import base64
    import zlib

    return json.loads(zlib.decompress(base64.b64decode(text[len(snapshots.PACKED) :])))


def _shelf(rows: dict[int, str]) -> snapshots.SnapshotShelf:
    """A shelf on `rows` ({position: text}), as a store's table."""
    return snapshots.SnapshotShelf(rows, rows.get, rows.update, -1)


def _folds(trace, positions) -> dict[int, snapshots.States]:
    """The plain fold from the first step (a copy per step, as `Replay`'s) at each of `positions`."""
    from debugger.diagnostics.replay import ChannelHistory, fold_step

    channels: snapshots.States = {}
    found = {}
    for position, step in enumerate(trace.steps):
        channels = {
            k: ChannelHistory(list(h.value) if type(h.value) is list else h.value, list(h.origins))
            for k, h in channels.items()
        }
        fold_step(channels, step)
        if position in positions:
            found[position] = channels
    return found


def test_a_growing_lists_kept_states_after_the_first_are_deltas_and_read_back_as_the_plain_fold(small_gaps) -> None:
    trace = _run(600)
    states = snapshots.StatesToKeep(len(trace.steps))
    for step in trace.steps:
        states.add(step)
    kept = dict(states.end())
    positions = sorted(kept)
    folds = _folds(trace, positions)
    assert len(positions) >= 6 and positions[-1] == len(trace.steps) - 1
    assert "base" not in _json(kept[positions[0]])
    for before, position in zip(positions, positions[1:]):
        data = _json(kept[position])
        assert data["base"] == before and data["channels"]["log"][0] == "extend"
        assert 3 * len(kept[position]) < 2 * len(snapshots.pack(folds[position]))  # about what is new: half
    shelf = _shelf(kept)
    for position in positions:
        assert shelf.nearest(position) == (position, folds[position])
    # whole, the five states after the first held the log's first items again and again
    assert 2 * sum(map(len, kept.values())) < sum(len(snapshots.pack(folds[p])) for p in positions)


def test_a_damaged_base_makes_its_deltas_fall_back_to_an_earlier_readable_state(tmp_path, small_gaps) -> None:
    trace = _run(400)
    path, store = _saved(tmp_path, trace)
    kept = _kept(path)
    assert len(kept) >= 5
    with sqlite3.connect(path) as db:
        db.execute("UPDATE run_snapshots SET data = 'z:garbage' WHERE position = ?", (kept[2],))
    shelf = store.load(trace.run_id).steps.snapshots
    position, state = shelf.nearest(kept[-1])
    assert position == kept[1]  # a delta onto the whole first state, both readable
    assert state == _folds(trace, {kept[1]})[kept[1]]
    replay = Replay(store.load(trace.run_id))
    whole = Replay(trace)
    assert replay.histories_after(replay.order[-1]) == whole.histories_after(whole.order[-1])


def test_a_list_edited_in_the_middle_is_kept_whole_or_set_and_reads_back(small_gaps) -> None:
    from debugger.diagnostics.replay import fold_step

    g = engine.StateGraph(Chat)

    def step(s):
        if s["n"] == 40:  # the first item changed, every other kept: no longer the same list grown at its end
            return {"n": s["n"] + 1, "log": engine.Overwrite(["edited", *s["log"][1:]])}
        return {"n": s["n"] + 1, "log": [f"line {s['n']}"]}

    g.add_node("step", step)
    g.add_edge(engine.START, "step")
    g.add_conditional_edges("step", lambda s: "step" if s["n"] < 120 else engine.END)
    recorder = Recorder()
    g.compile().invoke({"n": 0, "log": ["given"]}, {"recursion_limit": 130}, hooks=recorder)
    states = snapshots.StatesToKeep(len(recorder.trace.steps))
    for record in recorder.trace.steps:
        states.add(record)
    kept = dict(states.end())
    positions = sorted(kept)
    edited = next(p for p in positions if p > 40)
    data = _json(kept[edited])
    assert "base" not in data or data["channels"]["log"][0] == "set"
    folds = _folds(recorder.trace, positions)
    assert folds[edited]["log"].value[0] == "edited"
    shelf = _shelf(kept)
    for position in positions:
        assert shelf.nearest(position) == (position, folds[position])
    plain: snapshots.States = {}
    for record in recorder.trace.steps:
        fold_step(plain, record)
    assert shelf.nearest(positions[-1]) == (positions[-1], plain)


def test_equal_looking_items_that_are_not_the_same_are_set_not_taken_as_kept() -> None:
    from debugger.diagnostics.replay import ChannelHistory, Origin

    origin = Origin(0, "step", "t", 0)
    rows: dict[int, str] = {}
    shelf = _shelf(rows)
    big = ChannelHistory(["x"] * 100, [origin] * 100)  # unchanged: a delta is worth writing
    before = {"flags": ChannelHistory([1, 0, 0], [origin] * 3), "n": ChannelHistory(1, [origin]), "big": big}
    shelf.keep(0, before)
    after = {  # 1 == True and 1 == 1.0 in Python, not in the state shown
        "flags": ChannelHistory([True, *before["flags"].value[1:]], before["flags"].origins),
        "n": ChannelHistory(1.0, before["n"].origins),
        "big": big,
    }
    shelf.keep(1, after)
    shelf.flush()
    assert _json(rows[1])["base"] == 0 and _json(rows[1])["channels"].keys() == {"flags", "n"}
    assert _json(rows[1])["channels"]["flags"][0] == "set"
    found = shelf.nearest(1)
    assert found == (1, after) and type(found[1]["flags"].value[0]) is bool and type(found[1]["n"].value) is float


def test_a_chain_of_deltas_is_bounded_and_a_longer_or_looping_one_is_not_read() -> None:
    from debugger.diagnostics.replay import ChannelHistory, Origin

    origin = Origin(0, "step", "t", 0)
    big = ChannelHistory([f"item {i}" for i in range(1000)], [origin] * 1000)  # never changes
    rows: dict[int, str] = {}
    shelf = _shelf(rows)
    states = {}
    for position in range(30):
        states[position] = {"n": ChannelHistory(position, [Origin(position, "step", "t", 0)]), "big": big}
        shelf.keep(position, states[position])
    shelf.flush()
    whole = [p for p in range(30) if "base" not in _json(rows[p])]
    assert whole == list(range(0, 30, snapshots.MAX_CHAIN + 1))
    assert all(len(rows[p]) * 20 < len(rows[0]) for p in range(30) if p not in whole)
    for position in range(30):
        assert shelf.nearest(position) == (position, states[position])

    def delta_of(base: int) -> str:
        return snapshots._packed({"format": 3, "base": base, "channels": {"n": ["set", 5, [[0, "s", "t", 0]]]}})

    chain = {0: rows[0], **{p: delta_of(p - 1) for p in range(1, snapshots.MAX_CHAIN + 2)}}
    assert snapshots.unpack(chain[snapshots.MAX_CHAIN], chain.get, snapshots.MAX_CHAIN) is not None
    assert snapshots.unpack(chain[snapshots.MAX_CHAIN + 1], chain.get, snapshots.MAX_CHAIN + 1) is None
    looping = {3: delta_of(4), 4: delta_of(3)}
    assert snapshots.unpack(looping[4], looping.get, 4) is None  # a base must come before its delta
    assert _shelf(looping).nearest(10) is None
    assert snapshots.unpack(delta_of(5), {5: rows[0]}.get, 2) is None


def test_damaged_delta_content_reads_as_no_state() -> None:
    from debugger.diagnostics.replay import ChannelHistory, Origin

    rows = {0: snapshots.pack({"log": ChannelHistory(["a"], [Origin(0, "s", "t", 0)]), "n": ChannelHistory(1, [])})}
    good = [[1, "s", "t", None]]
    for changes in (
        {"log": ["extend", "b", good]},  # not a list of items
        {"n": ["extend", ["b"], good]},  # extends a value that is not a list
        {"gone": ["extend", ["b"], good]},
        {"log": ["splice", ["b"], good]},
        {"log": ["set", ["b"], [[1, "s", 2, None]]]},  # an origin's task id not a string
        {"log": ["set", ["b"]]},
        {"log": "set"},
    ):
        text = snapshots._packed({"format": 3, "base": 0, "channels": changes})
        assert snapshots.unpack(text, rows.get, 1) is None, changes
    for base in ("0", None, -1, 1, 2.0):
        text = snapshots._packed({"format": 3, "base": base, "channels": {}})
        assert snapshots.unpack(text, rows.get, 1) is None, base
    assert snapshots.unpack(snapshots._packed({"format": 2, "base": 0, "channels": {}}), rows.get, 1) is None
    assert snapshots.unpack(snapshots._packed({"format": 3, "base": 0, "channels": {}}), rows.get, 1) is not None


def test_a_run_folded_in_two_writes_keeps_a_delta_on_a_state_of_the_first(tmp_path, small_gaps) -> None:
    """`Replay` writes what it kept after each fold: stepping to the middle, then to the end, writes the
    later deltas in a batch of their own, on a base the first batch wrote."""
    trace = _run(300)
    path, store = _saved(tmp_path, trace)
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM run_snapshots")
    first = Replay(store.load(trace.run_id))
    whole = Replay(trace)
    middle = first.order[150]
    assert first.state_after(middle) == whole.state_after(middle)
    written = _kept(path)
    assert written and written[-1] < 150
    first.state_after(first.order[-1])
    with sqlite3.connect(path) as db:
        rows = dict(db.execute("SELECT position, data FROM run_snapshots"))
    after = sorted(rows)
    assert after[: len(written)] == written and len(after) > len(written)
    assert _json(rows[after[len(written)]])["base"] == written[-1]  # the first batch's last state
    again = store.load(trace.run_id)
    reads = CountingReads(again)
    replay = Replay(again)
    assert replay.histories_after(replay.order[-1]) == whole.histories_after(whole.order[-1])
    assert reads.positions == []
