"""A run as one self-contained HTML file (`stepscope export RUN --html FILE`, the app's download button):
the drawing as inline SVG, and per superstep the summary, the merge (every reducer call), the state and
the findings, with a step slider and the arrow keys.

The page loads nothing: a Content-Security-Policy of `default-src 'none'` forbids every request, the style
and the few lines of script are inline, and only that script (by its hash) may run. The trace's data sits
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

from debugger.model.dot_text import visible
from debugger.model.drawing import to_dot
from debugger.model.report_data import report_data
from debugger.model.trace_view import Cursor, TraceView
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
    parent's merge)."""
    view = TraceView(trace, graph).view(Cursor().scope)
    drawable, _ = view.drawn(view.first if view.steps else 0)
    svg = drawing_svg(to_dot(drawable))
    data = report_data(trace, graph)
    parts = {"TITLE": _text(data["title"]), "SVG": svg, "DATA": json_for_script(data), "SCRIPT_HASH": SCRIPT_HASH}
    # one pass: a title or a drawing holding `{{DATA}}` stays as it is
    return re.sub(r"\{\{(TITLE|SVG|DATA|SCRIPT_HASH)\}\}", lambda m: parts[m.group(1)], PAGE)


def _text(value: str) -> str:
    return visible(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:1rem 2rem;color:#222}
h1{font-size:1.3rem;margin:.2rem 0}h2{font-size:1.05rem;margin:1rem 0 .3rem}
.bar{display:flex;gap:1rem;align-items:center;margin:.5rem 0}.bar input{flex:1}
.top{display:flex;gap:2rem;align-items:flex-start}.drawing{flex:0 1 auto;max-width:55%;overflow:auto}
.drawing svg{max-width:100%;height:auto}.summary{flex:1}
table{border-collapse:collapse;margin:.3rem 0}td,th{border:1px solid #ccc;padding:.2rem .5rem;text-align:left;
vertical-align:top;white-space:pre-wrap;font-family:ui-monospace,monospace;font-size:12px}
th{background:#f3f3f3;font-family:system-ui,sans-serif}
.warning,.lost{color:#8a5300}.error{color:#b00020}.finding{color:#8a0050}.caption{color:#666;font-size:12px}
.heading{font-weight:bold}tr.refused td{background:#ffe3e3}tr.repeated td{background:#fff4d6}
tr.changed td:first-child,tr.added td:first-child{font-weight:bold}
.legend span{padding:0 .4rem;margin-right:.3rem;border:1px solid #999;border-radius:3px}
g.stepscope-node[data-state=ran] path,g.stepscope-node[data-state=ran] polygon,
g.stepscope-node[data-state=ran] ellipse{fill:#ffd45e;stroke-width:3px}
g.stepscope-node[data-state=next] path,g.stepscope-node[data-state=next] polygon,
g.stepscope-node[data-state=next] ellipse{stroke-width:2.5px;stroke-dasharray:5 3}
g.stepscope-node[data-state=visited] path,g.stepscope-node[data-state=visited] polygon,
g.stepscope-node[data-state=visited] ellipse{fill:#d6ecff}
g.stepscope-node[data-state=failed] path,g.stepscope-node[data-state=failed] polygon,
g.stepscope-node[data-state=failed] ellipse{fill:#ffd6d6;stroke:#cc0000;stroke-width:3px}
g.stepscope-node[data-state=stopped] path,g.stepscope-node[data-state=stopped] polygon,
g.stepscope-node[data-state=stopped] ellipse{fill:#e4e4e4;stroke-dasharray:5 3}
g.stepscope-edge[data-taken] path{stroke:#b36b00;stroke-width:3px}
g.stepscope-edge[data-taken] polygon{stroke:#b36b00;fill:#b36b00}
"""

SCRIPT = """
const data = JSON.parse(document.getElementById("stepscope-data").textContent);
const slider = document.getElementById("step"), at = document.getElementById("at");
function el(tag, text, cls) { const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; }
function row(cells, cls) { const tr = el("tr", undefined, cls);
  cells.forEach(c => tr.append(el("td", String(c)))); return tr; }
function table(id, head, rows) { const t = document.getElementById(id); t.replaceChildren();
  const tr = el("tr"); head.forEach(h => tr.append(el("th", h))); t.append(tr); rows.forEach(r => t.append(r)); }
function show(i) {
  const s = data.steps[i]; slider.value = i;
  at.textContent = "Step " + s.step + " (" + (i + 1) + " of " + data.steps.length + ")";
  document.querySelectorAll("g.stepscope-node").forEach(g => g.dataset.state = s.nodes[g.id] || "idle");
  document.querySelectorAll("g.stepscope-edge").forEach(g => g.toggleAttribute("data-taken", s.edges.includes(g.id)));
  document.getElementById("summary").replaceChildren(...s.summary.map(([kind, text]) => el("p", text, kind)));
  table("merge", ["#", "key", "reducer", "writer", "before", "write", "after", "what happened"], s.merge.map(m =>
    row([m.index, m.channel, m.reducer, m.writer, m.before, m.write, m.after, m.sentence],
        m.refused ? "refused" : m.repeated.length ? "repeated" : "")));
  table("state", ["key", "change", "value after the step"], s.state.map(([k, kind, v]) => row([k, kind, v], kind)));
  table("inside", ["inside", "#", "key", "reducer", "writer", "before", "write", "after", "what happened"],
    s.inside.flatMap(n => n.merge.map(m => row([n.where, m.index, m.channel, m.reducer, m.writer, m.before, m.write,
      m.after, m.sentence], m.refused ? "refused" : m.repeated.length ? "repeated" : ""))));
  const found = s.findings.map(n => data.findings[n]);
  document.getElementById("step-findings").replaceChildren(...(found.length ? found.map(f =>
    el("p", f.severity + ": " + f.title + " (" + f.where + ")", "finding")) : [el("p", "No finding at this step.")]));
}
slider.max = data.steps.length - 1; slider.addEventListener("input", () => show(Number(slider.value)));
document.addEventListener("keydown", e => {
  if (e.target === slider) return;  // the focused slider moves itself on the arrow keys
  const moves = {ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1};
  let i = Number(slider.value);
  if (e.key in moves) i += moves[e.key]; else if (e.key === "Home") i = 0;
  else if (e.key === "End") i = data.steps.length - 1; else return;
  e.preventDefault(); show(Math.max(0, Math.min(data.steps.length - 1, i)));
});
document.getElementById("status").textContent = "status: " + data.status + (data.error ? " · " + data.error : "");
document.getElementById("findings").replaceChildren(...(data.findings.length ? data.findings.map(f => {
  const d = el("div"); d.append(el("p", f.severity + ": " + f.title + " (" + f.where + ")", "finding"),
    el("p", f.explanation)); if (f.fix) d.append(el("pre", f.fix)); return d; }) : [el("p", "No findings.")]));
if (data.steps.length) show(0); else at.textContent = "The run has no steps.";
"""

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
    + """</style></head><body>
<h1>StepScope · {{TITLE}}</h1><p id="status"></p>
<div class="bar"><label for="step" id="at"></label><input type="range" id="step" min="0" value="0"
aria-label="superstep"></div>
<p class="legend caption">← → (or the slider) move between supersteps. <span style="background:#ffd45e">ran</span>
<span style="border-style:dashed">runs next</span><span style="background:#d6ecff">ran before</span>
<span style="background:#ffd6d6">failed</span></p>
<div class="top"><div class="drawing">{{SVG}}</div><div class="summary" id="summary"></div></div>
<h2>Merge: every reducer call of the step, in the order applied</h2><table id="merge"></table>
<h2>Merges inside the step's subgraph runs</h2><table id="inside"></table>
<h2>State after the step</h2><table id="state"></table>
<h2>Findings at this step</h2><div id="step-findings"></div>
<h2>All findings</h2><div id="findings"></div>
<script type="application/json" id="stepscope-data">{{DATA}}</script>
<script>"""
    + SCRIPT
    + """</script></body></html>
"""
)
"""The page; `{{TITLE}}` is HTML-escaped text, `{{SVG}}` graphviz's drawing, `{{DATA}}` `json_for_script`."""
