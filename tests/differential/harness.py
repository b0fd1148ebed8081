"""Run a case on a backend and turn what happened into plain, comparable data.

An *observation* is a dict:

- `stage`: where an error came from: `"build"` (the builder function: `StateGraph(...)`,
  `add_node`, `add_edge`...), `"compile"`, `"run"`; `None` when there was no error;
- `result` (aspect `invoke`) or `chunks` (the stream aspects), normalised;
- `keys`: the top-level key order of an `invoke` result that is a dict;
- `error`: `None` or `{"type", "str", "notes", "bases", "exported"}`;
- `probe`: the case's probe evaluated after the run, normalised.

Normalisation (`Normaliser`):

- messages become `(class name, type, content, name, tool_calls, tool_call_id, id)`;
- strings that are random uuids (message ids given by `add_messages`) become `<uuid-N>`, numbered in
  order of first appearance: first the chunks (in canonical order, see below) or the result, then the
  probe. A user-given id like `"1"` is kept;
- a subgraph namespace element `name:<uuid>` becomes `name:<id>`; uuids in exception notes
  (`During task with name 'n' and id '...'`) become `<id>`;
- `Send`, `Overwrite`, `Command` and dataclass instances become tagged tuples.

Stream order: within one superstep LangGraph emits `updates` chunks in completion order, which depends
on thread timing; our engine emits them in application order. `Structure` is learnt from an extra
LangGraph run with `stream_mode=[..., "debug"], subgraphs=True`: it cuts the chunk list into
segments, one per (namespace, superstep), and says which segments come from a step that ran two or
more tasks. Those are compared as sorted multisets; everything else is compared in exact order. When
a root step runs several tasks, its whole group of chunks (including those of subgraphs running in
it) is one multiset. The segment sizes come from LangGraph; if a backend produces a different number
of chunks, nothing is reordered and the comparison fails on the difference.
"""

from __future__ import annotations

import dataclasses
import re
import threading
from collections import Counter
from typing import Any

from .backends import ERROR_NAMES, get_backend
from .cases import Case

UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
UUID_RE = re.compile(UUID)
FULL_UUID_RE = re.compile(rf"^{UUID}$")
NS_RE = re.compile(rf"^(?P<name>.*):{UUID}$")
ADDRESS_RE = re.compile(r" at 0x[0-9a-fA-F]+")

#: How long one run may take before the test gives up on it (a hung engine must fail, not hang).
RUN_TIMEOUT_S = 20.0

#: aspect -> (stream kwargs or None for invoke, modes kept from the structural run, all namespaces?)
ASPECTS: dict[str, tuple[dict | None, tuple[str, ...], bool]] = {
    "invoke": (None, (), False),
    "stream_default": ({}, ("updates",), False),
    "updates": ({"stream_mode": "updates"}, ("updates",), False),
    "values": ({"stream_mode": "values"}, ("values",), False),
    "updates_values": ({"stream_mode": ["updates", "values"]}, ("updates", "values"), False),
    "subgraphs": ({"stream_mode": "updates", "subgraphs": True}, ("updates",), True),
    "subgraphs_values": (
        {"stream_mode": ["updates", "values"], "subgraphs": True},
        ("updates", "values"),
        True,
    ),
}


# ---------------------------------------------------------------------------------------------
# Normalisation
# ---------------------------------------------------------------------------------------------


def is_message(x: Any) -> bool:
    return (
        type(x).__name__.endswith("Message")
        and hasattr(x, "content")
        and hasattr(x, "type")
        and not isinstance(x, type)
    )


class Normaliser:
    """Turns backend objects into plain data. With `mask=True` every uuid becomes `<uuid>` (used
    for sort keys); otherwise uuids are numbered in order of first appearance."""

    def __init__(self, mask: bool = False):
        self.mask = mask
        self.ids: dict[str, str] = {}

    def uuid(self, s: str) -> str:
        if self.mask:
            return "<uuid>"
        if s not in self.ids:
            self.ids[s] = f"<uuid-{len(self.ids) + 1}>"
        return self.ids[s]

    def __call__(self, x: Any) -> Any:
        if x is None or isinstance(x, (bool, int, float)):
            return x
        if isinstance(x, str):
            return self.uuid(x) if FULL_UUID_RE.match(x) else x
        if is_message(x):
            return (
                type(x).__name__,
                x.type,
                self(x.content),
                getattr(x, "name", None),
                self(getattr(x, "tool_calls", None)),
                getattr(x, "tool_call_id", None),
                self(x.id) if isinstance(getattr(x, "id", None), str) else getattr(x, "id", None),
            )
        if isinstance(x, dict):
            return {self(k): self(v) for k, v in x.items()}
        if isinstance(x, list):
            return [self(v) for v in x]
        if isinstance(x, tuple) and not hasattr(x, "_fields"):
            return tuple(self(v) for v in x)
        if isinstance(x, (set, frozenset)):
            return ("set", sorted((self(v) for v in x), key=sort_key))
        name = type(x).__name__
        if name == "Send" and hasattr(x, "node") and hasattr(x, "arg"):
            return ("Send", x.node, self(x.arg))
        if name == "Overwrite" and hasattr(x, "value"):
            return ("Overwrite", self(x.value))
        if name == "Command" and hasattr(x, "goto"):
            return (
                "Command",
                self(getattr(x, "graph", None)),
                self(getattr(x, "update", None)),
                self(getattr(x, "resume", None)),
                self(getattr(x, "goto", None)),
            )
        if dataclasses.is_dataclass(x) and not isinstance(x, type):
            return (
                "dataclass",
                name,
                {f.name: self(getattr(x, f.name)) for f in dataclasses.fields(x)},
            )
        if isinstance(x, BaseException):
            return ("exception", name, str(x))
        return ("object", name, ADDRESS_RE.sub("", repr(x)))


def sort_key(x: Any) -> str:
    """A total order on normalised data that ignores dict insertion order."""

    def canon(v):
        if isinstance(v, dict):
            return ("dict", sorted(((repr(k), canon(w)) for k, w in v.items())))
        if isinstance(v, (list, tuple)):
            return (type(v).__name__, [canon(w) for w in v])
        return repr(v)

    return repr(canon(x))


def norm_ns(ns: tuple) -> tuple:
    return tuple(NS_RE.sub(r"\g<name>:<id>", part) for part in ns)


def describe_error(exc: BaseException, lg) -> dict:
    name = type(exc).__name__
    exported = None
    if name in ERROR_NAMES:
        cls = getattr(lg, name, None)
        exported = isinstance(cls, type) and isinstance(exc, cls)
    return {
        "type": name,
        "str": str(exc),
        "notes": [UUID_RE.sub("<id>", n) for n in getattr(exc, "__notes__", [])],
        "bases": [c.__name__ for c in type(exc).__mro__ if c.__module__ == "builtins"],
        "exported": exported,
    }


# ---------------------------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------------------------


def _with_timeout(fn):
    """Run `fn()` in a daemon thread; raise TimeoutError if it does not finish in time."""
    box: dict = {}

    def target():
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - re-raised below
            box["error"] = e

    t = threading.Thread(target=target, daemon=True, name="differential-run")
    t.start()
    t.join(RUN_TIMEOUT_S)
    if t.is_alive():
        raise TimeoutError(f"the run did not finish within {RUN_TIMEOUT_S} s")
    if "error" in box:
        raise box["error"]
    return box["value"]


def run_raw(case: Case, backend_name: str, aspect: str) -> dict:
    """Build, compile and run `case` once; return raw (not normalised) results."""
    lg = get_backend(backend_name)
    out: dict = {"stage": None, "value": None, "error": None, "probe": None}
    stream_kwargs = ASPECTS[aspect][0]

    def go():
        try:
            built = case.build(lg)
        except Exception as e:
            out["stage"], out["error"] = "build", e
            return out
        try:
            graph = built.graph if built.graph is not None else built.builder.compile(**built.compile_kwargs)
        except Exception as e:
            out["stage"], out["error"] = "compile", e
            return out
        args = (built.input,) if built.config is None else (built.input, built.config)
        chunks: list = []
        try:
            if stream_kwargs is None:
                out["value"] = graph.invoke(*args)
            else:
                out["value"] = chunks
                for chunk in graph.stream(*args, **stream_kwargs):
                    chunks.append(chunk)
        except Exception as e:
            out["stage"], out["error"] = "run", e
        if built.probe is not None:
            out["probe"] = built.probe()
        return out

    try:
        return _with_timeout(go)
    except TimeoutError as e:
        return {"stage": "timeout", "value": None, "error": e, "probe": None}


def observe(case: Case, backend_name: str, aspect: str, structure: "Structure | None") -> dict:
    raw = run_raw(case, backend_name, aspect)
    lg = get_backend(backend_name)
    norm = Normaliser()
    obs: dict = {"stage": raw["stage"]}
    if aspect == "invoke":
        obs["result"] = norm(raw["value"])
        obs["keys"] = list(raw["value"]) if isinstance(raw["value"], dict) else None
    else:
        chunks = raw["value"] or []
        if ASPECTS[aspect][2]:  # subgraphs=True: the first element is the namespace
            chunks = [(norm_ns(c[0]), *c[1:]) if isinstance(c, tuple) and c else c for c in chunks]
        if structure is not None:
            chunks = structure.canonical_order(aspect, chunks)
        obs["chunks"] = [norm(c) for c in chunks]
        obs["parallel_segments"] = structure.describe(aspect, len(chunks)) if structure is not None else None
    obs["error"] = describe_error(raw["error"], lg) if raw["error"] is not None else None
    obs["probe"] = norm(raw["probe"])
    return obs


# ---------------------------------------------------------------------------------------------
# The superstep structure of a LangGraph run
# ---------------------------------------------------------------------------------------------


class Structure:
    """Segments of the chunk list of each stream aspect, learnt from one LangGraph run."""

    def __init__(self, events: list[tuple]):
        root_step = 0
        current: dict[tuple, int] = {}
        self.tasks: Counter = Counter()
        self.tagged: list[tuple] = []  # (raw ns, mode, root step, step in ns)
        for ns, mode, chunk in events:
            if mode == "debug":
                step = chunk["step"]
                current[ns] = step
                if ns == ():
                    root_step = step
                if chunk["type"] == "task":
                    self.tasks[(ns, step)] += 1
            else:
                self.tagged.append((ns, mode, root_step, current.get(ns, 0)))

    def segments(self, aspect: str) -> list[tuple[int, bool]]:
        _, modes, all_ns = ASPECTS[aspect]
        segs: list[list] = []
        for ns, mode, rs, step in self.tagged:
            if mode not in modes or (ns != () and not all_ns):
                continue
            root_parallel = self.tasks[((), rs)] >= 2
            key = ("root", rs) if root_parallel else ("ns", rs, ns, step)
            parallel = root_parallel or self.tasks[(ns, step)] >= 2
            if segs and segs[-1][0] == key:
                segs[-1][1] += 1
            else:
                segs.append([key, 1, parallel])
        return [(n, p) for _, n, p in segs]

    def canonical_order(self, aspect: str, chunks: list) -> list:
        segs = self.segments(aspect)
        if sum(n for n, _ in segs) != len(chunks):
            return list(chunks)  # a different number of chunks: compare as is (and fail)
        out: list = []
        i = 0
        mask = Normaliser(mask=True)
        for n, parallel in segs:
            part = chunks[i : i + n]
            i += n
            if parallel:
                part = sorted(part, key=lambda c: sort_key(mask(c)))
            out.extend(part)
        return out

    def describe(self, aspect: str, n_chunks: int) -> list | str:
        """Where the multiset comparison applied: [(start, end), ...] chunk index ranges."""
        segs = self.segments(aspect)
        if sum(n for n, _ in segs) != n_chunks:
            return f"chunk count differs from the reference segmentation ({sum(n for n, _ in segs)})"
        ranges, i = [], 0
        for n, parallel in segs:
            if parallel and n > 1:
                ranges.append((i, i + n))
            i += n
        return ranges


def learn_structure(case: Case) -> Structure:
    """One LangGraph run with debug events and subgraphs, to learn the superstep of every chunk."""
    lg = get_backend("langgraph")
    events: list = []

    def go():
        try:
            built = case.build(lg)
            graph = built.graph if built.graph is not None else built.builder.compile(**built.compile_kwargs)
        except Exception:
            return
        args = (built.input,) if built.config is None else (built.input, built.config)
        try:
            for ev in graph.stream(*args, stream_mode=["updates", "values", "debug"], subgraphs=True):
                events.append(ev)
        except Exception:
            pass

    _with_timeout(go)
    return Structure(events)


# ---------------------------------------------------------------------------------------------
# Checking
# ---------------------------------------------------------------------------------------------


def check_expect(obs: dict, expect: dict) -> list[str]:
    """Differences between an `invoke` observation and the pinned facts of a case."""
    problems = []
    err = obs["error"]
    if "error" in expect:
        want = expect["error"]
        got = (err["type"], err["str"]) if err else None
        if got != want:
            problems.append(f"error: expected {want!r}, got {got!r}")
        if obs["stage"] != expect.get("stage", "run"):
            problems.append(f"stage: expected {expect.get('stage', 'run')!r}, got {obs['stage']!r}")
        if "notes" in expect and err and err["notes"] != expect["notes"]:
            problems.append(f"notes: expected {expect['notes']!r}, got {err['notes']!r}")
    elif err is not None:
        problems.append(f"unexpected error {err['type']}: {err['str']}")
    if "result" in expect and obs.get("result") != expect["result"]:
        problems.append(f"result: expected {expect['result']!r}, got {obs.get('result')!r}")
    if "probe" in expect and obs["probe"] != expect["probe"]:
        problems.append(f"probe: expected {expect['probe']!r}, got {obs['probe']!r}")
    return problems


def diff_observations(actual: dict, reference: dict) -> list[str]:
    """Field-by-field differences, each shown with both values (pytest's dict diff is too terse)."""
    problems = []
    for key in reference:
        if key == "parallel_segments":
            continue
        a, r = actual.get(key), reference.get(key)
        if a == r:
            continue
        if key == "chunks" and isinstance(a, list) and isinstance(r, list):
            lines = [f"chunks differ ({len(a)} vs reference {len(r)}):"]
            for i in range(max(len(a), len(r))):
                ca = a[i] if i < len(a) else "<missing>"
                cr = r[i] if i < len(r) else "<missing>"
                mark = "  " if ca == cr else "!!"
                lines.append(f"  {mark} [{i}] got {ca!r}")
                if ca != cr:
                    lines.append(f"       [{i}] ref {cr!r}")
            lines.append(f"  multiset ranges: {reference.get('parallel_segments')}")
            problems.append("\n".join(lines))
        else:
            problems.append(f"{key}:\n  got {a!r}\n  ref {r!r}")
    return problems
