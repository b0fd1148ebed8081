"""The engine builds its per-step objects (`Task`, `ReducerCall`, `StepCommit`, `TaskContext`) as bare
instances whose fields it stores one by one (`engine.algo.bare`: cheaper than calling the class). Each
must be the object the class would have made: every field set, to what its constructor would give."""

import dataclasses
import operator
from typing import Annotated, TypedDict

from engine import START, Hooks, StateGraph
from engine.algo import Task
from engine.context import TaskContext, current_task
from engine.hooks import ReducerCall, StepCommit


class State(TypedDict):
    log: Annotated[list, operator.add]
    n: int


def fields(obj):
    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}  # AttributeError if one is unset


class Keep(Hooks):
    def __init__(self):
        self.planned, self.calls, self.commits = [], [], []

    def step_planned(self, *, ns, step, tasks):
        self.planned.extend((t, fields(t)) for t in tasks)

    def reducer_called(self, *, ns, call):
        self.calls.append(call)

    def step_committed(self, *, ns, commit):
        self.commits.append(commit)


def test_every_field_of_the_fast_built_objects_is_what_the_class_makes():
    contexts = []

    def node(state):
        contexts.append(current_task.get())
        return {"log": ["a"], "n": 1}

    g = StateGraph(State)
    g.add_node("a", node)
    g.add_edge(START, "a")
    keep = Keep()
    g.compile().invoke({"log": [], "n": 0}, hooks=keep)

    pulled = [(t, seen) for t, seen in keep.planned if t.name == "a"]
    assert pulled
    for task, seen in pulled:
        made = Task(task.id, task.name, task.path, task.step, task.triggers, task.seen_versions, task.input, task.node)
        made.fired = task.fired
        assert seen == fields(made)  # as planned, before the task ran
        assert type(seen["writes"]) is list
    assert keep.calls
    for call in keep.calls:
        assert fields(call) == fields(ReducerCall(**fields(call)))
        assert call.error is None
    assert keep.commits
    for commit in keep.commits:
        assert fields(commit) == fields(StepCommit(**fields(commit)))
    assert len(contexts) == 1
    assert fields(contexts[0]) == fields(TaskContext(contexts[0].loop, contexts[0].task, contexts[0].config))
    assert set(fields(Task(*[None] * 8))) == set(Task.__slots__)
