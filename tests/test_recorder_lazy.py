"""The Recorder builds records later for events whose values cannot change any more, and at once for
the others (engine/recorder.py). Both ways must give the same Trace, byte for byte in its file: here
every sample and every differential case is recorded twice, once lazily (a plain Recorder, read at the
end) and once with every event built as it comes (a Recorder with a sink, which must hand whole steps
over as they end), and the two files are compared."""

from __future__ import annotations

import itertools
import json
import warnings
from typing import Any

import pytest
from differential.backends import get_backend
from differential.cases import CASES
from test_golden import _without_timings

from engine.message_reducer import set_id_factory
from engine.trace import Recorder, RunRecord
from engine.tracefile import to_dict
from sample_graphs.gallery import SAMPLES, load_sample


class KeepSteps:
    """A sink that takes each finished step (so the recorder builds every event at once)."""

    def __init__(self) -> None:
        self.steps: list[Any] = []

    def flush(self, record: RunRecord) -> None:
        self.steps.extend(record.steps)
        record.steps.clear()


def recorded(run: Any, *, at_once: bool) -> str:
    """The trace file of one run (timings zeroed, message ids and clock fixed)."""
    counter = itertools.count()
    previous = set_id_factory(lambda: f"id-{next(counter)}")
    sink = KeepSteps() if at_once else None
    recorder = Recorder(run_id="same", clock=lambda: "2026-01-01T00:00:00+00:00", sink=sink)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run(recorder)
    except Exception:  # noqa: BLE001 - a failing run is recorded too, and compared like the others
        pass
    finally:
        set_id_factory(previous)
    trace = recorder.trace
    if trace is None:
        return "no run"
    if sink is not None:
        trace.steps[:0] = sink.steps
    return json.dumps(_without_timings(to_dict(trace)), sort_keys=True)


def _sample_run(name: str):
    def run(recorder: Recorder) -> None:
        module = load_sample(name)
        config = dict(getattr(module, "example_config", None) or {})
        module.graph.invoke(module.example_input, config, hooks=recorder)

    return run


def _case_run(name: str):
    def run(recorder: Recorder) -> None:
        built = CASES[name].build(get_backend("engine"))  # built afresh: some nodes count their calls
        graph = built.graph if built.graph is not None else built.builder.compile(**built.compile_kwargs)
        config = dict(built.config or {})
        graph.invoke(built.input, config, hooks=recorder)

    return run


@pytest.mark.parametrize("name", SAMPLES)
def test_sample_records_the_same_trace_built_later_or_at_once(name: str) -> None:
    assert recorded(_sample_run(name), at_once=False) == recorded(_sample_run(name), at_once=True)


BIG_LOOP_CASES = {"recursion_default_limit"}
"""Cases that run for seconds (10007 supersteps, recorded twice): `make test` runs them, `make check` not."""


@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=pytest.mark.slow) if name in BIG_LOOP_CASES else name for name in CASES]
)
def test_differential_case_records_the_same_trace_built_later_or_at_once(name: str) -> None:
    assert recorded(_case_run(name), at_once=False) == recorded(_case_run(name), at_once=True)


def test_values_changed_in_place_after_their_event_keep_their_recorded_state() -> None:
    """A lazily kept event holds copies: a node that appends to a list written two steps earlier
    cannot change what was recorded then, whether the trace is read during the run or after."""
    import operator
    from typing import Annotated, TypedDict

    from engine import END, START, StateGraph

    class S(TypedDict):
        items: Annotated[list, operator.add]
        flat: list
        n: int

    def first(state: S) -> dict:
        return {"items": [1], "flat": [1, 2], "n": 1}

    def mutate(state: S) -> dict:
        state["flat"].append(99)  # in place: the recorded step 1 must still say [1, 2]
        state["items"].append(98)
        return {"n": state["n"] + 1}

    g = StateGraph(S)
    g.add_node("first", first)
    g.add_node("mutate", mutate)
    g.add_edge(START, "first")
    g.add_edge("first", "mutate")
    g.add_edge("mutate", END)
    recorder = Recorder()
    g.compile().invoke({"items": [], "flat": [], "n": 0}, hooks=recorder)
    trace = recorder.trace
    step1 = next(s for s in trace.steps if s.step == 1)
    seen = [c.write for c in step1.reducer_calls]
    assert seen == [[1], [1, 2], 1]
    later = recorded(
        lambda r: g.compile().invoke({"items": [], "flat": [], "n": 0}, hooks=r),
        at_once=False,
    )
    assert later == recorded(lambda r: g.compile().invoke({"items": [], "flat": [], "n": 0}, hooks=r), at_once=True)
    step2 = next(s for s in trace.steps if s.step == 2)
    assert step2.state["flat"] == {"extend": [99]}  # the in-place change, shown outside the reducers


def test_reading_the_trace_while_the_run_goes_gives_each_step_once_and_the_same_final_trace() -> None:
    """Live runs read `recorder.trace` from another thread while events still come: each read builds
    what was kept so far, and the finished trace is the one recorded without reading."""
    import operator
    import threading
    import time
    from typing import Annotated, TypedDict

    from engine import END, START, StateGraph

    class S(TypedDict):
        items: Annotated[list, operator.add]
        n: int

    def step(state: S) -> dict:
        time.sleep(0.002)
        return {"items": [state["n"]], "n": state["n"] + 1}

    g = StateGraph(S)
    g.add_node("step", step)
    g.add_edge(START, "step")
    g.add_conditional_edges("step", lambda s: "step" if s["n"] < 60 else END, ["step", END])
    graph = g.compile()

    recorder = Recorder(run_id="same", clock=lambda: "2026-01-01T00:00:00+00:00")
    worker = threading.Thread(
        target=lambda: graph.invoke({"items": [], "n": 0}, {"recursion_limit": 100}, hooks=recorder)
    )
    worker.start()
    seen_steps: list[int] = []
    while worker.is_alive():
        trace = recorder.trace
        if trace is not None:
            numbers = [s.step for s in trace.steps]
            assert numbers == sorted(set(numbers))  # never a step twice, never out of order
            seen_steps.append(len(numbers))
        time.sleep(0.001)
    worker.join()
    assert len(set(seen_steps)) > 5  # the trace really was read while it grew
    read_while_running = json.dumps(_without_timings(to_dict(recorder.trace)), sort_keys=True)
    alone = recorded(lambda r: graph.invoke({"items": [], "n": 0}, {"recursion_limit": 100}, hooks=r), at_once=False)
    assert read_while_running == alone


def test_a_message_list_changed_in_place_by_a_node_is_recorded_outside_the_reducers() -> None:
    """The barrier's commit trusts the list a reducer call just made (no node runs in between), but a
    node that appends to its input's message list in place is still caught at the next call, as a
    `before` that is not the recorded value, and a replay of the steps gives the final state."""
    from engine import END, START, AIMessage, HumanMessage, MessagesState, StateGraph
    from engine.codec import apply_delta

    def speak(state: MessagesState) -> dict:
        return {"messages": [AIMessage("one", id="a1")]}

    def sneak(state: MessagesState) -> dict:
        state["messages"].append(AIMessage("sneaked", id="s1"))  # in place, behind the reducer's back
        return {"messages": [AIMessage("two", id="a2")]}

    g = StateGraph(MessagesState)
    g.add_node("speak", speak)
    g.add_node("sneak", sneak)
    g.add_edge(START, "speak")
    g.add_edge("speak", "sneak")
    g.add_edge("sneak", END)
    for at_once in (False, True):
        sink = KeepSteps() if at_once else None
        recorder = Recorder(sink=sink)
        final = g.compile().invoke({"messages": [HumanMessage("hi", id="h1")]}, hooks=recorder)
        steps = [*(sink.steps if sink else []), *recorder.trace.steps]
        sneak_call = next(c for s in steps for c in s.reducer_calls if c.writer_name == "sneak")
        assert [m["message"]["data"]["content"] for m in sneak_call.before["extend"]] == ["sneaked"]
        value: list = []
        for step in steps:
            for change in step.state.values():
                value = apply_delta(value, change)
            for call in step.reducer_calls:
                value = apply_delta(apply_delta(value, call.before), call.after)
        assert [m["message"]["data"]["content"] for m in value] == [m.content for m in final["messages"]]
