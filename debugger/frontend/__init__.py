"""The one front-end stepper every host shows (the Step-through page, the one-file HTML export, a
notebook widget): `stepper.js` (an ES module) and `stepper.css`, read here once. Nothing to build and no
CDN: the files are the module the browser runs."""

from __future__ import annotations

from functools import cache
from pathlib import Path

_HERE = Path(__file__).parent


@cache
def stepper_js() -> str:
    """The stepper's ES module: `mount(root, data, {onStep})`, and a default export for Streamlit and anywidget."""
    return (_HERE / "stepper.js").read_text(encoding="utf-8")


@cache
def stepper_css() -> str:
    """The stepper's stylesheet, scoped to `.stepscope-stepper`."""
    return (_HERE / "stepper.css").read_text(encoding="utf-8")
