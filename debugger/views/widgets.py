"""Widgets shared by the pages: the graph chart, recorded values, errors shown as messages.

Trace data is text, never markup: a key, value, node name or message comes from other people's code
and files, and Streamlit reads Markdown (links, images, GFM autolinks, colour directives) in
`st.markdown`, captions, alerts, headers and every widget label. Every piece of trace data that meets
one of those goes through `md` (prose) or `code`/`inline` (inside a code span, where Markdown is inert);
values go to `st.code`/`st.json`/`st.dataframe`, which read none. A trace can then never make the page
show an image, follow a link or fetch anything."""

from __future__ import annotations

import functools
import hashlib
import json
import re
import traceback
from typing import Any

import graphviz
import streamlit as st

from debugger.code_access import code_allowed
from debugger.i18n import N_, _
from debugger.model.present import code, md, readable, short  # noqa: F401 - md, code: the pages escape text with them
from debugger.views import session

PREVIEW_CHARS = 4000


GRAPH_HEIGHT = 380
"""Pixels the drawing may take on the page, so the step summary and the tabs stay in view on 1280x800."""
ZOOM_STRIP = 32
"""Pixels at the top of the frame for the zoom buttons, kept clear of the drawing (they covered nodes)."""


@st.cache_data(max_entries=512, show_spinner=False)
def _svg(dot: str) -> str:
    """Graphviz's layout of `dot` as SVG (Debian's `dot`, through the `graphviz` package), cached: the
    browser gets a finished drawing and does no layout of its own."""
    svg = graphviz.Source(dot).pipe(format="svg", encoding="utf-8")
    return svg[svg.index("<svg") :]


def svg_or_failure(dot: str) -> str:
    """Graphviz's SVG of `dot`; where graphviz cannot draw it, one line on the page and no drawing."""
    try:
        return _svg(dot)
    except (graphviz.ExecutableNotFound, graphviz.CalledProcessError) as exc:
        failure(f"Graphviz could not draw this graph: {exc}", dot)
        return ""


def graph_chart(dot: str, *, large: bool = False) -> int:
    """The step drawing, laid out on the server, in a frame with zoom (buttons, Ctrl+wheel) and pan
    (drag); double-click fits it again. A small graph keeps its natural size (the frame shrinks to it);
    a large one fits the frame. Returns the frame's height in pixels."""
    try:
        svg = _svg(dot)
    except (graphviz.ExecutableNotFound, graphviz.CalledProcessError) as exc:
        failure(f"Graphviz could not draw this graph: {exc}", dot)
        return 0
    natural = re.search(r'<svg width="[\d.]+pt" height="([\d.]+)pt"', svg)
    height = (
        GRAPH_HEIGHT
        if large or natural is None
        else min(GRAPH_HEIGHT, int(float(natural.group(1)) * 4 / 3) + 24 + ZOOM_STRIP)
    )
    frame_id = "stepscope-graph-" + hashlib.sha1(dot.encode()).hexdigest()[:12]
    # st.html's sanitizer drops SVG, and any script whose text holds a tag: the script carries the
    # drawing as a JSON string with every `<` escaped, and puts it in the frame
    svg_text = json.dumps(svg).replace("<", "\\u003c")
    st.html(
        _GRAPH_FRAME.format(
            height=height, fit="fit" if large else "natural", svg=svg_text, id=frame_id, toolbar=ZOOM_STRIP
        ),
        unsafe_allow_javascript=True,
    )
    return height


_GRAPH_FRAME = """
<div class="stepscope-graph" data-graph="{id}" data-fit="{fit}" \
style="position:relative;height:{height}px;overflow:hidden;
     border:1px solid #e6e6e6;border-radius:8px;background:#fff;cursor:grab;touch-action:none">
  <div class="stepscope-zoom" style="position:absolute;left:0;right:0;top:0;height:{toolbar}px;z-index:2;
       display:flex;justify-content:flex-end;align-items:center;gap:4px;padding-right:6px;
       background:#fff;border-bottom:1px solid #f0f0f0;cursor:default">
    <button data-zoom="in" title="Zoom in" style="width:28px">+</button>
    <button data-zoom="out" title="Zoom out" style="width:28px">−</button>
    <button data-zoom="fit" title="Fit the whole graph" style="width:36px">fit</button>
  </div>
  <div class="stepscope-canvas" style="transform-origin:0 0;position:absolute;left:0;top:0"></div>
</div>
<script>
(() => {{
  const READABLE = 0.8;
  const frames = [...document.querySelectorAll('.stepscope-graph[data-graph="{id}"]:not([data-ready])')];
  frames.forEach(frame => {{
    frame.setAttribute('data-ready', '1');
    const canvas = frame.querySelector('.stepscope-canvas');
    canvas.innerHTML = {svg};
    const svg = canvas.querySelector('svg');
    let scale = 1, x = 0, y = 0, drag = null;
    const apply = () => {{ canvas.style.transform = `translate(${{x}}px, ${{y}}px) scale(${{scale}})`; }};
    const size = () => [svg.getBoundingClientRect().width / scale, svg.getBoundingClientRect().height / scale];
    // the zoom buttons have a strip of their own at the top: the drawing is fitted below it, never under them
    const top = {toolbar};
    const fit = () => {{
      const [w, h] = size(), fw = frame.clientWidth, fh = frame.clientHeight - top;
      scale = Math.min(1.2, fw / w, fh / h);
      if (frame.dataset.fit === 'natural') scale = Math.min(1, scale);
      x = (fw - w * scale) / 2; y = top + Math.max(0, (fh - h * scale) / 2); apply();
    }};
    const focus = () => {{
      // a big graph fitted whole is unreadable: show it at a readable size, centred on this step's nodes
      fit();
      const readable = window.stepscopeZoom || READABLE;
      if (frame.dataset.fit !== 'fit' || scale >= readable) return;
      const marked = [...svg.querySelectorAll('g.stepscope-node.ran, g.stepscope-node.failed')];
      const targets = marked.length ? marked : [...svg.querySelectorAll('g.stepscope-node.next')];
      if (!targets.length) return;
      const base = canvas.getBoundingClientRect(), boxes = targets.map(t => t.getBoundingClientRect());
      const cx = (Math.min(...boxes.map(b => b.left)) + Math.max(...boxes.map(b => b.right))) / 2 - base.left;
      const cy = (Math.min(...boxes.map(b => b.top)) + Math.max(...boxes.map(b => b.bottom))) / 2 - base.top;
      const ux = cx / scale, uy = cy / scale;
      scale = readable;
      x = frame.clientWidth / 2 - ux * scale; y = top + (frame.clientHeight - top) / 2 - uy * scale; apply();
    }};
    const zoom = (factor, cx, cy) => {{
      const next = Math.max(0.1, Math.min(6, scale * factor));
      x = cx - (cx - x) * next / scale; y = cy - (cy - y) * next / scale; scale = next; apply();
      window.stepscopeZoom = scale;  // the next step of a big graph keeps the zoom the user chose
    }};
    frame.addEventListener('wheel', e => {{
      if (!e.ctrlKey && !e.metaKey) return;
      e.preventDefault();
      const r = frame.getBoundingClientRect();
      zoom(e.deltaY < 0 ? 1.15 : 1 / 1.15, e.clientX - r.left, e.clientY - r.top);
    }}, {{passive: false}});
    frame.addEventListener('pointerdown', e => {{
      if (e.target.closest('.stepscope-zoom')) return;
      drag = {{px: e.clientX, py: e.clientY, x, y}}; frame.style.cursor = 'grabbing';
    }});
    window.addEventListener('pointermove', e => {{
      if (!drag) return; x = drag.x + e.clientX - drag.px; y = drag.y + e.clientY - drag.py; apply();
    }});
    window.addEventListener('pointerup', () => {{ drag = null; frame.style.cursor = 'grab'; }});
    frame.addEventListener('dblclick', () => {{ window.stepscopeZoom = undefined; fit(); }});
    frame.querySelectorAll('button[data-zoom]').forEach(b => b.addEventListener('click', () => {{
      const cx = frame.clientWidth / 2, cy = frame.clientHeight / 2;
      if (b.dataset.zoom === 'in') zoom(1.25, cx, cy);
      else if (b.dataset.zoom === 'out') zoom(0.8, cx, cy);
      else {{ window.stepscopeZoom = undefined; fit(); }}
    }}));
    focus();
  }});
}})();
</script>
"""


PAGE_STYLE = """<style>
[data-testid="stMainBlockContainer"] { padding-top: 3.2rem; padding-bottom: 2rem; }
[data-testid="stMainBlockContainer"] h1 { font-size: 1.6rem; padding: 0.25rem 0 0.5rem 0; }
</style>"""
"""A denser page than Streamlit's default, so a step fits a 1280x800 screen."""


def page_style() -> None:
    st.html(PAGE_STYLE)


def failure(message: str, detail: str = "") -> None:
    """A failure in one line, with the long detail (a traceback) folded away."""
    first = message.strip().splitlines()[0] if message.strip() else "Something failed."
    st.error(md(first), icon="🛑")
    if detail or first != message.strip():
        with st.expander(_("Details")):
            st.code(message + ("\n\n" + detail if detail else ""), language="text")


def guarded(where: str, *, message: str = N_("That did not work")):
    """For a callback: any exception becomes a one-line message shown in place by `action_error(where)`,
    with the traceback folded away; the page keeps working (no raw traceback ever reaches it). `message`
    is marked with `N_` where it is written, and said in the page's language."""

    def wrap(callback):
        @functools.wraps(callback)
        def run(*args, **kwargs):
            try:
                return callback(*args, **kwargs)
            except Exception as exc:  # the user's code or data failing: told in one line, in place
                said = f"{_(message)}: {type(exc).__name__}: {exc}"
                session.report_action_error(where, said, traceback.format_exc())

        return run

    return wrap


def typed_code_off() -> bool:
    """True, after saying so in one sentence, when this server runs no typed code (`debugger/code_access.py`)."""
    if code_allowed():
        return False
    st.info(
        _(
            "Running typed code is off: this app listens beyond its computer; restart it with "
            "`stepscope app --allow-code` to turn it on, or with `--host 127.0.0.1`."
        ),
        icon="🔒",
    )
    return True


def render_guarded(render, what: str) -> None:
    """Renders a page or panel; if it fails, one line and the detail instead of Streamlit's traceback."""
    try:
        render()
    except Exception as exc:  # a bug or a record we cannot show: the rest of the page stays usable
        failure(f"Could not show {what}: {type(exc).__name__}: {exc}", traceback.format_exc())


def action_error(where: str) -> None:
    """Shows, in place, the error of the last action made from here (see `session.report_action_error`)."""
    error = session.action_error()
    if error is not None and error[0] == where:
        failure(error[1], error[2])


def value(encoded: Any, *, key: str) -> None:
    """A recorded value as JSON (`present.readable`: messages as messages); a huge one is cut, with a
    way to see it whole."""
    encoded = readable(encoded)
    text = json.dumps(encoded, ensure_ascii=False, indent=1, default=str)
    if len(text) <= PREVIEW_CHARS:
        st.code(text, language="json")
        return
    st.code(text[:PREVIEW_CHARS] + "\n…", language="json")
    st.caption(f"Showing {PREVIEW_CHARS:,} of {len(text):,} characters.")
    with st.expander("Show the whole value"):
        st.json(encoded, expanded=False)


def inline(encoded: Any, limit: int = 90) -> str:
    """A recorded value, shortened, for inside a code span (see `code`)."""
    return code(short(encoded, limit))


def open_error(message: str, file: str | None = None, line: int | None = None) -> None:
    """Why a run could not be opened, in one line with where (the message may quote the file's data)."""
    where = f" ({file}, line {line})" if file and line else ""
    st.error(md(f"{message}{'' if where.strip(' ()') in message else where}"), icon="🚫")
