"""Differential tests: every case of `cases.py` on LangGraph and on our engine, compared.

Test ids are `test_case[<backend>-<case>-<aspect>]`:

- `<backend>` = `langgraph`: the case's pinned facts (`expect`) hold for the reference, and a second
  LangGraph run gives the same observation under our normalisation (so the harness itself is sound:
  uuids, namespaces and completion order are normalised, nothing else). Run these alone with
  `pytest tests/differential -k langgraph`.
- `<backend>` = `engine`: the engine's observation equals LangGraph's, field by field.

Aspects (see harness.ASPECTS): `invoke` (result or exact error, incl. notes and the stage it was
raised at), `stream_default` (`stream()` with no mode), `updates`, `values`, `updates_values`
(`(mode, chunk)` pairs), `subgraphs` (`(namespace, chunk)`), `subgraphs_values`
(`(namespace, mode, chunk)`). Every aspect also compares the case's probe (what the nodes saw/did).

The module skips when langgraph is not installed; it does not skip when `engine` is missing: the
engine tests then fail with the ImportError.
"""

from __future__ import annotations

import pytest

pytest.importorskip("langgraph")

from .backends import BACKEND_NAMES, ERROR_NAMES, NAMES, get_backend  # noqa: E402
from .cases import CASES, FUNCTION_CASES  # noqa: E402
from .harness import (  # noqa: E402
    Normaliser,
    check_expect,
    describe_error,
    diff_observations,
    learn_structure,
    observe,
)

_STRUCTURES: dict = {}
_OBSERVATIONS: dict = {}


def structure(case_name: str):
    if case_name not in _STRUCTURES:
        _STRUCTURES[case_name] = learn_structure(CASES[case_name])
    return _STRUCTURES[case_name]


def observation(case_name: str, backend: str, aspect: str, run: int) -> dict:
    key = (case_name, backend, aspect, run)
    if key not in _OBSERVATIONS:
        s = None if aspect == "invoke" else structure(case_name)
        _OBSERVATIONS[key] = observe(CASES[case_name], backend, aspect, s)
    return _OBSERVATIONS[key]


PARAMS = [
    pytest.param(backend, name, aspect, id=f"{backend}-{name}-{aspect}")
    for backend in BACKEND_NAMES
    for name, case in CASES.items()
    for aspect in case.aspects
]


@pytest.mark.parametrize("backend,case_name,aspect", PARAMS)
def test_case(backend: str, case_name: str, aspect: str):
    reference = observation(case_name, "langgraph", aspect, run=0)
    if backend == "langgraph":
        if aspect == "invoke":
            problems = check_expect(reference, CASES[case_name].expect)
            assert not problems, "LangGraph no longer behaves as pinned:\n" + "\n".join(problems)
        for field, want in CASES[case_name].expect.get("streams", {}).get(aspect, {}).items():
            assert reference[field] == want, f"{field}: pinned {want!r}, got {reference[field]!r}"
        actual = observation(case_name, "langgraph", aspect, run=1)
        label = "a second LangGraph run"
    else:
        actual = observation(case_name, "engine", aspect, run=0)
        label = "the engine"
    problems = diff_observations(actual, reference)
    assert not problems, f"{label} differs from LangGraph:\n" + "\n".join(problems)


def test_every_case_is_documented_and_pinned():
    """Each case says what it shows and pins at least its invoke result or error."""
    for name, case in CASES.items():
        assert case.doc or name.startswith("err_"), f"{name} has no docstring"
        assert "result" in case.expect or "error" in case.expect, f"{name} pins nothing"


def test_harness_detects_differences():
    """The comparison is not vacuous: changed results, errors, orders and probes are reported."""
    case_name = "linear_chain"
    ref = observation(case_name, "langgraph", "updates", run=0)
    changed = dict(ref, chunks=list(reversed(ref["chunks"])))
    assert diff_observations(changed, ref)
    changed = dict(ref, probe=["something else"])
    assert diff_observations(changed, ref)
    ref = observation("parallel_plain_key_conflict", "langgraph", "invoke", run=0)
    changed = dict(ref, error=dict(ref["error"], str=ref["error"]["str"] + "."))
    assert diff_observations(changed, ref)
    # a parallel step is a multiset, but only within the step
    ref = observation("fan_out_fan_in", "langgraph", "updates", run=0)
    assert ref["parallel_segments"] == [(0, 2)]
    s = structure("fan_out_fan_in")
    a, b, c = {"a": 1}, {"b": 1}, {"c": 1}
    assert s.canonical_order("updates", [b, a, c]) == [a, b, c]  # completion order within a step
    assert s.canonical_order("updates", [c, a, b]) != [a, b, c]  # c moved into the parallel step
    assert s.canonical_order("updates", [a, b]) == [a, b]  # wrong length: left alone, fails later
    # uuids are numbered by first appearance, user ids are kept
    norm = Normaliser()
    lg = get_backend("langgraph")
    m1 = lg.HumanMessage("a", id="0f8fad5b-d9cb-469f-a165-70867728950e")
    m2 = lg.AIMessage("b", id="7c9e6679-7425-40de-944b-e07fc1f90ae7")
    m3 = lg.AIMessage("c", id="user-id")
    assert [norm(m)[-1] for m in (m2, m1, m2, m3)] == ["<uuid-1>", "<uuid-2>", "<uuid-1>", "user-id"]


# ---------------------------------------------------------------------------------------------
# The public surface
# ---------------------------------------------------------------------------------------------


def surface(lg) -> dict:
    """What code written for langgraph may rely on besides running graphs."""
    return {
        "START": lg.START,
        "END": lg.END,
        "REMOVE_ALL_MESSAGES": lg.REMOVE_ALL_MESSAGES,
        "Command.PARENT": lg.Command.PARENT,
        "MessagesState keys": list(getattr(lg.MessagesState, "__annotations__", {})),
        "error bases": {
            n: [c.__name__ for c in getattr(lg, n).__mro__ if c.__module__ == "builtins"] for n in ERROR_NAMES
        },
        "message types": {
            "HumanMessage": lg.HumanMessage("c").type,
            "AIMessage": lg.AIMessage("c").type,
            "SystemMessage": lg.SystemMessage("c").type,
            "ToolMessage": lg.ToolMessage("c", tool_call_id="t").type,
            "RemoveMessage": lg.RemoveMessage(id="x").type,
        },
        "message defaults": [
            Normaliser()(m)
            for m in (
                lg.HumanMessage("c"),
                lg.AIMessage("c"),
                lg.SystemMessage("c", name="n"),
                lg.ToolMessage("c", tool_call_id="t"),
                lg.RemoveMessage(id="x"),
            )
        ],
        "errors with messages": {n: str(getattr(lg, n)("text")) for n in ERROR_NAMES},
    }


PINNED_SURFACE = {
    "START": "__start__",
    "END": "__end__",
    "REMOVE_ALL_MESSAGES": "__remove_all__",
    "Command.PARENT": "__parent__",
    "MessagesState keys": ["messages"],
    "error bases": {
        "InvalidUpdateError": ["Exception", "BaseException", "object"],
        "GraphRecursionError": ["RecursionError", "RuntimeError", "Exception", "BaseException", "object"],
        "EmptyInputError": ["Exception", "BaseException", "object"],
    },
    "message types": {
        "HumanMessage": "human",
        "AIMessage": "ai",
        "SystemMessage": "system",
        "ToolMessage": "tool",
        "RemoveMessage": "remove",
    },
    "message defaults": [
        ("HumanMessage", "human", "c", None, None, None, None),
        ("AIMessage", "ai", "c", None, [], None, None),
        ("SystemMessage", "system", "c", "n", None, None, None),
        ("ToolMessage", "tool", "c", None, None, "t", None),
        ("RemoveMessage", "remove", "", None, None, None, "x"),
    ],
    "errors with messages": {n: "text" for n in ERROR_NAMES},
}


@pytest.mark.parametrize("backend", BACKEND_NAMES)
def test_public_surface(backend: str):
    lg = get_backend(backend)
    assert not lg.missing, f"{backend} does not export {list(lg.missing)}"
    if backend == "engine":
        import engine

        not_all = [n for n in NAMES if n not in getattr(engine, "__all__", ())]
        assert not not_all, f"engine.__all__ lacks {not_all}"
    assert surface(lg) == PINNED_SURFACE
    assert surface(lg) == surface(get_backend("langgraph"))


# ---------------------------------------------------------------------------------------------
# add_messages called directly
# ---------------------------------------------------------------------------------------------


def call_function_case(fc, backend: str) -> dict:
    lg = get_backend(backend)
    norm = Normaliser()
    try:
        left, right = fc.args(lg)
        result = lg.add_messages(left, right)
    except Exception as e:
        return {"result": None, "error": describe_error(e, lg)}
    return {"result": norm(result), "inputs": norm([left, right]), "error": None}


FUNCTION_PARAMS = [
    pytest.param(backend, name, id=f"{backend}-{name}") for backend in BACKEND_NAMES for name in FUNCTION_CASES
]


@pytest.mark.parametrize("backend,name", FUNCTION_PARAMS)
def test_add_messages_direct(backend: str, name: str):
    fc = FUNCTION_CASES[name]
    reference = call_function_case(fc, "langgraph")
    if backend == "langgraph":
        got = (reference["error"]["type"], reference["error"]["str"]) if reference["error"] else None
        if "error" in fc.expect:
            assert got == fc.expect["error"]
        else:
            assert got is None, got
            assert reference["result"] == fc.expect["result"]
        actual = call_function_case(fc, "langgraph")
    else:
        actual = call_function_case(fc, "engine")
    assert actual == reference
