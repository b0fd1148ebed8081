"""The Errors, Findings and What-if tabs. Errors and findings are `stepscope diagnose`'s own
findings (`TraceView.findings`), so the app and the command line give the same explanation and fix."""

from __future__ import annotations

from typing import Any

import streamlit as st

from debugger.diagnostics import Finding
from debugger.diagnostics.findings import KINDS
from debugger.i18n import _
from debugger.model import learn, step_summary
from debugger.model import what_if as whatif
from debugger.model.run_view import RunView
from debugger.model.trace_view import Cursor, Scope
from debugger.views import session, widgets
from debugger.views.session import LoadedRun

SEVERITY_ICONS = {"error": "🛑", "warning": "⚠️", "info": "ℹ️"}


# ---- errors ----------------------------------------------------------------------------------------


def errors_panel(view: RunView, at: Cursor) -> None:
    if step_summary.merge_hidden(view, at, session.learning()):
        st.caption(_("Learn mode: what went wrong in this step is shown once you have guessed every call of it."))
        return
    reports = view.errors(at.step)
    failed_at = view.failed_step
    if not reports:
        if failed_at is not None:
            st.info(_("This step is fine; the run failed at step {step}.").format(step=failed_at))
        else:
            st.caption(_("No error in this step."))
        return
    for report in reports:
        st.error(f"**{widgets.md(report.title)}**")
        st.markdown(widgets.md(report.explanation))
        if report.culprits:
            bystanders = [view.label(t) for t in view.tasks(at.step) if t.name not in report.culprits]
            st.markdown(
                _("**Caused by:** ")
                + ", ".join(f"**{widgets.md(c)}**" for c in report.culprits)
                + (
                    _("  ·  **Bystanders** (finished, writes discarded): ")
                    + ", ".join(widgets.md(b) for b in bystanders)
                    if bystanders
                    else ""
                )
            )
        if report.writers:
            st.markdown(_("**Who wrote `{key}` in step {step}:**").format(key=widgets.code(report.key), step=at.step))
            for column, (writer, value) in zip(st.columns(len(report.writers)), report.writers):
                column.markdown(f"**{widgets.md(writer)}**")
                column.code(widgets.inline(value, 200), language="text")
        for index, (title, snippet) in enumerate(report.fixes):  # the first fix, then the others ("Or:")
            said = _("**Fix:** {fix}") if index == 0 else _("**Or:** {fix}")
            st.markdown(said.format(fix=widgets.md(title)))
            st.code(snippet, language="python")
        if report.message:
            st.code(report.message, language="text", wrap_lines=True)
        if report.traceback:
            with st.expander(_("Traceback")):
                st.code(report.traceback, language="text")


# ---- findings --------------------------------------------------------------------------------------


def _go_to_finding(scope: Scope, step: int) -> None:
    session.move(Cursor(scope, step, 0 if session.learning() else None))


def findings_panel(run: LoadedRun, at: Cursor) -> None:
    if session.learning():  # the findings tell every merge's answer: kept back as the lesson is
        guessed, total = learn.lesson_progress(run.view.view(Scope()), session.guessed_calls(Scope()))
        if guessed < total:
            st.caption(
                _(
                    "Learn mode: the findings tell what the merges give, so they wait until you have guessed every "
                    "reducer call of the run ({guessed} of {total} so far)."
                ).format(guessed=guessed, total=total)
            )
            return
    if run.view.findings_pending:  # a long run's, computed in the background: the page reruns when ready
        st.info(pending_line(len(run.view.view(Scope()).steps)), icon="⏳")
        return
    found = run.view.findings
    if not found:
        st.success(_("`stepscope diagnose` finds nothing wrong in this run."))
        return
    st.caption(
        _(
            "What `stepscope diagnose` reports for this run, with the same explanations and fixes. "
            "Steps and merge calls they concern carry a 🔎 mark."
        )
    )
    for number, finding in enumerate(found):
        finding_card(finding)
        scope = run.view.scope_of(finding.scope)
        if finding.step is not None and scope is not None and (scope, finding.step) != (at.scope, at.step):
            st.button(
                _("Go to step {step}").format(step=finding.step)
                + (_(" in {scope}").format(scope=" › ".join(finding.scope)) if finding.scope else ""),
                key=f"finding-go-{number}",
                on_click=_go_to_finding,
                args=(scope, finding.step),
            )


def pending_line(steps: int) -> str:
    """The one line the step page shows (by the stepper, in the Findings tab) while a long run's findings
    are still computed in the background."""
    return _(
        "The run's {count} steps are still being checked for problems; the findings and their 🔎 marks "
        "appear when that is done."
    ).format(count=f"{steps:,}")


def finding_card(finding: Finding) -> None:
    icon = SEVERITY_ICONS.get(finding.severity, "•")
    with st.container(border=True):
        st.markdown(f"{icon} **{widgets.md(finding.title)}**  \n{widgets.md(finding.where())}")
        if finding.kind in KINDS:  # what this kind of finding means, in one line
            st.caption(widgets.md(_(KINDS[finding.kind])))
        st.markdown(widgets.md(finding.explanation))
        if finding.fix:
            st.markdown(_("**Fix:** {fix}").format(fix=widgets.md(finding.fix_label)))
            st.code(finding.fix, language=finding.language)
        for label, code in finding.other_fixes:
            st.markdown(_("**Or:** {fix}").format(fix=widgets.md(label)))
            st.code(code, language=finding.language)


# ---- what-if ---------------------------------------------------------------------------------------


def what_if_panel(view: RunView, at: Cursor) -> None:
    """The what-if tab: a channel's recorded writes folded again in another order, or with one left out."""
    keys = whatif.channels(view, at.step)
    if not keys:
        st.caption(
            _("No reducer merged several writes here; a plain key takes one write per step, so order cannot matter.")
        )
        return
    if step_summary.merge_hidden(view, at, session.learning()):
        st.caption(_("Learn mode: what-if opens once you have guessed every call of this step."))
        return
    channel = st.selectbox(_("Channel"), keys, key=session.WHATIF_CHANNEL)
    offer = whatif.offer(view, at.step, channel)
    if offer.reducer is None:
        st.info(_("What-if cannot re-fold {key}: {why}.").format(key=widgets.md(channel), why=widgets.md(offer.how)))
        return
    order = st.selectbox(
        _("Fold the writes in this order"),
        offer.orders,
        key=session.WHATIF_ORDER,
        format_func=lambda o: " → ".join(offer.writers[i] for i in o),
    )
    skip = st.selectbox(
        _("…leaving out"),
        [None, *range(len(offer.writers))],
        key=session.WHATIF_SKIP,
        format_func=lambda i, nothing=_("nothing"): nothing if i is None else f"#{i} {offer.writers[i]}",
    )
    if order not in offer.orders:  # a choice left over from another step
        order = offer.orders[0]
    _refolded(whatif.fold(view, at.step, offer, order, skip), view.merge_by_channel(at.step)[channel][-1].after)
    if len(offer.writers) > 1:
        _order_sensitivity(*whatif.sensitivity(view, at.step, offer))
    st.caption(
        _("Re-folded with {how}; nodes are not run again, only their recorded writes.").format(
            how=widgets.md(offer.how)
        )
    )


def _refolded(result: whatif.Refold, recorded: Any) -> None:
    """What folding the writes again gave, beside what the run recorded."""
    if result.error:
        st.error(_("The reducer failed on these writes: {error}").format(error=widgets.md(result.error)))
    elif result.differs:
        st.warning(
            _("Different result: `{value}` instead of `{recorded}`.").format(
                value=widgets.inline(result.value, 140), recorded=widgets.inline(recorded, 140)
            ),
            icon="🔀",
        )
    else:
        st.success(_("Same result: `{value}`.").format(value=widgets.inline(result.value, 140)))


def _order_sensitivity(changed: int, tried: int) -> None:
    st.markdown(
        _("**Order sensitivity:** {changed} of {tried} other orders change the result.").format(
            changed=changed, tried=tried
        )
        if changed
        else _("**Order sensitivity:** every order tried gives the same result here.")
    )
