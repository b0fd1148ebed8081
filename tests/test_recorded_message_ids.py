"""A message written without an id gets its id from `add_messages`, in place, after the task's write
was recorded: every step's recorded state must show the id the run gave it, as the run's own
checkpoints hold it (the same run, so the ids can be compared; other tests strip ids because two runs
draw different ones). Found on a 10,000-message run whose steps showed the input message without
the id its output had."""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

import pytest

import engine
from debugger.diagnostics.replay import Replay
from engine.codec import encode
from engine.recorder import Recorder
from engine.tracefile import from_json, to_json

STEPS = 3


def _build(lib: Any, saver: Any) -> Any:
    State = TypedDict("State", {"messages": Annotated[list, lib.add_messages]})  # noqa: UP013 - the reducer is the library's

    def speak(state: dict) -> dict:
        return {"messages": [lib.AIMessage(content=f"turn {len(state['messages'])}")]}

    def again(state: dict) -> str:
        return "speak" if len(state["messages"]) < STEPS else lib.END

    g = lib.StateGraph(State)
    g.add_node("speak", speak)
    g.add_edge(lib.START, "speak")
    g.add_conditional_edges("speak", again, ["speak", lib.END])
    return g.compile(checkpointer=saver)


def _inputs(lib: Any) -> list[Any]:
    return [
        {"messages": [lib.HumanMessage(content="hi")]},
        {"messages": [{"role": "user", "content": "hi"}]},
        {"messages": lib.HumanMessage(content="hi")},
    ]


def _assert_states_have_the_runs_ids(trace: Any, app: Any, config: dict) -> None:
    history = {s.metadata["step"]: encode(s.values) for s in app.get_state_history(config)}
    replay = Replay(from_json(to_json(trace)))
    compared = 0
    for step in trace.steps:
        if step.step in history and step.step >= 0:
            assert replay.state_after(step.step) == history[step.step], f"step {step.step}"
            compared += 1
    assert compared == STEPS
    assert replay.state_after(trace.steps[-1].step) == trace.output


class _EngineLib:
    from engine import END, START, AIMessage, HumanMessage, StateGraph, add_messages

    InMemorySaver = engine.InMemorySaver


@pytest.mark.parametrize("index", range(3))
def test_engine_steps_show_the_id_add_messages_gave_a_written_message(index: int) -> None:
    app = _build(_EngineLib, _EngineLib.InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    recorder = Recorder()
    app.invoke(_inputs(_EngineLib)[index], config, hooks=recorder)
    _assert_states_have_the_runs_ids(recorder.trace, app, config)


@pytest.mark.parametrize("index", range(3))
def test_langgraph_steps_show_the_id_add_messages_gave_a_written_message(index: int) -> None:
    pytest.importorskip("langgraph")
    from langchain_core.messages import AIMessage, HumanMessage
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import END, START, StateGraph, add_messages

    from debugger.runtimes.langgraph.recorder import recording

    lib = type("Lib", (), dict(END=END, START=START, StateGraph=StateGraph, add_messages=add_messages))
    lib.AIMessage, lib.HumanMessage = AIMessage, HumanMessage
    app = _build(lib, InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    with recording(db=False) as session:
        app.invoke(_inputs(lib)[index], config)
    (trace,) = session.traces
    _assert_states_have_the_runs_ids(trace, app, config)


def test_a_value_whose_id_property_raises_is_recorded_all_the_same() -> None:
    class Odd:
        @property
        def id(self) -> str:
            raise ValueError("no id here")

    class State(TypedDict):
        items: Annotated[list, _append]

    g = engine.StateGraph(State)
    g.add_node("a", lambda s: {"items": [Odd()]})
    g.add_edge(engine.START, "a")
    g.add_edge("a", engine.END)
    recorder = Recorder()
    g.compile().invoke({"items": [Odd()]}, hooks=recorder)
    assert [s.step for s in recorder.trace.steps] == [-1, 0, 1]


def _append(left: list, right: list) -> list:
    return left + right
