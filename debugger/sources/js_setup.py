"""Whether this machine can run the JavaScript lessons (sample_graphs/js/), and if not, what to install.

The lessons need node and the LangGraph.js packages package-lock.json pins, installed with `npm ci` at the
project's root (`make run` does it where node and npm exist). Checked before node is started, so a missing
piece is named with the Debian packages and the command, not with the recorder's advice for a user's own
app (`npm install ...` in the app's folder, which would install unpinned versions).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from debugger import i18n
from debugger.i18n import _
from debugger.runtimes.node import node_binary
from sample_graphs.gallery import JS_LESSON_DIR

PROJECT_ROOT = JS_LESSON_DIR.parents[1]
"""Where package.json and package-lock.json are, and `npm ci` writes node_modules."""
LESSON_PACKAGES = ("@langchain/langgraph", "@langchain/core")
"""What every lesson imports; node finds them in the project's node_modules."""


def missing_packages(root: Path = PROJECT_ROOT) -> list[str]:
    """The lessons' packages node would not find from the lessons' folder (it looks in every parent's
    node_modules, as `import` does)."""
    folders = [JS_LESSON_DIR, *JS_LESSON_DIR.parents] if root == PROJECT_ROOT else [root]
    return [
        name
        for name in LESSON_PACKAGES
        if not any((folder / "node_modules" / name / "package.json").is_file() for folder in folders)
    ]


def setup_problem(root: Path = PROJECT_ROOT) -> str | None:
    """One sentence naming what is missing to run a JavaScript lesson and how to install it, or None."""
    has_node = node_binary() is not None
    has_npm = shutil.which("npm") is not None
    missing = missing_packages(root)
    if not has_node:
        if missing:
            return _(
                "The JavaScript lessons run in Node.js, which is not installed here: install Debian's packages "
                "nodejs and npm (apt-get install nodejs npm), then run npm ci in {root} (make run does it) "
                "and reload this page."
            ).format(root=root)
        return _(
            "The JavaScript lessons run in Node.js, which is not installed here: install Debian's packages "
            "nodejs and npm (apt-get install nodejs npm), then reload this page."
        )
    if not missing:
        return None
    names = i18n.join_names(missing)
    if not has_npm:
        return _(
            "The JavaScript lessons need the LangGraph.js packages package-lock.json pins ({names}), and npm, "
            "which installs them, is not installed: apt-get install npm, then run npm ci in {root} and reload "
            "this page."
        ).format(names=names, root=root)
    return _(
        "The JavaScript lessons need the LangGraph.js packages package-lock.json pins ({names}), which are not "
        "installed: run npm ci in {root} (make run does it), then reload this page."
    ).format(names=names, root=root)
