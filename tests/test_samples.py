"""The sample gallery: each lesson's outcome, the module contract, the scripts, the listing, and
the same graphs built with langgraph.

- `EXPECTED` pins the final state (or the exact error) of every compiled graph a sample module
  exposes (`graph`, `fixed_graph`, ...); `test_expected_covers_every_graph` makes a new sample or
  variant without a pinned outcome fail.
- Lesson-specific tests below check what each lesson claims beyond the final state (which nodes
  ran, in which order, what a node saw).
- The differential tests re-run each sample module with its `from engine import ...` bound to
  langgraph's objects (a stand-in `engine` module in `sys.modules` while the file executes) and
  compare final states, errors and the `values` stream with the engine's.
"""

from __future__ import annotations

import copy
import importlib
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import types
from pathlib import Path
from typing import Any

import pytest

import engine
from sample_graphs import gallery
from sample_graphs._show import brief, is_message, outcome
from sample_graphs.gallery import NOT_LESSONS, SAMPLES, TEACHING_ORDER, UnknownSampleError, list_samples, load_sample

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_DIR = ROOT / "sample_graphs"

CONCURRENT_V = (
    "At key 'v': Can receive only one value per step. Use an Annotated key to handle multiple values.\n"
    "For troubleshooting, visit: https://docs.langchain.com/oss/python/langgraph/errors/INVALID_CONCURRENT_GRAPH_UPDATE"
)
RECURSION = (
    "Recursion limit of {limit} reached without hitting a stop condition. You can increase the limit by "
    "setting the `recursion_limit` config key.\n"
    "For troubleshooting, visit: https://docs.langchain.com/oss/python/langgraph/errors/GRAPH_RECURSION_LIMIT"
)

#: The measured output printed in seed article 001, section 6.3 (ids fixed to "1", "2", "3").
ARTICLE_ADD_MESSAGES = [
    "原始: [human/hi/id=1, ai/hello/id=2]",
    '+ AIMessage(id="3") -> [human/hi/1, ai/hello/2, ai/again/3]',
    '+ AIMessage(id="2") -> [human/hi/1, ai/改写了/2]',
    '+ RemoveMessage(id="1") -> [ai/hello/2]',
]


class Raises:
    """An expected error: the exception class (by its name in `engine`) and its exact text."""

    def __init__(self, name: str, text: str):
        self.name, self.text = name, text

    def __repr__(self) -> str:
        return f"Raises({self.name}, {self.text!r})"


QUESTION = "What is the refund policy?"
JOKES = [
    "The owl stayed up all night stepping through supersteps.",
    "The cat knocked the state off the table.",
    "The dog fetched every checkpoint.",
]

#: (sample, attribute) -> the final state (messages shown as `type/content/id`) or the error.
EXPECTED: dict[tuple[str, str], Any] = {
    ("parallel_append_race", "graph"): {"messages": ["hi", "from B"]},
    ("parallel_append_race", "fixed_graph"): {"messages": ["hi", "from A", "from B"]},
    ("retries_counter", "graph"): {"question": QUESTION, "retries": 3, "answer": "draft 2"},
    ("retries_counter", "fixed_graph"): {"question": QUESTION, "retries": 3, "answer": "draft 3"},
    ("refund_concurrent_update", "graph"): Raises("InvalidUpdateError", CONCURRENT_V),
    ("refund_concurrent_update", "fixed_graph"): {"v": [1, 2]},
    ("annotation_state", "graph"): Raises("InvalidUpdateError", CONCURRENT_V.replace("'v'", "'answer'")),
    ("annotation_state", "fixed_graph"): {
        "messages": ["hi", "from A", "from B"],
        "retries": 0,
        "answer": "3 messages: hi, from A, from B",
    },
    ("reducer_table", "graph"): Raises("InvalidUpdateError", CONCURRENT_V),
    ("reducer_table", "fixed_graph"): {"steps": ["a", "b"], "n": 4},
    ("add_messages_basics", "graph"): {"messages": ["ai/改写了/2", "ai/again/3"]},
    ("subgraph_trap", "graph"): {"log": ["parent", "parent", "sub-1"]},
    ("subgraph_trap", "fixed_graph"): {"log": ["parent", "child->ABC"], "task": "abc"},
    ("single_node_agent", "graph"): {
        "messages": [
            "human/Hello, introduce yourself/user-1",
            "ai/Hello! I am a scripted stand-in for a chat model: same answer every run./ai-1",
        ]
    },
    ("reducer_forms", "graph"): {"messages": ["hi", "plan done", "act done"], "step": "act", "callCount": 2},
    ("stream_updates", "graph"): {
        "messages": [
            "human/What is the weather in Paris?/user-1",
            "ai//ai-1 calls get_weather({'city': 'Paris'})#call-1",
            "tool/18°C and sunny/result-call-1 answers #call-1",
            "ai/In Paris it is 18°C and sunny./ai-2",
        ]
    },
    ("react_agent", "graph"): {
        "messages": [
            "human/What is 12 times 7, plus 5?/user-1",
            "ai//ai-1 calls multiply({'a': 12, 'b': 7})#call-1",
            "tool/84/result-call-1 answers #call-1",
            "ai//ai-2 calls add({'a': 84, 'b': 5})#call-2",
            "tool/89/result-call-2 answers #call-2",
            "ai/12 x 7 + 5 = 89/ai-3",
        ]
    },
    ("slow_research", "graph"): {
        "topic": "reducers",
        "notes": [
            "plan: look up reducers",
            "docs: 1 manual about reducers",
            "web: 3 pages about reducers",
            "write: drafted",
            "review: read 'reducers: 1 manual about reducers; 3 pages about reducers'",
        ],
        "draft": "reducers: 1 manual about reducers; 3 pages about reducers",
        "verdict": "approved (57 characters)",
    },
    ("fan_out_search", "graph"): {
        "query": "langgraph",
        "results": ["db: 3 design notes", "web: the LangGraph docs"],
        "answer": "2 sources: db: 3 design notes | web: the LangGraph docs",
    },
    ("order_dependent_reducer", "graph"): {
        "question": "What does plan X cost?",
        "answer": "$100 (archive, 2019-03-01)",
        "trail": "archive;live;",
    },
    ("order_dependent_reducer", "fixed_graph"): {
        "question": "What does plan X cost?",
        "quotes": {
            "archive": {"price": "$100", "as_of": "2019-03-01"},
            "live": {"price": "$120", "as_of": "2025-06-01"},
        },
        "answer": "$120 (live, 2025-06-01)",
        "sources": "archive, live",
    },
    ("uneven_join", "graph"): {"log": ["fetch", "quick", "clean", "join (saw 2 entries)", "join (saw 4 entries)"]},
    ("uneven_join", "fixed_graph"): {"log": ["fetch", "quick", "clean", "join (saw 3 entries)"]},
    ("map_reduce_send", "graph"): {"subjects": ["owl", "cat", "dog"], "jokes": JOKES, "best": JOKES[2]},
    ("command_goto", "graph"): {
        "question": "I want a refund for order 42",
        "route": "billing",
        "log": ["triage: billing", "billing", "general"],
    },
    ("command_goto", "fixed_graph"): {
        "question": "I want a refund for order 42",
        "route": "billing",
        "log": ["triage: billing", "billing"],
    },
    ("endless_loop", "graph"): Raises("GraphRecursionError", RECURSION.format(limit=25)),
    ("endless_loop", "fixed_graph"): {"attempts": 3},
    ("in_place_mutation", "graph"): {"notes": ["intro", "checked", "intro", "checked"], "summary": "4 notes"},
    ("in_place_mutation", "silent_graph"): {"notes": ["intro", "checked"], "summary": "2 notes"},
    ("in_place_mutation", "fixed_graph"): {"notes": ["intro", "checked"], "summary": "2 notes"},
    ("clear_with_empty_list", "graph"): {"items": ["stale 1", "stale 2", "fresh"]},
    ("clear_with_empty_list", "fixed_graph"): {"items": ["fresh"]},
}


# ---------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------


def graph_attributes(module: types.ModuleType) -> list[str]:
    """The module-level attributes holding a compiled graph, `graph` first."""
    names = [
        name
        for name, value in vars(module).items()
        if not name.startswith("_") and type(value).__name__ == "CompiledStateGraph"
    ]
    return sorted(names, key=lambda name: (name != "graph", name != "fixed_graph", name))


def input_for(module: types.ModuleType, attribute: str) -> Any:
    if attribute == "fixed_graph":
        return getattr(module, "fixed_input", module.example_input)
    return module.example_input


def run(module: types.ModuleType, attribute: str) -> Any:
    """The final state or the exception of `module.<attribute>` on its input (deep-copied)."""
    return outcome(getattr(module, attribute), input_for(module, attribute), getattr(module, "example_config", None))


def shown(value: Any) -> Any:
    """A final state in `EXPECTED`'s notation: messages as plain `type/content/id` strings."""

    def plain(x: Any) -> Any:
        if isinstance(x, dict):
            return {k: plain(v) for k, v in x.items()}
        if isinstance(x, list):
            return [plain(v) for v in x]
        return str(x) if isinstance(x, str) else x

    return plain(brief(value))


def assert_outcome(result: Any, expected: Any, errors: types.ModuleType | types.SimpleNamespace = engine) -> None:
    if isinstance(expected, Raises):
        assert isinstance(result, BaseException), f"expected {expected}, got the state {result!r}"
        assert isinstance(result, getattr(errors, expected.name)), repr(result)
        assert str(result) == expected.text
    else:
        assert not isinstance(result, BaseException), f"expected a state, got {type(result).__name__}: {result}"
        assert shown(result) == expected


def updates(graph: Any, graph_input: Any, config: dict | None = None) -> list[dict]:
    return list(graph.stream(copy.deepcopy(graph_input), config, stream_mode="updates"))


def nodes_run(graph: Any, graph_input: Any) -> list[str]:
    """The node of each `updates` chunk, in stream order."""
    return [node for chunk in updates(graph, graph_input) for node in chunk]


def sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z`'\"(])", text.strip()) if s]


# ---------------------------------------------------------------------------------------------
# Every sample's lesson outcome
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("sample", "attribute"), list(EXPECTED), ids=[f"{s}.{a}" for s, a in EXPECTED])
def test_lesson_outcome(sample: str, attribute: str) -> None:
    module = load_sample(sample)
    assert_outcome(run(module, attribute), EXPECTED[sample, attribute])


@pytest.mark.parametrize("sample", SAMPLES)
def test_expected_covers_every_graph(sample: str) -> None:
    module = load_sample(sample)
    assert set(graph_attributes(module)) == {a for s, a in EXPECTED if s == sample}


@pytest.mark.parametrize("sample", SAMPLES)
def test_outcome_is_the_same_every_run(sample: str) -> None:
    module = load_sample(sample)
    for attribute in graph_attributes(module):
        assert len({repr(shown_or_error(run(module, attribute))) for _ in range(5)}) == 1, attribute


@pytest.mark.parametrize("sample", SAMPLES)
def test_running_does_not_change_the_example_input(sample: str) -> None:
    """`stepscope run` passes the module's own input object: no sample may mutate it."""
    module = load_sample(sample)
    for attribute in graph_attributes(module):
        graph_input = input_for(module, attribute)
        before = copy.deepcopy(graph_input)
        try:
            getattr(module, attribute).invoke(graph_input, getattr(module, "example_config", None))
        except Exception:
            pass
        assert graph_input == before, attribute


# ---------------------------------------------------------------------------------------------
# What each lesson claims beyond the final state
# ---------------------------------------------------------------------------------------------


def test_retries_counter_starts_from_the_types_zero() -> None:
    module = load_sample("retries_counter")
    first = next(iter(module.fixed_graph.stream(dict(module.fixed_input), stream_mode="values")))
    assert first == {"question": QUESTION, "retries": 0}  # no `answer` yet: a plain key starts empty
    assert module.counter_history(module.graph, module.example_input) == [0, 1, 3]
    assert module.counter_history(module.fixed_graph, module.fixed_input) == [0, 1, 2, 3]


def test_refund_error_is_langgraphs_class_and_text() -> None:
    module = load_sample("refund_concurrent_update")
    with pytest.raises(engine.InvalidUpdateError) as caught:
        module.graph.invoke(module.example_input)
    assert str(caught.value) == CONCURRENT_V
    assert "INVALID_CONCURRENT_GRAPH_UPDATE" in str(caught.value).splitlines()[-1]


def test_reducer_table_rows() -> None:
    module = load_sample("reducer_table")
    assert [(row[0], row[-1]) for row in module.table()] == [
        ("steps", "['a', 'b']"),
        ("n", "4 (last write wins)"),
        ("v", "InvalidUpdateError"),
    ]


@pytest.mark.slow  # runs the sample as a script, in a process of its own
def test_add_messages_prints_the_articles_lines() -> None:
    module = load_sample("add_messages_basics")
    assert module.article_lines() == ARTICLE_ADD_MESSAGES
    printed = run_script("add_messages_basics").stdout.splitlines()
    assert printed[: len(ARTICLE_ADD_MESSAGES)] == ARTICLE_ADD_MESSAGES


def test_add_messages_graph_does_one_operation_per_step() -> None:
    module = load_sample("add_messages_basics")
    steps = [shown(v)["messages"] for v in module.graph.stream(module.example_input, stream_mode="values")]
    assert steps == [
        ["human/hi/1", "ai/hello/2"],
        ["human/hi/1", "ai/hello/2", "ai/again/3"],  # new id: appended
        ["human/hi/1", "ai/改写了/2", "ai/again/3"],  # known id: replaced where it stands
        ["ai/改写了/2", "ai/again/3"],  # RemoveMessage: deleted
    ]


def test_subgraph_trap_child_returns_its_whole_state() -> None:
    module = load_sample("subgraph_trap")
    assert updates(module.graph, module.example_input) == [
        {"p1": {"log": ["parent"]}},
        {"child": {"log": ["parent", "sub-1"]}},
    ]


def test_single_node_agent_coerces_the_input_and_returns_an_update() -> None:
    module = load_sample("single_node_agent")
    result = module.graph.invoke(module.example_input)
    assert [type(m) for m in result["messages"]] == [engine.HumanMessage, engine.AIMessage]
    assert [list(chunk) for chunk in updates(module.graph, module.example_input)] == [["llm"]]


def test_react_agent_loops_until_the_model_answers() -> None:
    module = load_sample("react_agent")
    assert nodes_run(module.graph, module.example_input) == ["llm", "tools", "llm", "tools", "llm"]
    messages = module.graph.invoke(module.example_input)["messages"]
    calls = [c["id"] for m in messages if isinstance(m, engine.AIMessage) for c in m.tool_calls]
    answered = [m.tool_call_id for m in messages if isinstance(m, engine.ToolMessage)]
    assert calls == answered == ["call-1", "call-2"]


def test_fan_out_merge_runs_once_and_results_follow_node_names() -> None:
    module = load_sample("fan_out_search")
    chunks = updates(module.graph, module.example_input)
    assert [list(c) for c in chunks] == [["start"], ["search_db"], ["search_web"], ["merge"]]


def test_order_dependent_reducer_follows_node_names() -> None:
    module = load_sample("order_dependent_reducer")
    renamed = outcome(module.build_broken(archive_name="z_archive"), module.example_input)
    assert (renamed["answer"], renamed["trail"]) == ("$120 (live, 2025-06-01)", "live;z_archive;")
    renamed_fixed = outcome(module.build_fixed(archive_name="z_archive"), module.fixed_input)
    assert renamed_fixed["answer"] == "$120 (live, 2025-06-01)"  # the fix does not care about names


def test_uneven_join_runs_join_twice_with_plain_edges() -> None:
    module = load_sample("uneven_join")
    assert nodes_run(module.graph, module.example_input).count("join") == 2
    assert nodes_run(module.fixed_graph, module.fixed_input).count("join") == 1


def test_map_reduce_runs_one_task_per_send() -> None:
    module = load_sample("map_reduce_send")
    assert nodes_run(module.graph, module.example_input) == [
        "plan",
        "write_joke",
        "write_joke",
        "write_joke",
        "pick_best",
    ]


def test_command_goto_adds_to_static_edges() -> None:
    module = load_sample("command_goto")
    assert nodes_run(module.graph, module.example_input) == ["triage", "billing", "general"]
    assert nodes_run(module.fixed_graph, module.fixed_input) == ["triage", "billing"]


def test_endless_loop_default_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LANGGRAPH_DEFAULT_RECURSION_LIMIT", raising=False)
    module = load_sample("endless_loop")
    assert module.example_config == {"recursion_limit": 25}
    with pytest.raises(engine.GraphRecursionError) as caught:
        module.graph.invoke(module.example_input)  # LangGraph 1.2's default limit
    assert str(caught.value) == RECURSION.format(limit=10007)


def test_in_place_mutation_silent_variant_reports_no_update() -> None:
    module = load_sample("in_place_mutation")
    assert updates(module.silent_graph, module.example_input) == [
        {"add_note": None},
        {"publish": {"summary": "2 notes"}},
    ]


# ---------------------------------------------------------------------------------------------
# The module contract, the scripts, the gallery
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("sample", SAMPLES)
def test_module_contract(sample: str) -> None:
    module = load_sample(sample)
    for attribute in gallery.REQUIRED_ATTRIBUTES:
        assert hasattr(module, attribute), f"{sample} has no `{attribute}`"
    assert isinstance(module.graph, engine.CompiledStateGraph)
    assert json.loads(json.dumps(module.example_input)) == module.example_input  # the debugger edits it as JSON
    assert isinstance(module.title, str) and 0 < len(module.title) <= 60
    assert isinstance(module.summary, str) and "\n" not in module.summary and 0 < len(module.summary) <= 120
    assert 3 <= len(sentences(module.lesson)) <= 6, sentences(module.lesson)
    if hasattr(module, "fixed_graph"):
        assert isinstance(module.fixed_graph, engine.CompiledStateGraph)
        assert module.fixed_graph is not module.graph
        fixed_input = getattr(module, "fixed_input", module.example_input)
        assert json.loads(json.dumps(fixed_input)) == fixed_input
        assert shown_or_error(run(module, "graph")) != shown_or_error(run(module, "fixed_graph"))
    if hasattr(module, "example_config"):
        assert json.loads(json.dumps(module.example_config)) == module.example_config


def shown_or_error(result: Any) -> Any:
    return f"{type(result).__name__}: {result}" if isinstance(result, BaseException) else shown(result)


def run_script(name: str) -> subprocess.CompletedProcess:
    """`python sample_graphs/NAME.py` from an unrelated directory, with no PYTHONPATH help."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [sys.executable, str(SAMPLE_DIR / f"{name}.py")],
        cwd=tempfile.gettempdir(),
        env=env,
        capture_output=True,
        encoding="utf-8",
        timeout=120,
    )


@pytest.mark.parametrize("name", [*SAMPLES, "gallery"])
def test_runs_as_a_script(name: str) -> None:
    done = run_script(name)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip(), "prints nothing"
    assert "Traceback" not in done.stderr


def test_gallery_lists_every_module() -> None:
    files = {p.stem for p in SAMPLE_DIR.glob("*.py") if not p.stem.startswith("_") and p.stem not in NOT_LESSONS}
    assert set(SAMPLES) == files
    assert len(SAMPLES) >= 16
    infos = list_samples()
    assert [info.name for info in infos] == list(SAMPLES)
    for info in infos:
        module = load_sample(info.name)
        assert (info.title, info.summary, info.lesson) == (module.title, module.summary, module.lesson)
        assert info.has_fix == hasattr(module, "fixed_graph")


def test_gallery_teaching_order_names_real_samples() -> None:
    assert len(set(TEACHING_ORDER)) == len(TEACHING_ORDER)
    assert set(TEACHING_ORDER) == set(SAMPLES), "add new samples to TEACHING_ORDER (or drop stale names)"
    assert SAMPLES[:3] == ("parallel_append_race", "retries_counter", "refund_concurrent_update")


def test_load_sample_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(UnknownSampleError) as caught:
        load_sample("subgraph_trp")
    message = str(caught.value)
    assert "'subgraph_trp'" in message and "Did you mean 'subgraph_trap'?" in message
    assert all(name in message for name in SAMPLES)
    assert isinstance(caught.value, LookupError)


def test_load_sample_returns_the_module() -> None:
    assert load_sample("subgraph_trap") is importlib.import_module("sample_graphs.subgraph_trap")


# ---------------------------------------------------------------------------------------------
# Differential: the same sample modules, built with langgraph
# ---------------------------------------------------------------------------------------------

#: What a sample may import from `engine`, and where langgraph defines it.
LANGGRAPH_NAMES = {
    "StateGraph": "langgraph.graph",
    "START": "langgraph.graph",
    "END": "langgraph.graph",
    "MessagesState": "langgraph.graph",
    "add_messages": "langgraph.graph",
    "Send": "langgraph.types",
    "Command": "langgraph.types",
    "Overwrite": "langgraph.types",
    "InvalidUpdateError": "langgraph.errors",
    "GraphRecursionError": "langgraph.errors",
    "EmptyInputError": "langgraph.errors",
    "HumanMessage": "langchain_core.messages",
    "AIMessage": "langchain_core.messages",
    "SystemMessage": "langchain_core.messages",
    "ToolMessage": "langchain_core.messages",
    "RemoveMessage": "langchain_core.messages",
    "REMOVE_ALL_MESSAGES": "langgraph.graph.message",
}

_LANGGRAPH_MODULES: dict[str, types.ModuleType] = {}


def langgraph_namespace() -> types.ModuleType:
    pytest.importorskip("langgraph")
    fake = types.ModuleType("engine", "langgraph's objects under the names `engine` exports (test_samples)")
    for attribute, module in LANGGRAPH_NAMES.items():
        setattr(fake, attribute, getattr(importlib.import_module(module), attribute))
    return fake


def load_with_langgraph(sample: str) -> types.ModuleType:
    """The sample module executed again, its `from engine import ...` bound to langgraph."""
    if sample not in _LANGGRAPH_MODULES:
        fake = langgraph_namespace()
        saved = sys.modules.get("engine")
        sys.modules["engine"] = fake
        try:
            spec = importlib.util.spec_from_file_location(
                f"sample_graphs._langgraph_{sample}", SAMPLE_DIR / f"{sample}.py"
            )
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        finally:
            if saved is None:
                sys.modules.pop("engine", None)
            else:
                sys.modules["engine"] = saved
        assert type(module.graph).__module__.startswith("langgraph"), "the sample did not pick up langgraph"
        _LANGGRAPH_MODULES[sample] = module
    return _LANGGRAPH_MODULES[sample]


def comparable(value: Any) -> Any:
    """Plain data from either backend: messages as (class name, model_dump()), errors as (class, text, notes)."""
    if isinstance(value, BaseException):
        return ("raised", type(value).__name__, str(value), tuple(getattr(value, "__notes__", ())))
    if is_message(value):
        return (type(value).__name__, comparable(value.model_dump()))
    if isinstance(value, dict):
        return {k: comparable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(comparable(v) for v in value)
    return value


def values_stream(graph: Any, graph_input: Any, config: dict | None) -> list[Any]:
    """Each `values` chunk, made comparable when it arrives; a raised error ends the list."""
    chunks = []
    try:
        for chunk in graph.stream(copy.deepcopy(graph_input), config, stream_mode="values"):
            chunks.append(comparable(chunk))
    except Exception as exc:
        chunks.append(comparable(exc))
    return chunks


def langgraph_errors() -> types.SimpleNamespace:
    fake = langgraph_namespace()
    return types.SimpleNamespace(
        InvalidUpdateError=fake.InvalidUpdateError, GraphRecursionError=fake.GraphRecursionError
    )


@pytest.mark.parametrize(("sample", "attribute"), list(EXPECTED), ids=[f"{s}.{a}" for s, a in EXPECTED])
def test_langgraph_gives_the_same_outcome(sample: str, attribute: str) -> None:
    reference = load_with_langgraph(sample)
    theirs = run(reference, attribute)
    assert_outcome(theirs, EXPECTED[sample, attribute], langgraph_errors())  # the lesson holds on langgraph
    assert comparable(run(load_sample(sample), attribute)) == comparable(theirs)


@pytest.mark.parametrize(("sample", "attribute"), [pytest.param(s, a, id=f"{s}.{a}") for s, a in EXPECTED])
def test_langgraph_gives_the_same_values_stream(sample: str, attribute: str) -> None:
    """Every `values` chunk, recorded the moment the consumer receives it."""
    reference = load_with_langgraph(sample)
    ours = load_sample(sample)
    config = getattr(ours, "example_config", None)
    assert values_stream(getattr(ours, attribute), input_for(ours, attribute), config) == values_stream(
        getattr(reference, attribute), input_for(reference, attribute), config
    )


@pytest.mark.parametrize(
    ("sample", "builder", "kwargs"),
    [
        ("order_dependent_reducer", "build_broken", {"archive_name": "z_archive"}),
        ("order_dependent_reducer", "build_fixed", {"archive_name": "z_archive"}),
    ],
)
def test_langgraph_gives_the_same_outcome_for_variants(sample: str, builder: str, kwargs: dict) -> None:
    reference = load_with_langgraph(sample)
    ours = load_sample(sample)
    theirs = outcome(getattr(reference, builder)(**kwargs), reference.example_input)
    assert comparable(outcome(getattr(ours, builder)(**kwargs), ours.example_input)) == comparable(theirs)


def test_langgraph_prints_the_articles_add_messages_lines() -> None:
    assert load_with_langgraph("add_messages_basics").article_lines() == ARTICLE_ADD_MESSAGES


def test_langgraph_reducer_table() -> None:
    assert load_with_langgraph("reducer_table").table() == load_sample("reducer_table").table()


@pytest.mark.parametrize(("sample", "attribute"), list(EXPECTED), ids=[f"{s}.{a}" for s, a in EXPECTED])
def test_langgraph_draws_the_same_graph(sample: str, attribute: str) -> None:
    reference = load_with_langgraph(sample)
    ours = load_sample(sample)
    assert (
        getattr(ours, attribute).get_graph().draw_mermaid() == getattr(reference, attribute).get_graph().draw_mermaid()
    )
