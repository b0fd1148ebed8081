"""The reducer playground page: pick a reducer, a start value and the writes of one to five parallel
writers; see the fold one reducer call at a time, the error a plain key gives, what another order of the
writers would give, and "Make it a graph" (the runnable file of what is on screen, opened in Step through).
Everything shown comes from `model/playground.py` (a real recorded run); this module only renders."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Callable, TypeVar

import streamlit as st

from debugger import i18n
from debugger.i18n import N_, _, ngettext
from debugger.model import playground
from debugger.model.playground import MAX_WRITERS, REDUCERS, WRITERS, PlaygroundError, Setup
from debugger.sources import runs as sources
from debugger.stores.opening import local_db_path
from debugger.views import session, widgets
from debugger.views.sidebar import on_screen, open_and_show

T = TypeVar("T")


def _widget_values(setup: Setup) -> dict[str, Any]:
    """The page's widgets showing `setup`; their keys are the reducer's own, so each reducer keeps its example
    (and the learner's edits of it) while another is looked at. Writers past the set-up's get a value too."""
    reducer = setup.reducer
    values: dict[str, Any] = {
        f"playground-start-{reducer}": setup.start,
        f"playground-count-{reducer}": len(setup.writes),
    }
    for index, name in enumerate(WRITERS):
        values[f"playground-w{index}-{reducer}"] = (
            setup.writes[index] if index < len(setup.writes) else f"['{name.lower()}']"
        )
    if reducer == "custom":
        values["playground-custom"] = setup.custom
    return values


def _or_failure(make: Callable[[Any], T], given: Any) -> T | None:
    """`make(given)`, or None with the one line of its PlaygroundError shown in its place."""
    try:
        return make(given)
    except PlaygroundError as exc:
        widgets.failure(str(exc))
        return None


def _follow_link() -> None:
    """A URL that names a set-up (a link, Back, Forward) puts it into the widgets; a reducer of its own that it
    brings is held back until the learner has read it (opening a link must not run code)."""
    linked = session.page_link("playground")
    if linked is None:
        return
    setup = _or_failure(playground.setup_from_params, linked)
    if setup is None:
        return
    session.set_widgets({"playground-reducer": setup.reducer, **_widget_values(setup)})
    if setup.reducer == "custom" and setup.custom != Setup().custom:
        session.remember(session.PLAYGROUND_LINKED_CODE, setup.custom)


def _setup_from_widgets() -> Setup:
    """What the learner chose on the page (each reducer starts with an example that shows its point). The
    widgets are made from their keys' values alone: a link may have set them (`_follow_link`)."""
    names = list(REDUCERS)
    session.default_widgets({"playground-reducer": names[0]})
    left, right = st.columns([2, 3])
    reducer = left.selectbox(
        _("Reducer"),
        names,
        format_func=lambda n: _(REDUCERS[n].label),
        key="playground-reducer",
        help=_("how the key merges"),
    )
    session.default_widgets(_widget_values(Setup.example(reducer)))
    right.caption(_(REDUCERS[reducer].explanation))
    custom = Setup().custom
    if reducer == "custom":
        custom = st.text_input(_("Your reducer (current value, one write) -> new value"), key="playground-custom")
    start = st.text_input(_("Start value (a Python literal)"), key=f"playground-start-{reducer}")
    count = st.slider(_("Parallel writers"), 1, MAX_WRITERS, key=f"playground-count-{reducer}")
    writes = [
        column.text_input(_("{writer} writes").format(writer=WRITERS[index]), key=f"playground-w{index}-{reducer}")
        for index, column in enumerate(st.columns(count))
    ]
    return Setup(reducer=reducer, start=start, writes=tuple(writes), custom=custom)


def _linked_code_held(setup: Setup) -> bool:
    """True (and says so, with the button that runs it) while the reducer on screen is one a link brought."""
    held = session.recall(session.PLAYGROUND_LINKED_CODE)
    if setup.reducer != "custom" or held is None or setup.custom != held:
        return False
    st.warning(
        _(
            "This link brings a reducer of its own, shown above. Read it first: it runs on this computer only "
            "when you press the button (or edit it)."
        ),
        icon="⚠️",
    )
    st.button(
        _("Run this reducer"),
        key="playground-run-linked",
        on_click=session.remember,
        args=(session.PLAYGROUND_LINKED_CODE, None),
    )
    return True


def render() -> None:
    """The page."""
    session.follow_step_page_request()  # "Make it a graph" asked for the Step-through page
    st.title(_("Reducer playground"))
    st.caption(
        _(
            "One state key, one reducer, and up to five nodes that write it in the same superstep. "
            "The writers run in parallel; at the superstep's barrier the reducer folds their writes into the "
            "value, one call per write, in the writers' order (A, B, ...)."
        )
    )
    if widgets.typed_code_off():  # every set-up here is run as a graph file, a reducer of one's own with it
        return
    _follow_link()
    setup = _setup_from_widgets()
    session.write_page_url("playground", playground.setup_params(setup))
    on_screen(playground.setup_title(setup))  # the sidebar names this page's run, not the Step-through one
    if _linked_code_held(setup):
        return
    played = _or_failure(playground.play, setup)
    if played is None:
        return
    _fold(played)
    _orders(played)
    st.divider()
    with st.expander(_("The graph this is (a runnable file)")):
        st.code(played.source, language="python")
    st.button(_("Make it a graph"), key="playground-make", on_click=_make_graph, args=(played.source,), type="primary")
    widgets.action_error("playground")


def _fold(played: playground.Played) -> None:
    st.subheader(_("The barrier of superstep {step}: one reducer call per write").format(step=played.step))
    st.markdown(
        _("Before: `{value}`").format(
            value=widgets.inline(played.view.state_before(played.step).get(playground.KEY), 140)
        )
    )
    for item in played.calls:
        call = item.call
        icon = "🛑" if call.error else ("✅" if item.applied else "○")
        result = _("refused") if call.error else f"`{widgets.inline(item.after, 140)}`"
        if not call.error and not item.applied:
            result += _(" (not applied: the step failed)")
        st.markdown(
            _("{icon} **#{index}** from **{writer}** wrote `{write}` → {result}").format(
                icon=icon,
                index=call.index,
                writer=widgets.md(item.writer),
                write=widgets.inline(call.write, 120),
                result=result,
            )
            + f"  \n{widgets.md(item.sentence)}"
        )
    if played.error is not None:
        st.error(f"**{widgets.md(played.error.title)}**  \n{widgets.md(played.error.message)}", icon="🛑")
        if played.error.explanation:
            st.markdown(widgets.md(played.error.explanation))
        return
    if played.ignored:
        st.warning(
            ngettext(
                "No reducer call for {writers}: an Overwrite in the same superstep replaced the value, so the "
                "barrier ignored its write.",
                "No reducer call for {writers}: an Overwrite in the same superstep replaced the value, so the "
                "barrier ignored their writes.",
                len(played.ignored),
            ).format(writers=i18n.join_names(played.ignored)),
            icon="⚠️",
        )
    st.success(
        _("After the barrier, `{key}` = `{value}`").format(key=playground.KEY, value=widgets.inline(played.value, 200))
    )


def _orders(played: playground.Played) -> None:
    if len(played.setup.writes) < 2:
        return
    if not played.orders:
        if played.error is not None:
            st.info(_("Every other order of the writers fails the same way: this merge does not depend on order."))
        else:
            st.info(_("Every other order of the writers gives the same result: this merge does not depend on order."))
        return
    st.subheader(_("In another order of the writers"))
    st.caption(
        _(
            "The barrier applies writes in task order, so renaming a node can change the result of an order-"
            "dependent reducer. These orders give something else:"
        )
    )
    for order in played.orders[:10]:
        outcome = (
            _("error: {error}").format(error=widgets.md(order.error))
            if order.error
            else f"`{widgets.inline(order.value, 160)}`"
        )
        writers = _(" then ").join(order.writers)  # outside the f-string, where the catalogs' extractor finds it
        st.markdown(f"- {writers} → {outcome}")
    if len(played.orders) > 10:
        st.caption(_("... and {count} more outcomes.").format(count=len(played.orders) - 10))


def playground_file(source: str) -> Path:
    """Where "Make it a graph" saves the file: beside the run store, named by its content (the same set-up
    saves one file, however often it is made)."""
    digest = hashlib.sha256(source.encode()).hexdigest()[:10]
    folder = local_db_path().parent / "playground"
    return folder / f"playground_{digest}.py"


@widgets.guarded("playground", message=N_("Could not save the playground's graph"))
def _make_graph(source: str) -> None:
    """Saves the file and opens it on the Step-through page, recorded as any graph file is."""
    path = playground_file(source)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source, encoding="utf-8")
    open_and_show(lambda: sources.open_target(str(path)))
