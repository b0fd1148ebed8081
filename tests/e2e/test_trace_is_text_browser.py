"""Trace data is text, never markup, in a real browser (issue 25, attack 1): a run whose key, node name,
values and error message hold Markdown images, links, HTML and bare URLs is opened by `?run=` at every
step; the page must make no request outside 127.0.0.1 and hold no link or image that points at the
data's hosts. `tests/test_trace_is_text.py` checks the Markdown itself, element by element."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

from debugger.sources import runs as sources

TARGET = str(Path(__file__).resolve().parents[1] / "inert_trace.py") + ":graph"


def test_a_hostile_run_makes_no_request_outside_the_app(app, e2e_db):
    opened = sources.open_target(TARGET, db=str(e2e_db))
    outside: list[str] = []
    app.page.on("request", lambda request: outside.append(request.url) if _leaves(request.url) else None)
    for step in [s.step for s in opened.trace.steps]:
        app.open(f"/?run={opened.trace.run_id}&step={step}")
        for name in ("Merge", "Tasks", "State", "Errors", "Findings"):
            app.page.get_by_role("tab", name=name).click()
        app.idle()
        assert app.page.get_by_text("evil.invalid").count() > 0, "the hostile data is on the page, as text"
        links = app.page.locator('a[href*="evil"], img[src*="evil"]').count()
        assert links == 0, f"step {step}: {links} link(s) or image(s) made from trace data"
    assert outside == [], f"requests left the page's server: {outside}"


def _leaves(url: str) -> bool:
    parsed = urlparse(url)
    return parsed.scheme not in ("data", "blob", "about") and parsed.hostname not in ("127.0.0.1", "localhost")
