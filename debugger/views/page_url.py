"""Each page's URL (`st.query_params`) names what is on that page, and only that.

The Step-through page names its run (`sample=<name>`, with `runtime=js` for a lesson's JavaScript twin, or
`run=<id>`; a checkpointer thread's `checkpointer` when it holds no secret; a fork's `parent`) and where it
stands (`step`, the merge position `call`, the subgraph `scope`, the open `tab`). Compare names that run as
its A beside its own `b` and `b_step`; the Playground names its set-up (`reducer`, `start`, `A`..`E`,
`custom`); the Live run page its live run (`run`) and the step shown (`step`); the Gallery and Stored runs
pages nothing. Every page names the language it speaks (`lang=zh`).
A page's parameters never ride along into another's URL.

The state these are made from lives in `session.py`, which calls these functions; this module reads and
writes only the URL.
"""

from __future__ import annotations

import streamlit as st

from debugger.model.playground import LINK_KEYS as PLAYGROUND_KEYS
from debugger.model.trace_view import Cursor, Scope
from debugger.sources import reopen

STEP_PAGE = ""
"""The Step-through page's url_path (the default page's is always "")."""
RUN_KEYS = ("sample", "runtime", "run", "checkpointer", "parent")
"""How a URL names the open run."""
CURSOR_KEYS = ("step", "call", "scope", "tab")
"""Where the Step-through page stands in that run."""
COMPARE_KEYS = ("b", "b_step")
"""The Compare page's query parameters: the stored run B, and the step shown in detail."""
PAGE_KEYS = {"playground": PLAYGROUND_KEYS, "compare": COMPARE_KEYS, "live": ("run", "step")}
"""Query parameters a page owns itself (not made from the open run)."""
RUN_PAGES = (STEP_PAGE, "compare")
"""The pages that show the open run, and so name it in their URL (Compare as its A)."""
REQUEST_KEYS = (*RUN_KEYS, *CURSOR_KEYS, "graph", "thread")
"""What a URL may ask a run page to open (`graph` and `thread`: `stepscope app ... --thread ID`)."""

TAB_IDS = (
    "merge",
    "tasks",
    "state",
    "versions",
    "errors",
    "findings",
    "what-if",
    "subgraphs",
    "time-travel",
    "exercise",
)
"""The step page's tabs as the URL names them (`?tab=state`), in the order they are shown (the labels are
translated and carry counts, so a link cannot name them). The first is left out of the URL."""

LANGUAGE_PARAMS = {"python": "py", "javascript": "js"}
"""A lesson's programming language as its link names it (`?sample=fan_out_search&runtime=js`); `lang` is the
language the page speaks (`?lang=zh`)."""


def run_params(run, parent: str | None) -> dict[str, str]:
    """How the URL names `run` (a `LoadedRun`); `parent` is the run a fork was made from."""
    params: dict[str, str] = {}
    if run.source == "sample":
        params["sample"] = run.label
        if run.language != "python":  # the lesson's JavaScript twin: the link must reopen that one
            params["runtime"] = LANGUAGE_PARAMS[run.language]
    else:
        params["run"] = run.trace.run_id
    checkpointer = reopen.linkable_checkpointer(run.origin[1]) if run.source == "thread" and run.origin else ""
    if checkpointer:  # a file or a URL without secrets: the link reopens the thread for time travel
        params["checkpointer"] = checkpointer
    if run.source == "fork" and parent:
        params["parent"] = parent
    return params


def cursor_params(at: Cursor, tab: str | None) -> dict[str, str]:
    """Where the Step-through page stands: the step, merge call, subgraph scope and open tab."""
    params = {"step": str(at.step)}
    if at.call is not None:
        params["call"] = str(at.call)
    if at.scope.path:
        params["scope"] = encode_scope(at.scope)
    if tab and tab != TAB_IDS[0]:
        params["tab"] = tab
    return params


def page_params(page: str, run_named: dict[str, str], at_named: dict[str, str], lang: dict[str, str]) -> dict:
    """The whole URL of `page`: the open run's parameters where the page shows that run, the page's own
    parameters as the URL holds them now, and the language."""
    params = dict(run_named) if page in RUN_PAGES else {}
    if page == STEP_PAGE:
        params.update(at_named)
    own = PAGE_KEYS.get(page, ())
    params.update({k: v for k, v in st.query_params.items() if k in own and k not in params})
    return {**params, **lang}


_WRITTEN = "page_url_written"
"""The session's key of the parameters this session last wrote in the URL."""


def set_url(params: dict[str, str]) -> None:
    """Writes `params` in the browser's URL. The query string a run sees is the one the browser sent with
    the rerun's request: two quick moves send two requests before the first rerun's URL reaches it, so the
    second sees the URL of before the first and, were only that compared, would not write its own (the
    address bar kept the first move's step). The browser adds no history entry for a URL it already shows."""
    if dict(st.query_params) != params or st.session_state.get(_WRITTEN, params) != params:
        st.query_params.from_dict(params)  # one history entry a change (clear + update made two: Back hit a blank)
    st.session_state[_WRITTEN] = dict(params)


def page_link(page: str, last_written: dict[str, str] | None) -> dict[str, str] | None:
    """The parameters of `page` (a key of `PAGE_KEYS`) the URL names when they differ from `last_written`
    (a link was opened, or Back or Forward pressed); None when it names none, or what is on screen."""
    params = {k: st.query_params[k] for k in PAGE_KEYS[page] if k in st.query_params}
    if not params or params == last_written:
        return None
    return params


def url_request() -> dict[str, str]:
    """What the URL asks for (read on every run of a page: the URL is the truth of what it shows). A link
    from before the page spoke Chinese named a lesson's JavaScript twin `lang=js`: it still opens it."""
    request = {k: st.query_params[k] for k in REQUEST_KEYS if k in st.query_params}
    if st.query_params.get("lang") in LANGUAGE_PARAMS.values() and "runtime" not in request:
        request["runtime"] = st.query_params["lang"]
    return request


def url_run_ref(request: dict[str, str]) -> str | None:
    """The run a URL request names, as `run_ref` names an open run (None when it names none; a
    checkpointer thread named by `graph`/`thread` is a run not open yet, until its run id is known)."""
    if request.get("thread"):
        return f"thread:{request.get('graph', '')}:{request['thread']}"
    if request.get("run"):
        return request["run"]
    if request.get("sample"):
        language = request.get("runtime", "")
        return f"sample:{request['sample']}" + (f":{language}" if language and language != "py" else "")
    return None


def run_ref(run) -> str:
    """How a URL names a run (a `LoadedRun`): `sample:<name>` for a sample opened by its link, else its run id."""
    if run.source != "sample":
        return run.trace.run_id
    return f"sample:{run.label}" + (f":{LANGUAGE_PARAMS[run.language]}" if run.language != "python" else "")


def encode_scope(scope: Scope) -> str:
    return "/".join(f"{step}.{task_id}.{index}" for step, task_id, index in scope.path)


def decode_scope(text: str) -> Scope:
    path = []
    for part in filter(None, text.split("/")):
        step, task_id, index = part.split(".")
        path.append((int(step), task_id, int(index)))
    return Scope(tuple(path))
