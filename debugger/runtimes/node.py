"""Which node binary runs JavaScript: the LangGraph.js runtime starts its recorder in it, and the JavaScript
lessons' setup check (`debugger/sources/js_setup.py`) asks whether there is one before naming what to install."""

from __future__ import annotations

import os
import shutil

NODE_ENV = "STEPSCOPE_NODE"
"""Names the node binary to use instead of the one on PATH."""


def node_binary() -> str | None:
    """`$STEPSCOPE_NODE`, else the node on PATH; None when there is neither."""
    return os.environ.get(NODE_ENV) or shutil.which("node")
