"""The sidebar: open a run (a sample, a graph file, a stored run, an uploaded trace) and its summary."""

from __future__ import annotations

import json
from typing import Callable

import streamlit as st

from debugger import i18n
from debugger.i18n import N_, _, ngettext
from debugger.model import run_status
from debugger.model.trace_view import Cursor, Scope
from debugger.runtimes.run_options import RUN_OPTIONS
from debugger.sources import checkpointer_threads as thread_sources
from debugger.sources import forks as timetravel
from debugger.sources import runs as sources
from debugger.stores.opening import open_store
from debugger.stores.protocol import StoreError
from debugger.views import checkpointer_form as checkpointer_threads
from debugger.views import linked_samples, page_url, report_download, session, widgets
from debugger.views import thread_panel as threads
from debugger.views.session import LoadedRun
from sample_graphs.gallery import JS_LESSONS, SAMPLES, js_lesson_for, list_samples, sample_info

LANGUAGES = ["Python", "JavaScript"]
OPEN_KINDS = [N_("Sample"), N_("Graph file"), N_("Stored run"), N_("Trace file"), N_("Checkpointer thread")]
"""What the sidebar opens; the radio's values stay these English words, its labels are translated."""

DEFAULT_SAMPLE = "subgraph_trap"


def sample_titles() -> Callable[[str], str]:
    """A picker's `format_func` naming each sample by its lesson's title, in the page's language (bound now:
    Streamlit may call it outside the script's thread, as `i18n.translator` says)."""
    translate = i18n.translator()
    return lambda name: translate(sample_info(name).title)


def _adopt(opened: sources.Opened, *, step: int | None = None, call: int | None = None, scope=None) -> None:
    run = opened if isinstance(opened, LoadedRun) else LoadedRun.of(opened)
    session.set_run(run, step=step, call=call, scope=scope)
    session.remember(session.OPEN_ERROR, None)
    session.remember(session.LINK_ERROR, None)
    session.remember(session.UNOPENED_LESSON, None)


def follow_url() -> None:
    """On every run of a page that shows the step-through run: the URL is the truth of what is open. A URL
    naming another run opens it; naming the open run at another step (history navigation) moves there;
    naming nothing (a page switch cleared it) gets the open run's back; with nothing open at all, the
    default sample is opened. A page that does not show that run (the Playground, the Gallery, Stored runs)
    names only its own things in its URL."""
    if session.shown_page() not in page_url.RUN_PAGES:
        session.sync_url()
        return
    request = page_url.url_request()
    run = session.loaded_run()
    named = page_url.url_run_ref(request)
    if run is None and named is not None and named == (session.recall(session.UNOPENED_LESSON) or ("",))[0]:
        return  # a JavaScript lesson this machine cannot run: its page says what to install, under its URL
    if named is not None and (run is None or named != page_url.run_ref(run) or "step" in request):
        session.follow_tab(request)  # a URL naming the open run but no step (Compare's A) leaves it where it is
    if run is not None and named is None:
        session.sync_url()
    elif run is not None and named == page_url.run_ref(run):
        at = _url_cursor(request)
        if at is not None and run.view.valid(at) != session.cursor():
            session.move(at)
        else:  # the same view, or a step that does not exist (shown clamped): the URL says what is shown
            session.sync_url()
    else:
        _open_url(request)


def _url_cursor(request: dict[str, str]) -> Cursor | None:
    """The step, merge call and subgraph scope the URL names (None when it names no step)."""
    if not request.get("step", "").lstrip("-").isdigit():
        return None
    try:
        scope = page_url.decode_scope(request["scope"]) if request.get("scope") else Scope()
    except ValueError:
        scope = Scope()
    call = int(request["call"]) if request.get("call", "").isdigit() else None
    return Cursor(scope, int(request["step"]), call)


def _open_url(request: dict[str, str]) -> None:
    """Opens what the URL names (a sample, a stored run with its code, a checkpointer thread), else the
    default sample; a URL that cannot be opened is said in one line above the default sample."""
    at = _url_cursor(request)
    error = None
    try:
        if request.get("thread"):  # `stepscope app my_app.py:graph --checkpointer URL --thread ID`
            opened = thread_sources.open_for_app(request.get("graph", ""), request["thread"])
        elif request.get("run"):
            opened = sources.open_stored(request["run"], with_code=True, checkpointer=request.get("checkpointer", ""))
            session.remember(session.FORK_PARENT, request.get("parent") if opened.source == "fork" else None)
        else:
            name, language = request.get("sample") or DEFAULT_SAMPLE, request.get("runtime", "")
            # a Python lesson opened by its link is recorded once per server; a JavaScript one runs in node
            opened = sources.open_lesson(name, language) if language else linked_samples.open_linked(name)
    except sources.OpenError as exc:
        error = (str(exc), exc.file, exc.line)
        if request.get("sample") and request.get("runtime") == "js":
            _keep_unopened_lesson(page_url.url_run_ref(request), request["sample"], error)
            return
        opened, at = linked_samples.open_linked(DEFAULT_SAMPLE), None
    _adopt(opened, step=at.step if at else None, call=at.call if at else None, scope=at.scope if at else None)
    session.remember(session.OPEN_KIND, _open_kind(opened))
    if session.recall(session.OPEN_KIND) == "Graph file":
        session.remember(session.FILE_TARGET, timetravel.origin_target(opened.trace.target))
    if opened.source == "thread" and opened.origin:  # the form names the app graph the thread was read with
        session.remember(session.THREAD_GRAPH, opened.origin[0])
    if error:  # after _adopt, which clears the error of the previous open
        session.remember(session.OPEN_ERROR, error)
        session.remember(session.LINK_ERROR, error)


def _keep_unopened_lesson(ref: str, name: str, error: tuple[str, str | None, int | None]) -> None:
    """A JavaScript lesson's link this machine cannot run (no node, or its packages not installed): nothing is
    open and the URL stays the lesson's, so the step page can say what to install and a reload, once it is
    installed, opens the lesson; the default sample in its place would have lost the link."""
    session.remember(session.RUN, None)
    session.remember(session.UNOPENED_LESSON, (ref, name))
    session.remember(session.OPEN_ERROR, None)  # the lesson's page says it, once
    session.remember(session.LINK_ERROR, error)
    twin = JS_LESSONS.get(name, name)
    if twin in SAMPLES:  # the sample picker names the lesson on screen, not the default one
        session.remember(session.SAMPLE_CHOICE, twin)


def _open_kind(opened: sources.Opened) -> str:
    """The sidebar's Open choice that names where `opened` came from (a stored run that got its code back
    is shown as the sample or graph file it was made from)."""
    if opened.source == "thread":
        return "Checkpointer thread"
    if opened.graph is not None and opened.source not in ("fork", "sample"):
        return "Sample" if timetravel.origin_target(opened.trace.target) in SAMPLES else "Graph file"
    return {"file": "Graph file", "stored": "Stored run", "fork": "Stored run", "upload": "Trace file"}.get(
        opened.source, "Sample"
    )


def _open(action) -> None:
    try:
        _adopt(action())
    except sources.OpenError as exc:
        session.remember(session.OPEN_ERROR, (str(exc), exc.file, exc.line))
    except Exception as exc:  # anything else the user's graph does while loading: said in one line, page kept
        session.remember(session.OPEN_ERROR, (f"Could not open the run: {type(exc).__name__}: {exc}", None, None))


def open_and_show(action) -> None:
    """From another page's callback: opens the run, then shows it on the step-through page."""
    _open(action)
    if session.recall(session.OPEN_ERROR) is None:
        session.request_step_page()


def _on_sample() -> None:
    _open(lambda: sources.open_sample(session.widget_value(session.SAMPLE_CHOICE)))


def _on_language() -> None:
    run = session.loaded_run()
    if run is None or run.source != "sample":
        return
    chosen = session.widget_value(session.LESSON_LANGUAGE)
    if chosen is None:  # the chosen language clicked again: nothing to switch to
        return
    _open(lambda: sources.open_lesson(run.label, "js" if chosen == "JavaScript" else ""))


def language_switch(run: LoadedRun | None, *, key: str) -> None:
    """Python | JavaScript, for a gallery lesson that has a JavaScript twin (`gallery.JS_LESSONS`)."""
    if run is None or run.source != "sample" or js_lesson_for(run.label) is None:
        return
    st.segmented_control(
        _("Language of the code"),
        LANGUAGES,
        key=key,
        on_change=_on_language,
        help=_("The same lesson, as the article writes it"),
    )


def _on_file() -> None:
    target = (session.widget_value(session.FILE_TARGET) or "").strip()
    if not target:
        session.remember(
            session.OPEN_ERROR, ("Name a graph: path/to/file.py[:attribute] or package.module[:attribute].", None, None)
        )
        return
    # every run option `stepscope run` takes, as its field holds it (`thread_panel.file_options`)
    fields = {o.name: session.widget_value(session.file_option(o.name)) for o in RUN_OPTIONS if o.name != "input"}
    _open(lambda: sources.open_target(target, session.widget_value(session.FILE_INPUT), **fields))


def _on_stored() -> None:
    _open(lambda: sources.open_stored(session.widget_value(session.STORED_CHOICE)))


def _on_upload() -> None:
    upload = session.widget_value(session.TRACE_UPLOAD)
    if upload is not None:
        _open(lambda: sources.open_upload(upload.getvalue(), upload.name))


def _on_rerun_with_input() -> None:
    run = session.loaded_run()
    if run is None or run.graph is None:
        return
    text = session.widget_value(session.RERUN_INPUT) or ""
    target = timetravel.origin_target(run.trace.target) or run.label
    if target in SAMPLES:
        _open(lambda: sources.open_sample(target, input_json=text))
    else:
        _open(lambda: sources.open_target(target, text))


def header(*, open_error: bool = True) -> None:
    """StepScope, the language switch and (`open_error`) the last open that failed: on every page."""
    st.header("StepScope")
    st.radio(
        "Language · 语言",
        list(i18n.LANGUAGES),
        format_func=i18n.LANGUAGES.get,
        horizontal=True,
        key=session.UI_LANGUAGE,
        on_change=session.sync_url,
        label_visibility="collapsed",
    )
    error = session.recall(session.OPEN_ERROR) if open_error else None
    if error:
        widgets.open_error(*error)


def on_screen(title: str, caption: str = "") -> None:
    """From a page that does not show the Step-through run: the sidebar names what the page shows."""
    with st.sidebar:
        st.markdown(f"**{widgets.md(title)}**")
        if caption:
            st.caption(widgets.md(caption))


def render() -> None:
    """The sidebar top to bottom as it appears on screen: what to open, its form, then the open run. A page
    that does not show the open run gets the header only, and names what it shows itself (`on_screen`): the
    sidebar never names a run that is not there."""
    with st.sidebar:
        header()
        if session.shown_page() not in page_url.RUN_PAGES:
            return
        run = session.loaded_run()
        kind = st.radio(_("Open"), OPEN_KINDS, format_func=i18n.translator(), horizontal=True, key=session.OPEN_KIND)
        _OPEN_FORMS.get(kind, _trace_file_form)(run)
        if run is not None:
            st.divider()
            _open_run(run)


def _sample_form(run: LoadedRun | None) -> None:
    names = [s.name for s in list_samples()]
    if session.recall(session.SAMPLE_CHOICE) not in names:  # `set_run` names the open sample here
        session.remember(session.SAMPLE_CHOICE, DEFAULT_SAMPLE)
    st.selectbox(_("Sample"), names, key=session.SAMPLE_CHOICE, on_change=_on_sample, format_func=sample_titles())
    language_switch(run, key=session.LESSON_LANGUAGE)


def _graph_file_form(run: LoadedRun | None) -> None:
    if widgets.typed_code_off():  # a graph file is code: off beyond loopback without --allow-code
        return
    st.text_input(_("Graph"), placeholder="path/to/graph.py:graph", key=session.FILE_TARGET)
    st.text_area(
        _("Input (JSON)"),
        value="",
        placeholder=_('{"messages": []}  (empty: the module\'s example_input)'),
        key=session.FILE_INPUT,
        height=90,
    )
    threads.file_options(session.widget_value(session.FILE_TARGET) or "", run)
    st.button(_("Run and open"), key="open_file", on_click=_on_file)


def _stored_run_form(run: LoadedRun | None) -> None:
    try:
        stored = open_store().list(limit=100)
    except StoreError as exc:
        st.warning(widgets.md(exc))
        stored = []
    if not stored:
        st.caption(_("No stored runs yet."))
        return
    labels = {
        r.run_id: f"{r.target or r.graph} · {run_status.label(r.status, r.error)} · {r.started_at[:19]}" for r in stored
    }
    shown = run.trace.run_id if run is not None else None
    if shown in labels and st.session_state.get(session.STORED_PICKED_FOR) != shown:
        # the run on screen (a link opened it, or the Open button), once per run opened: a choice
        # the user makes afterwards stays, and the picker never names another run than the page
        st.session_state[session.STORED_CHOICE] = shown
        st.session_state[session.STORED_PICKED_FOR] = shown
    st.selectbox(_("Run"), list(labels), format_func=labels.get, key=session.STORED_CHOICE)
    st.button(_("Open"), key="open_stored", on_click=_on_stored)


def _checkpointer_thread_form(run: LoadedRun | None) -> None:
    if not widgets.typed_code_off():  # it imports the app's graph module: code, as a graph file is
        checkpointer_threads.render(_open)


def _trace_file_form(run: LoadedRun | None) -> None:
    st.file_uploader(_("Trace (.json)"), type=["json"], key=session.TRACE_UPLOAD, on_change=_on_upload)
    st.caption(_("Opened as data only: nothing in the file is executed."))


_OPEN_FORMS = {
    "Sample": _sample_form,
    "Graph file": _graph_file_form,
    "Stored run": _stored_run_form,
    "Checkpointer thread": _checkpointer_thread_form,
    "Trace file": _trace_file_form,
}
"""The form under each of OPEN_KINDS."""


def _open_run(run: LoadedRun) -> None:
    """The open run: its title, status and size, its thread, its download, and running it again."""
    status, error = run.trace.status, run.trace.error
    shown = run.view.view(session.cursor().scope).steps
    st.markdown(
        f"**{widgets.md(_(run.title) or run.label)}**  \n{run_status.icon(status, error)} "
        f"`{widgets.code(run_status.label(status, error))}` · "
        + ngettext("{count} step · run `{run}`", "{count} steps · run `{run}`", len(shown)).format(
            count=len(shown), run=widgets.code(run.trace.run_id[:8])
        )
    )
    if run.no_code:  # the run names its code, and it did not come back: said once, here and in Time travel
        st.caption(widgets.md(run.no_code))
    threads.render(run)
    report_download.download_button(run)
    if run.graph is not None and run.graph_input is not None:
        with st.expander(_("Edit the input and run again")):
            st.text_area(
                _("Input (JSON)"),
                value=json.dumps(run.graph_input, ensure_ascii=False, default=str),
                key=session.RERUN_INPUT,
                height=100,
            )
            st.button(_("Run again"), key="rerun", on_click=_on_rerun_with_input)
