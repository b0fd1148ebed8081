"""StepScope in notebooks: `from debugger import show`, then `show(graph, input=...)`, `show("subgraph_trap")`,
`show("t.json")`, `show(run_id)` or `show(recorded)` returns the stepper widget of the page and the HTML file
(`widget.StepperWidget`, an anywidget). Needs the notebook extra: `pip install 'stepscope[notebook]'`."""

from __future__ import annotations

from typing import Any

from debugger import i18n
from debugger.i18n import _
from debugger.notebook.opening import ShowError, ShowTypeError, open_shown

__all__ = ["ShowError", "show"]

INSTALL = "pip install 'stepscope[notebook]'"


def show(
    what: Any,
    input: Any = None,  # noqa: A002 - LangGraph's own word for a run's input (graph.invoke(input))
    config: dict[str, Any] | None = None,
    *,
    step: int | None = None,
    lang: str | None = None,
    runtime: str = "",
    db: Any = None,
) -> Any:
    """The stepper widget of the run `what` names: a compiled graph (run now with `input` and `config`, on
    its own runtime), what `debugger.record()` gives (its newest run), a Trace, a trace file, a stored run id
    (in the run store `db`, default StepScope's), a graph file target or a lesson (`runtime="js"`: its
    LangGraph.js twin). `step`: the step shown first (default: where the run went wrong, else its start);
    `lang`: "en" or "zh" (default: the language StepScope speaks here)."""
    try:
        from debugger.notebook.widget import StepperWidget
    except ModuleNotFoundError as exc:
        if exc.name not in ("anywidget", "traitlets", "ipywidgets"):
            raise
        raise ShowError(
            _("show() needs the notebook extra ({package} is not installed): {command}").format(
                package=exc.name, command=INSTALL
            )
        ) from None
    language = i18n.parse(lang) if lang else i18n.current()
    if language is None:
        raise ShowError(_("lang={lang!r} is no language StepScope speaks: give 'en' or 'zh'.").format(lang=lang))
    if step is not None and (isinstance(step, bool) or not isinstance(step, int)):
        raise ShowTypeError(_("step={step!r}: give a superstep number (an int), or leave it out.").format(step=step))
    with i18n.using(language):
        shown = open_shown(what, graph_input=input, config=config, runtime=runtime, db=db)
    return StepperWidget(shown, step=step, language=language)
