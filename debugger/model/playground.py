"""The reducer playground: one state key, one reducer, a start value and one to five parallel writers.

Everything on the playground page comes from a real run: the set-up is written out as a runnable graph
file (`graph_source`: the file "Make it a graph" saves), that file's graph runs on the engine under the
recorder, and the fold is read from the recorded trace by the same `RunView` the Merge tab reads, so the
sentences, the plain-key error and its text are the ones a real graph gets. What another order of the
writers would give is folded by the compiled graph's own channel for the key, one permutation at a time.

    setup = Setup(reducer="operator.add", start="[]", writes=("['x']", "[]"))
    play(setup)  -> Played(calls=[MergeCall, ...], error=ErrorReport | None, value=..., orders=[...])
"""

from __future__ import annotations

import ast
import itertools
import json
import textwrap
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from debugger import sandbox
from debugger.i18n import N_, _, ngettext
from debugger.model.failures import ErrorReport
from debugger.model.merge_calls import MergeCall
from debugger.model.run_view import RunView
from debugger.sandbox.limits import Limits, raise_if_out_of_memory
from debugger.sources.recording import record_run
from engine.codec import encode
from engine.trace import Trace
from engine.tracefile import from_json, to_json

KEY = "value"
"""The one state key of every playground graph."""
WRITERS = ("A", "B", "C", "D", "E")
"""The writers' node names, in the order the barrier applies their writes (task order is name order)."""
MAX_WRITERS = len(WRITERS)
RUN_SECONDS = 10.0
"""A reducer of the learner's own that never returns stops the run after this long."""
LIMITS = Limits(cpu_seconds=5, memory_mb=512, wall_seconds=RUN_SECONDS + 2)
"""What a reducer of the learner's own may use (the wall limit leaves the run's own timeout its say)."""


@dataclass(frozen=True)
class Reducer:
    """One reducer the playground offers: how the key is declared, and a first example to fold."""

    label: str
    annotation: str
    """The state key's annotation; `{type}` is the start value's type (`list`, `int`, ...)."""
    explanation: str
    start: str
    writes: tuple[str, ...]
    first_write: str = "{}"
    """How writer A's value is written (`Overwrite({})` for the Overwrite lesson); the others write plainly."""


REDUCERS: dict[str, Reducer] = {
    "operator.add": Reducer(
        N_("operator.add"),
        "Annotated[{type}, operator.add]",
        N_("Each write is added to the value: lists are concatenated, numbers summed, in the writers' order."),
        "[]",
        ("['x']", "['y']"),
    ),
    "add_messages": Reducer(
        N_("add_messages"),
        "Annotated[list, add_messages]",
        N_("Messages are appended; a message whose id is already there replaces the old one in place."),
        "[{'role': 'user', 'content': 'hi', 'id': '1'}]",
        ("[{'role': 'assistant', 'content': 'from A', 'id': '2'}]", "[{'role': 'user', 'content': 'edit', 'id': '1'}]"),
    ),
    "none": Reducer(
        N_("no reducer (a plain key)"),
        "{type}",
        N_("A plain key takes one write per superstep; two writers in one step are an error (LangGraph's too)."),
        "''",
        ("'from A'", "'from B'"),
    ),
    "Overwrite": Reducer(
        N_("Overwrite (operator.add key)"),
        "Annotated[{type}, operator.add]",
        N_(
            "Writer A's write is wrapped in Overwrite(...): it replaces the value and skips the reducer, and "
            "the other writes of that superstep are ignored (two Overwrites in one step are an error)."
        ),
        "['old']",
        ("['new']", "['y']"),
        first_write="Overwrite({})",
    ),
    "keep_first": Reducer(
        N_("keep-first (a reducer of your own)"),
        "Annotated[{type}, keep_first]",
        N_(
            "A reducer that keeps the value already there: a write only fills an empty key, so every later "
            "write is dropped, silently."
        ),
        "[]",
        ("['from A']", "['from B']"),
    ),
    "custom": Reducer(
        N_("your own lambda"),
        "Annotated[{type}, custom]",
        N_("Your function gets (value so far, one write) and returns the new value; it is called once per write."),
        "[]",
        ("['x']", "['y']"),
    ),
}

KEEP_FIRST = '''
def keep_first(current, new):
    """Keeps the value already there: a write only fills an empty key."""
    return new if current in (None, [], "", {}, 0) else current
'''


class PlaygroundError(ValueError):
    """A set-up that cannot be run; the message says which field and how to fix it."""


@dataclass(frozen=True)
class Setup:
    """What the learner chose."""

    reducer: str = "operator.add"
    start: str = "[]"
    """A Python literal."""
    writes: tuple[str, ...] = ("['x']", "['y']")
    """Python literals, one per writer (A, B, ...)."""
    custom: str = "lambda current, new: current + new"
    """The learner's own reducer, for `reducer="custom"`."""

    @classmethod
    def example(cls, reducer: str) -> "Setup":
        """The first example the playground shows for `reducer`."""
        choice = REDUCERS[reducer]
        return cls(reducer=reducer, start=choice.start, writes=choice.writes)


LINK_KEYS = ("reducer", "start", *WRITERS, "custom")
"""The query parameters a playground link names its set-up by (beside the sidebar's open run's)."""


def setup_params(setup: Setup) -> dict[str, str]:
    """The set-up as a link's query parameters: `?reducer=operator.add&start=[]&A=['x']&B=['y']` (the
    writers by name; a reducer of the learner's own also as `custom`)."""
    params = {"reducer": setup.reducer, "start": setup.start, **dict(zip(WRITERS, setup.writes))}
    if setup.reducer == "custom":
        params["custom"] = setup.custom
    return params


def setup_from_params(params: dict[str, str]) -> Setup:
    """The set-up a link names (`setup_params`'s inverse); what it leaves out is the reducer's example's.
    Raises PlaygroundError, in one line, for a reducer the playground does not have."""
    reducer = params.get("reducer", "")
    if reducer not in REDUCERS:
        raise PlaygroundError(
            _("the link names the reducer {name}, which the playground does not have; pick one of: {names}").format(
                name=json.dumps(reducer), names=", ".join(REDUCERS)
            )
        )
    example = Setup.example(reducer)
    writes: list[str] = []
    for name in WRITERS:  # A, B, ... up to the first one the link leaves out
        if name not in params:
            break
        writes.append(params[name])
    return Setup(
        reducer=reducer,
        start=params.get("start", example.start),
        writes=tuple(writes) or example.writes,
        custom=params.get("custom", example.custom),
    )


@dataclass(frozen=True)
class Order:
    """The fold of the same writes in another order of the writers."""

    writers: tuple[str, ...]
    value: Any = None
    error: str = ""


@dataclass
class Played:
    """The recorded run of a set-up, read as the Merge tab reads it."""

    setup: Setup
    source: str
    view: RunView
    step: int
    """The superstep in which the writers ran."""
    calls: list[MergeCall]
    error: ErrorReport | None
    value: Any
    """The key after the writers' step (the start value when the step failed)."""
    orders: list[Order] = field(default_factory=list)
    """Each distinct outcome of another order of the writers (empty when every order gives the same)."""
    ignored: tuple[str, ...] = ()
    """Writers whose write the barrier made no reducer call for (an Overwrite of the same step won)."""


def setup_title(setup: Setup) -> str:
    """What the playground shows, in the page's language: 'Playground: operator.add with 2 writers'."""
    count = len(setup.writes)
    return ngettext(
        "Playground: {reducer} with {count} writer", "Playground: {reducer} with {count} writers", count
    ).format(reducer=_(REDUCERS[setup.reducer].label), count=count)


def literal(text: str, what: str) -> Any:
    """A Python literal the learner typed, or one line naming the field and what is wrong."""
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as exc:
        reason = exc.msg if isinstance(exc, SyntaxError) else _("only literals are allowed (no names or calls)")
        raise PlaygroundError(
            _("{what}: {text} is not a Python literal ({reason}); write e.g. ['x'], 3, 'text' or {{'k': 1}}.").format(
                what=what, text=repr(text.strip()[:60]), reason=reason
            )
        ) from None


def _type_name(value: Any) -> str:
    """The annotation type for a start value: the channel starts from its constructor, as LangGraph's does."""
    kind = type(value)
    return kind.__name__ if kind in (list, int, float, str, dict, tuple) else "Any"


def graph_source(setup: Setup) -> str:
    """The runnable graph file for `setup` (checked: every literal parses, the reducer is known)."""
    if setup.reducer not in REDUCERS:
        raise PlaygroundError(
            _("unknown reducer {name}; pick one of: {names}.").format(
                name=repr(setup.reducer), names=", ".join(REDUCERS)
            )
        )
    if not 1 <= len(setup.writes) <= MAX_WRITERS:
        raise PlaygroundError(
            _("give one to {most} writers, not {count}.").format(most=MAX_WRITERS, count=len(setup.writes))
        )
    choice = REDUCERS[setup.reducer]
    start = literal(setup.start, _("start value"))
    writes = [literal(text, _("writer {name}").format(name=name)) for name, text in zip(WRITERS, setup.writes)]
    helpers = ""
    if setup.reducer == "keep_first":
        helpers = KEEP_FIRST
    elif setup.reducer == "custom":
        helpers = f"\ncustom = {_custom_code(setup.custom)}\n"
    annotation = choice.annotation.format(type=_type_name(start))
    returns = [(choice.first_write if i == 0 else "{}").format(repr(value)) for i, value in enumerate(writes)]
    nodes = "\n".join(
        f"def {name}(state: State) -> dict:\n    return {{{KEY!r}: {written}}}\n\n"
        for name, written in zip(WRITERS, returns)
    )
    wiring = "\n".join(f'builder.add_node("{n}", {n})\nbuilder.add_edge(START, "{n}")' for n in WRITERS[: len(writes)])
    count = len(writes)
    writers_words = f"{count} parallel writer" + ("" if count == 1 else "s")  # the file's docstring: English code
    # the title and summary the app shows for the file, in the page's language when it was written
    title = setup_title(setup)
    summary = ngettext(
        "One key, {reducer}, {count} parallel writer.", "One key, {reducer}, {count} parallel writers.", count
    ).format(reducer=_(choice.label), count=count)
    return (
        f'"""Reducer playground: {choice.label}, {writers_words} of one key.\n\n'
        "Written by StepScope's reducer playground. Run it with `stepscope run THIS_FILE.py` or open it in\n"
        'the app (`stepscope app THIS_FILE.py`)."""\n\n'
        "import operator\n"
        "from typing import Annotated, Any, TypedDict\n\n"
        "from engine import START, Overwrite, StateGraph, add_messages\n"
        f"{helpers}\n\n"
        f"class State(TypedDict):\n    {KEY}: {annotation}\n\n\n"
        f"{nodes}\n"
        f"builder = StateGraph(State)\n{wiring}\ngraph = builder.compile()\n"
        f"example_input = {{{KEY!r}: {start!r}}}\n"
        f"title = {title!r}\n"
        f"summary = {summary!r}\n"
        f"lesson = {choice.explanation!r}\n"
    )


def _custom_code(code: str) -> str:
    """The learner's reducer as one expression (a lambda or a function's name is refused by what it is)."""
    text = textwrap.dedent(code).strip()
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise PlaygroundError(
            _("your reducer: {problem} (write one expression, e.g. lambda current, new: current + new).").format(
                problem=exc.msg
            )
        ) from None
    if not isinstance(tree.body, ast.Lambda) or len(tree.body.args.args) != 2:
        raise PlaygroundError(_("your reducer must be a lambda of two arguments: lambda current, new: ..."))
    return text


def load(source: str) -> ModuleType:
    """The module `source` defines (the playground's own file, or a learner's edit of it)."""
    module = ModuleType("stepscope_playground")
    try:
        # dont_inherit: this module's `from __future__ import annotations` must not turn the file's into strings
        exec(compile(source, "<playground>", "exec", dont_inherit=True), module.__dict__)
    except Exception as exc:  # the learner's reducer is code: what it raises is said in one line
        raise PlaygroundError(
            _("the graph could not be built: {error}").format(error=f"{type(exc).__name__}: {exc}")
        ) from None
    return module


@dataclass(frozen=True)
class Folded:
    """What running a set-up's graph gives: its recorded trace and the other orders' outcomes."""

    trace: Trace
    orders: list[Order]


def play(setup: Setup) -> Played:
    """Runs the set-up's graph under the recorder and reads its writers' merge (see the module docstring). A
    reducer of the learner's own is code: its graph runs in a child process (`debugger.sandbox`), never here."""
    source = graph_source(setup)
    writers = len(setup.writes)
    folded = fold_in_child(source, writers) if setup.reducer == "custom" else fold(source, writers)
    return read(setup, source, folded)


def read(setup: Setup, source: str, folded: Folded) -> Played:
    """The fold as the Merge tab reads it, from the recorded trace alone (no live graph is needed)."""
    writers = len(setup.writes)
    view = RunView(folded.trace)
    writers_step = next((s for s in view.steps if any(t.name in WRITERS for t in view.tasks(s))), view.last)
    calls = [call for call in view.merge(writers_step) if call.call.channel == KEY]
    errors = view.errors(writers_step)
    state = view.state(writers_step) if not errors else view.state_before(writers_step)
    played = Played(
        setup=setup,
        source=source,
        view=view,
        step=writers_step,
        calls=calls,
        error=errors[0] if errors else None,
        value=state.get(KEY),
        orders=folded.orders,
    )
    folded_writers = {c.call.writer_name for c in calls}
    if calls and not errors:
        played.ignored = tuple(name for name in WRITERS[:writers] if name not in folded_writers)
    return played


def fold(source: str, writers: int) -> Folded:
    """Runs the graph file `source` (of `writers` writers) under the recorder, in this process."""
    module = load(source)
    outcome = record_run(module.graph, module.example_input, {}, target="playground", timeout=RUN_SECONDS)
    raise_if_out_of_memory(outcome.trace.error)
    if outcome.trace.status == "timeout":
        raise PlaygroundError(
            _("the run did not end within {seconds} s: does your reducer return?").format(seconds=f"{RUN_SECONDS:.0f}")
        )
    return Folded(outcome.trace, other_orders(module, writers))


def fold_in_child(source: str, writers: int) -> Folded:
    """`fold`, run by `fold_request` in the sandbox's child process; a limit passed is one PlaygroundError line."""
    try:
        answer = sandbox.run("playground", {"source": source, "writers": writers}, LIMITS, what=_("the reducer"))
    except sandbox.TypedCodeStopped as exc:
        raise PlaygroundError(str(exc)) from None
    if "error" in answer:
        raise PlaygroundError(answer["error"])
    orders = [Order(tuple(o["writers"]), o["value"], o["error"]) for o in answer["orders"]]
    return Folded(from_json(answer["trace"]), orders)


def fold_request(request: dict[str, Any]) -> dict[str, Any]:
    """The sandbox child's job: `fold` of the request's source, as data (a PlaygroundError as its line)."""
    try:
        folded = fold(request["source"], request["writers"])
    except PlaygroundError as exc:
        return {"error": str(exc)}
    orders = [{"writers": list(o.writers), "value": o.value, "error": o.error} for o in folded.orders]
    return {"trace": to_json(folded.trace), "orders": orders}


def other_orders(module: ModuleType, writers: int) -> list[Order]:
    """Each distinct outcome of the writers' writes in another order, folded by the graph's own channel for
    the key (after the input, as the run did), values encoded as the trace encodes them."""
    names = WRITERS[:writers]
    writes = [getattr(module, name)({KEY: None})[KEY] for name in names]  # what each writer returns
    seen = {_fold(module, writes)}
    found: list[Order] = []
    for order in itertools.permutations(range(writers)):
        outcome = _fold(module, [writes[i] for i in order])
        if outcome not in seen:
            seen.add(outcome)
            value, error = outcome
            found.append(Order(writers=tuple(names[i] for i in order), value=json.loads(value), error=error))
    return found


def _fold(module: ModuleType, writes: list[Any]) -> tuple[str, str]:
    """(the value as JSON, "") after the key's channel takes the input, then `writes` in one barrier, or
    ("null", the error's first line)."""
    channel = module.graph.channels[KEY].fresh()
    try:
        channel.update([module.example_input[KEY]])
        channel.update(list(writes))
        return json.dumps(encode(channel.value), sort_keys=True, default=str), ""
    except MemoryError:  # the sandbox's memory limit, not an outcome of this order
        raise
    except Exception as exc:  # the reducer refusing (or failing on) this order is the outcome shown
        return "null", (str(exc).splitlines() or [type(exc).__name__])[0]
