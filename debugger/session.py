"""The only module that touches `st.session_state` and the URL (`st.query_params`).

Session state holds: the loaded run (`LoadedRun`: its Trace, and the live graph when the run came from
code), the cursor, and small UI settings. The URL holds what a link must reopen: the run (`run=<id>`,
a stored run, or `sample=<name>`), the `step`, the merge position `call` and the subgraph `scope`.
Callbacks change the cursor; views only read it.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import streamlit as st

from debugger.model import Cursor, Scope, TraceView
from debugger.sources import Opened

RUN = "stepscope_run"
STEP_PAGE = "stepscope_step_page"
GO_TO_STEP = "stepscope_go_to_step"
CURSOR = "stepscope_cursor"


@dataclass
class LoadedRun(Opened):
    """An opened run (`sources.Opened`: its Trace, and the live graph when it came from code) plus
    the view-model the pages read."""

    view: TraceView | None = None

    def __post_init__(self) -> None:
        if self.view is None:
            self.view = TraceView(self.trace)

    @classmethod
    def of(cls, opened: Opened) -> "LoadedRun":
        return cls(**{f.name: getattr(opened, f.name) for f in fields(opened)})


def loaded_run() -> LoadedRun | None:
    return st.session_state.get(RUN)


def set_run(run: LoadedRun, *, step: int | None = None, scope: Scope | None = None, call: int | None = None) -> None:
    st.session_state[RUN] = run
    view = run.view.view(Scope())
    cursor = run.view.valid(Cursor(scope or Scope(), view.first if step is None else step, call))
    st.session_state[CURSOR] = cursor
    _write_url(run, cursor)


def cursor() -> Cursor:
    return st.session_state.get(CURSOR) or Cursor()


def move(to: Cursor) -> None:
    """Sets the cursor (clamped to what exists) and the URL. Call from callbacks only."""
    run = loaded_run()
    if run is None:
        return
    valid = run.view.valid(to)
    st.session_state[CURSOR] = valid
    _write_url(run, valid)


def _write_url(run: LoadedRun, at: Cursor) -> None:
    params: dict[str, str] = {}
    if run.source == "sample":
        params["sample"] = run.label
    else:
        params["run"] = run.trace.run_id
    params["step"] = str(at.step)
    if at.call is not None:
        params["call"] = str(at.call)
    if at.scope.path:
        params["scope"] = encode_scope(at.scope)
    if dict(st.query_params) != params:  # writing the same URL again would only add history entries
        st.query_params.clear()
        st.query_params.update(params)


def sync_url() -> None:
    """Puts the cursor back in the URL (switching pages clears the query string)."""
    run = loaded_run()
    if run is not None:
        _write_url(run, cursor())


def url_request() -> dict[str, str]:
    """What the URL asks for (read once, when a session starts)."""
    return {k: st.query_params[k] for k in ("sample", "run", "step", "call", "scope", "graph", "thread") if k in st.query_params}


def encode_scope(scope: Scope) -> str:
    return "/".join(f"{step}.{task_id}.{index}" for step, task_id, index in scope.path)


def decode_scope(text: str) -> Scope:
    path = []
    for part in filter(None, text.split("/")):
        step, task_id, index = part.split(".")
        path.append((int(step), task_id, int(index)))
    return Scope(tuple(path))


def widget_value(key: str, default: Any = None) -> Any:
    """The current value of a keyed widget (for callbacks that read their own widget)."""
    return st.session_state.get(key, default)


def once(flag: str) -> bool:
    """True the first time it is asked in this session (e.g. to read the URL only once)."""
    if st.session_state.get(flag):
        return False
    st.session_state[flag] = True
    return True


def bump(counter: str) -> int:
    st.session_state[counter] = st.session_state.get(counter, 0) + 1
    return st.session_state[counter]


def remember(key: str, value: Any) -> None:
    st.session_state[key] = value


def recall(key: str, default: Any = None) -> Any:
    return st.session_state.get(key, default)


def request_step_page() -> None:
    """From a callback: show the step-through page once this rerun reaches a page (see `follow`)."""
    st.session_state[GO_TO_STEP] = True


def follow_step_page_request() -> None:
    """Called by a page while rendering: switches to the step-through page if a callback asked to."""
    if st.session_state.pop(GO_TO_STEP, False) and st.session_state.get(STEP_PAGE) is not None:
        st.switch_page(st.session_state[STEP_PAGE])
