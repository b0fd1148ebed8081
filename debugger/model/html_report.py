"""A run as one self-contained HTML file (`stepscope export RUN --html FILE`, the app's download button):
the stepper of the app's page (`debugger/frontend/assets/stepper.js`, inlined) with every step's data: the drawing
as inline SVG, and per superstep the summary, the merge (every reducer call), the state and the findings,
with buttons, a step slider and the arrow keys.

The page loads nothing: a Content-Security-Policy of `default-src 'none'` forbids every request, the style
and the stepper's script are inline, and only that script (by its hash) may run. The trace's data sits
in one `application/json` script element (with `<`, `>` and `&` written as JSON escapes, so no value can
close it) and the script only ever puts it into the page with `textContent`: data is text, never markup.
The drawing is made once by graphviz (`dot -Tsvg`, which escapes what it writes), and a step restyles its
nodes and edges through `data-` attributes the stylesheet colours, so a 1,000-step run is one drawing and
1,000 short lists.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
from typing import Any

import graphviz

from debugger.frontend import stepper_css, stepper_js
from debugger.i18n import _
from debugger.model.dot_text import visible
from debugger.model.stepper_data import stepper_model
from debugger.model.trace_view import Scope, TraceView
from engine.trace import Trace


class ReportError(Exception):
    """The report cannot be written (graphviz's `dot` is missing or failed); the message says what to do."""


def dot_installed() -> bool:
    """Whether graphviz's `dot` program, which draws the report's SVG, is on the PATH."""
    return shutil.which("dot") is not None


def drawing_svg(dot: str) -> str:
    """The SVG `dot -Tsvg` makes of `dot`, without its XML prolog, doctype and comments (inline in HTML)."""
    try:
        svg = graphviz.Source(dot).pipe(format="svg", encoding="utf-8")
    except graphviz.ExecutableNotFound:
        raise ReportError(
            "graphviz's `dot` program is not installed; install graphviz (e.g. `apt install graphviz`)."
        ) from None
    except graphviz.CalledProcessError as exc:
        raise ReportError(f"graphviz's `dot` could not draw the graph: {exc.stderr or exc}") from None
    svg = re.sub(r"<\?xml.*?\?>|<!DOCTYPE.*?>|<!--.*?-->", "", svg, flags=re.DOTALL)
    return svg[svg.index("<svg") :]


_NOT_IN_SCRIPT = re.compile("[<>&\u2028\u2029\ud800-\udfff]")


def json_for_script(data: Any) -> str:
    """JSON that cannot end the `<script>` it sits in, nor start markup: `<`, `>`, `&`, the two line
    separators JavaScript once read as newlines and lone surrogates (which no UTF-8 file can hold; the
    escape reads back as the same string) are written as `\\u` escapes."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)
    return _NOT_IN_SCRIPT.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def html_report(trace: Trace, graph: Any = None) -> str:
    """The whole page for `trace` (its root run; subgraph runs show as the drawing's clusters and their
    parent's merge): the stepper of the app's page, with every step's data inline."""
    traced = TraceView(trace, graph)
    view = traced.view(Scope())
    model = stepper_model(traced, Scope(), view.first if view.steps else 0, window=max(1, len(view.steps)))
    model["status_line"] = status_line(trace)
    model["status_kind"] = "error" if trace.error else ""
    model["all_findings"] = model["findings"]
    title = f"{trace.graph.get('name') or 'run'} · {trace.target or trace.run_id[:12] or 'a recorded run'}"
    parts = {"TITLE": _text(title), "DATA": json_for_script(model), "SCRIPT_HASH": SCRIPT_HASH}
    # one pass: a title holding `{{DATA}}` stays as it is
    return re.sub(r"\{\{(TITLE|DATA|SCRIPT_HASH)\}\}", lambda m: parts[m.group(1)], PAGE)


def status_line(trace: Trace) -> str:
    """ "status: error · ValueError: ..." (the run's ending, one line) above the stepper."""
    error = f" · {trace.error.get('class')}: {trace.error.get('message')}" if trace.error else ""
    return _("status: {status}").format(status=trace.status) + error


def _text(value: str) -> str:
    return visible(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


STYLE = """
body{margin:1rem 2rem}h1{font:600 1.3rem system-ui,sans-serif;margin:.2rem 0}
.all-findings{font:14px/1.4 system-ui,sans-serif}.all-findings .finding{color:#8a0050}
"""

SCRIPT = (
    stepper_js()
    + """
const data = JSON.parse(document.getElementById("stepscope-data").textContent);
mount(document.getElementById("stepscope"), data);
const all = document.getElementById("findings");
const say = (tag, text, cls) => { const e = document.createElement(tag); e.textContent = text;
  if (cls) e.className = cls; return e; };
all.replaceChildren(...(data.all_findings.length ? data.all_findings.map(f => {
  const d = document.createElement("div"); d.append(say("p", f.severity + ": " + f.title + " (" + f.where + ")",
  "finding"), say("p", f.explanation)); if (f.fix) d.append(say("pre", f.fix)); return d; })
  : [say("p", data.labels.no_findings_at_all)]));
"""
)

SCRIPT_HASH = "sha256-" + base64.b64encode(hashlib.sha256(SCRIPT.encode("utf-8")).digest()).decode("ascii")
"""The only script the page's Content-Security-Policy lets run: even a script element that got into the
page some other way (it cannot: everything is escaped) would not run."""

PAGE = (
    """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; \
script-src '{{SCRIPT_HASH}}'; img-src data:">
<title>StepScope · {{TITLE}}</title><style>"""
    + STYLE
    + stepper_css()
    + """</style></head><body>
<h1>StepScope · {{TITLE}}</h1>
<div id="stepscope"></div>
<div class="all-findings"><h2>All findings</h2><div id="findings"></div></div>
<script type="application/json" id="stepscope-data">{{DATA}}</script>
<script type="module">"""
    + SCRIPT
    + """</script></body></html>
"""
)
"""The page; `{{TITLE}}` is HTML-escaped text, `{{DATA}}` the stepper's model as `json_for_script`."""
