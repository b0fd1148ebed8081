"""The only module that touches `st.session_state`; the URL is written from it through `page_url`.

Session state holds: the loaded run (`LoadedRun`: its Trace, and the live graph when the run came from
code), the cursor, and small UI settings. Each page's URL holds what a link to that page must reopen
(`page_url` says what, page by page), and the language of the page (`lang=zh`; `debugger.i18n`).
Callbacks change the cursor; views only read it.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from debugger import i18n
from debugger.model.trace_view import Cursor, Scope, TraceView
from debugger.sources.runs import Opened
from debugger.views import page_url

RUN = "stepscope_run"
LIVE_RUN = "live_run"
"""The Live run page's `LiveRun`, its own and never the step-through run."""
LIVE_FOLLOW = "live_follow"
"""Whether the Live run page follows the newest step (False once the user stepped back)."""
LIVE_SHOWN = "live_shown"
"""The step the Live run page shows when it does not follow the newest."""
LIVE_EDIT_NOTE = "live_edit_note"
"""How the last edit or answer at a live pause went: ("ok" | "error", text)."""
LIVE_MISSING = "live_missing"
"""The run id a Live run page's link names that is not live in this server (ended, or the server restarted)."""
STEP_PAGE = "stepscope_step_page"
GO_TO_STEP = "stepscope_go_to_step"
CURSOR = "stepscope_cursor"
OPEN_ERROR = "open_error"
LINK_ERROR = "link_error"
"""Why the run a link named could not be opened (the step page says it too; the sidebar's own errors stay there)."""
UNOPENED_LESSON = "unopened_lesson"
"""(run ref, lesson name) of a JavaScript lesson a link named that this machine cannot run: its URL is kept."""
"""(message, file, line) of the last open that failed, shown at the top of the sidebar."""
ACTION_ERROR = "action_error"
"""(where, message, detail) of the last action that failed (fork, what-if, answer), shown in place."""
FORK_RESULT = "time_travel_fork"
"""(Fork or None, error message or None) of the last fork or resume."""
FORK_PARENT = "fork_parent"
"""`run_ref` of the run a branch was made from, for "Back to the original run"; also in the URL."""
SHOWN_PAGE = "stepscope_shown_page"
"""The url_path of the page on screen: it decides what the URL names (`page_url`)."""
PLAYGROUND_LINKED_CODE = "playground_linked_code"
"""A reducer of its own that a link brought, not run until the learner says so (a link must not run code)."""
GUESSES = "learn_guesses"
"""Learn mode: {(scope, step, call index): Verdict} of the guesses made."""

# widget keys: the views create the widgets, callbacks read them here
LEARN = "learn_mode"
UI_LANGUAGE = "ui_language"
"""The language the page speaks (a tag of `i18n.LANGUAGES`): the sidebar's switch."""
BROWSER_LANGUAGE = "browser_language"
"""The language the browser asked for (Accept-Language) when the session started, or None."""
STEP_SLIDER = "step_slider"
STEPPER = "stepscope_stepper"
"""The Step-through page's stepper component (views/stepper.py): its state is the last move it reported."""
STEPPER_SEEN = "stepscope_stepper_seen"
"""The `seq` of the last move the page has followed (each move is followed once)."""
STEPPER_DRAWN = "stepscope_stepper_drawn"
"""Whether this browser session's stepper has drawn its first graph (it says so once): until then the
Step-through page sends the stepper alone (views/stepper.py `first_paint`)."""
DRAWN_WAITED = "stepscope_drawn_waited"
"""Whether the first paint's wait for the stepper's word has started (its fragment's first run)."""
SAMPLE_CHOICE = "sample_choice"
LESSON_LANGUAGE = "lesson_language"
FILE_TARGET = "file_target"
FILE_INPUT = "file_input"


def file_option(name: str) -> str:
    """The key of the Graph file form's field for the run option `name` (`run_options.RUN_OPTIONS`)."""
    return f"file_{name}"


THREAD_ANSWER = "thread_answer"
THREAD_CHECKPOINTER = "thread_checkpointer"
THREAD_LIST = "thread_list"
"""Checkpointer threads listed in the sidebar: [(thread id, label)]."""
THREAD_GRAPH = "thread_graph"
THREAD_CHOICE = "thread_choice"
THREAD_ORIGINS = "thread_origins"
"""Checkpointer threads opened in this session: {run id: (graph target, checkpointer URL, thread id)}; the
URL may hold a password, so it lives here and never in the page address."""
TT_THREAD_NODE = "tt_thread_node"
TT_THREAD_KEY = "tt_thread_key"
TT_THREAD_VALUE = "tt_thread_value"
TT_THREAD_ANSWER = "tt_thread_answer"
STORED_CHOICE = "stored_choice"
STORED_PICKED_FOR = "stored_picked_for"
"""The run id the stored-run picker was last set to because it was the run on screen."""
TRACE_UPLOAD = "trace_upload"
RERUN_INPUT = "rerun_input"
OPEN_KIND = "open_kind"
TT_NODE = "tt_node"
TT_KEY = "tt_key"
TT_VALUE = "tt_value"
TT_ANSWER = "tt_answer"
FORK_FORM_AT = "fork_form_at"
"""(run id, step) the fork form's choices were last filled in for: another step starts from its own defaults."""
THREAD_FORK_FORM_AT = "thread_fork_form_at"
"""The same for the time-travel form of a checkpointer thread."""
WHATIF_CHANNEL = "whatif_channel"
WHATIF_ORDER = "whatif_order"
WHATIF_SKIP = "whatif_skip"
STATE_KEY = "state_key"
STEP_TABS = "step_tabs"
OPEN_TAB = "open_tab"
"""The step page's open tab, by its id (`panels.TAB_IDS`); in the URL as `tab` when it is not the first."""
"""The first word of the step page's open tab ("Merge", "Errors"...), kept across steps."""
TIMELINE_OPEN = "timeline_open"
CODE_OPEN = "code_open"
"""Whether the step page's code expander is open; folded, its highlighted code is not built."""
COLLAPSE_SUBGRAPHS = "collapse_subgraphs"
EXERCISE_VERDICTS = "exercise_verdicts"
"""Lesson name -> the verdicts of the learner's tries at its exercise, newest last."""


@dataclass
class LoadedRun(Opened):
    """An opened run (`sources.Opened`: its Trace, and the live graph when it came from code) plus
    the view-model the pages read."""

    view: TraceView | None = None

    def __post_init__(self) -> None:
        if self.view is None:
            self.view = TraceView(self.trace, self.graph, background=True)  # a long run: findings come later

    @classmethod
    def of(cls, opened: Opened) -> "LoadedRun":
        return cls(**{f.name: getattr(opened, f.name) for f in fields(opened)})


def loaded_run() -> LoadedRun | None:
    return st.session_state.get(RUN)


def set_run(run: LoadedRun, *, step: int | None = None, scope: Scope | None = None, call: int | None = None) -> None:
    st.session_state[RUN] = run
    if run.source == "sample":  # the sidebar's sample choice and language switch show the lesson now open
        st.session_state[SAMPLE_CHOICE] = run.label
        st.session_state[LESSON_LANGUAGE] = "JavaScript" if run.language == "javascript" else "Python"
    if run.origin is not None:  # a checkpointer thread: noted for time travel on it, never put in the URL
        st.session_state[THREAD_ORIGINS] = {
            **(st.session_state.get(THREAD_ORIGINS) or {}),
            run.trace.run_id: run.origin,
        }
    view = run.view.view(Scope())
    cursor = run.view.valid(Cursor(scope or Scope(), view.opening_step if step is None else step, call))
    if call is None and learning():
        cursor = replace(cursor, call=0)
    _set_cursor(run, cursor)


def thread_origin(run_id: str) -> tuple[str, str, str] | None:
    """(graph target, checkpointer URL, thread id) of a checkpointer thread opened in this session."""
    return (st.session_state.get(THREAD_ORIGINS) or {}).get(run_id)


def cursor() -> Cursor:
    return st.session_state.get(CURSOR) or Cursor()


def move(to: Cursor) -> None:
    """Sets the cursor (clamped to what exists) and the URL. Call from callbacks only."""
    run = loaded_run()
    if run is None:
        return
    _set_cursor(run, run.view.valid(to))


def _set_cursor(run: LoadedRun, at: Cursor) -> None:
    st.session_state[CURSOR] = at
    st.session_state[STEP_SLIDER] = at.step  # the slider follows every move, never set while rendering
    st.session_state.pop(ACTION_ERROR, None)
    _write_url(run, at)


def learning() -> bool:
    """Learn mode: each reducer call's result stays hidden until the learner has guessed it."""
    return bool(st.session_state.get(LEARN))


def _url_of(page: str, run: LoadedRun | None, at: Cursor) -> dict[str, str]:
    """`page`'s URL (`page_url`): the run and the cursor where that page shows them, its own parameters."""
    run_named = page_url.run_params(run, st.session_state.get(FORK_PARENT)) if run is not None else {}
    at_named = page_url.cursor_params(at, st.session_state.get(OPEN_TAB))
    return page_url.page_params(page, run_named, at_named, language_param())


def _write_url(run: LoadedRun | None, at: Cursor) -> None:
    page_url.set_url(_url_of(shown_page(), run, at))


def sync_url() -> None:
    """Puts what the shown page shows back in its URL (switching pages clears the query string). A run page
    with no run open keeps the URL it was given (a JavaScript lesson this machine cannot run yet)."""
    run = loaded_run()
    if run is not None or shown_page() not in page_url.RUN_PAGES:
        _write_url(run, cursor())


def shown_page() -> str:
    """The url_path of the page this session shows (its callbacks run on it); `app.py` notes it on each run."""
    return st.session_state.get(SHOWN_PAGE, page_url.STEP_PAGE)


def write_live_url(run_id: str | None, step: int | None = None) -> None:
    """The Live run page's URL: `?run=<id>` of the live run it shows (nothing when it shows none) and the
    `step` its stepper is at."""
    params = {"run": run_id, **({"step": str(step)} if step is not None else {})} if run_id else {}
    page_url.set_url({**params, **language_param()})


def page_link(page: str) -> dict[str, str] | None:
    """The parameters of `page` the URL names when they differ from what this session last wrote there (a
    link was opened, or Back or Forward pressed); None when it names none, or what is on screen."""
    return page_url.page_link(page, st.session_state.get(f"page_url_{page}"))


def write_page_url(page: str, params: dict[str, str]) -> None:
    """`page`'s own parameters in the URL (what is chosen on it), beside the open run's where it shows it."""
    st.session_state[f"page_url_{page}"] = dict(params)
    others = {k: v for k, v in _url_of(page, loaded_run(), cursor()).items() if k not in page_url.PAGE_KEYS[page]}
    page_url.set_url({**others, **params})


def in_browser() -> bool:
    """Whether a browser asked for this run (a test's AppTest sends no request headers)."""
    try:
        return bool(st.context.headers)
    except Exception:  # no request behind this run
        return False


def _browser_language() -> str | None:
    """The first language of the browser's Accept-Language that the app speaks, or None."""
    try:
        return i18n.from_accept_language(st.context.headers.get("Accept-Language"))
    except Exception:  # no request behind this run (a test's AppTest): no browser to follow
        return None


def _session_language() -> str | None:
    """The language of the session whose script or callback is running in this thread, or None outside one."""
    if get_script_run_ctx(suppress_warning=True) is None:
        return None
    return st.session_state.get(UI_LANGUAGE)


i18n.follow(_session_language)


def apply_language() -> str:
    """Makes the page speak its language for this run of the script, and returns its tag: the sidebar's
    choice, else (a session's first run) the URL's `lang`, else the browser's language, else English."""
    if UI_LANGUAGE not in st.session_state:
        st.session_state[BROWSER_LANGUAGE] = _browser_language()
        st.session_state[UI_LANGUAGE] = (
            i18n.parse(st.query_params.get("lang")) or st.session_state[BROWSER_LANGUAGE] or i18n.DEFAULT
        )
    language = st.session_state[UI_LANGUAGE]
    i18n.set_language(language)
    return language


def language_param() -> dict[str, str]:
    """`{"lang": "zh"}` for the URL when the page speaks other than English, or than the browser asked for
    (so a reload keeps the choice); nothing for an English page in an English browser."""
    language = st.session_state.get(UI_LANGUAGE, i18n.DEFAULT)
    if language == i18n.DEFAULT and st.session_state.get(BROWSER_LANGUAGE) in (None, i18n.DEFAULT):
        return {}
    return {"lang": i18n.URL_CODES[language]}


def widget_value(key: str, default: Any = None) -> Any:
    """The current value of a keyed widget (for callbacks that read their own widget)."""
    return st.session_state.get(key, default)


def bump(counter: str) -> int:
    st.session_state[counter] = st.session_state.get(counter, 0) + 1
    return st.session_state[counter]


def remember(key: str, value: Any) -> None:
    """Keeps a value under one of the keys named at the top of this module."""
    st.session_state[key] = value


def defaults_for(marker: str, here: Any, values: dict[str, Any]) -> None:
    """Sets widgets to `values` once for each `here` (a run and step): a selectbox keeps its choice across
    reruns (its key is its identity), so a form that should start from the shown step's defaults sets them
    when the step changes, before its widgets are made. The user's choices stand until then."""
    if st.session_state.get(marker) != here:
        st.session_state.update(values)
        st.session_state[marker] = here


def open_tab(tab: str) -> None:
    """From the tabs' callback or a link: the step page shows tab `tab` (an id of `panels.TAB_IDS`), and the
    URL says so."""
    st.session_state[OPEN_TAB] = tab
    sync_url()


def follow_tab(request: dict[str, str]) -> None:
    """A URL that names a run names its open tab too (none: the first); a tab the page does not have is the first."""
    tab = request.get("tab", page_url.TAB_IDS[0])
    st.session_state[OPEN_TAB] = tab if tab in page_url.TAB_IDS else page_url.TAB_IDS[0]


def show_tab(label: str) -> None:
    """Before the step page's tabs are made: they open on `label` (the remembered tab's, which a link may
    have changed since the tabs last reported theirs)."""
    st.session_state[STEP_TABS] = label


def set_widgets(values: dict[str, Any]) -> None:
    """Puts values into keyed widgets before they are made (a link's choices); the widgets must then be made
    without a default of their own (Streamlit warns of a widget given both)."""
    st.session_state.update(values)


def default_widgets(values: dict[str, Any]) -> None:
    """Gives keyed widgets their first values, leaving the ones the user has set."""
    for key, value in values.items():
        st.session_state.setdefault(key, value)


def recall(key: str, default: Any = None) -> Any:
    return st.session_state.get(key, default)


def action_error() -> tuple[str, str, str] | None:
    return st.session_state.get(ACTION_ERROR)


def report_action_error(where: str, message: str, detail: str = "") -> None:
    """From a callback: an action failed; the view named `where` shows `message` in place."""
    st.session_state[ACTION_ERROR] = (where, message, detail)


def guess(scope: Any, step: int, call: int) -> Any:
    return st.session_state.get(GUESSES, {}).get((scope, step, call))


def guessed_calls(scope: Any) -> set[tuple[int, int]]:
    """(step, call index) of every reducer call of `scope` the learner has guessed."""
    return {(step, call) for (where, step, call) in st.session_state.get(GUESSES, {}) if where == scope}


def record_guess(scope: Any, step: int, call: int, verdict: Any) -> None:
    st.session_state.setdefault(GUESSES, {})[(scope, step, call)] = verdict


def request_step_page() -> None:
    """From a callback: show the step-through page once this rerun reaches a page (see `follow`)."""
    st.session_state[GO_TO_STEP] = True


def follow_step_page_request() -> None:
    """Called by a page while rendering: switches to the step-through page if a callback asked to, with that
    page's URL (the run the callback opened), not this page's."""
    if st.session_state.pop(GO_TO_STEP, False) and st.session_state.get(STEP_PAGE) is not None:
        st.switch_page(st.session_state[STEP_PAGE], query_params=_url_of(page_url.STEP_PAGE, loaded_run(), cursor()))


def reset_widget(key: str, value: object) -> None:
    """From a callback: the keyed widget shows `value` again (an exercise started over). Setting the value, not
    forgetting the key: the browser still holds the widget's edited text and would send it straight back."""
    st.session_state[key] = value
