"""The one front-end stepper every host shows (the Step-through page, the one-file HTML export, a
notebook widget): ES modules split by role, `stepper.js` their entry, and `stepper.css`. Nothing to build
and no CDN: the page's component loads the files as they are from `assets/` (its asset folder, see
debugger/views/stepper.py); the HTML file and the notebook, which take one module as text, get them
joined here (`stepper_js`), the same source with the imports between them taken out."""

from __future__ import annotations

import re
from functools import cache
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

FOLDER = Path(__file__).parent / "assets"
"""Where the stepper's files are: its modules and its stylesheet, and nothing else (the page's server
serves this folder as it is, so it holds only what a browser is to load)."""
ENTRY = "stepper.js"
"""The module a host loads: `mount`, and the default export Streamlit and anywidget call."""

_IMPORT = re.compile(r'^import \{([\w\s,]+)\} from "\./([\w-]+\.js)";\n', re.M)
_DECLARED = re.compile(r"^(export )?(?:default )?(?:async )?(?:function\*?|class|const|let|var) (\w+)", re.M)


class JoinError(ValueError):
    """The modules cannot be joined into one: the message names the module and the line to change."""


@cache
def stepper_js() -> str:
    """The stepper as one ES module (its modules joined, dependencies first): `mount(root, data, {onStep})`,
    and a default export for Streamlit and anywidget."""
    return join_modules(FOLDER, ENTRY)


@cache
def stepper_css() -> str:
    """The stepper's stylesheet, scoped to `.stepscope-stepper`."""
    return (FOLDER / "stepper.css").read_text(encoding="utf-8")


def join_modules(folder: Path, entry: str) -> str:
    """The modules `entry` imports from `folder` (its siblings, `import { a, b } from "./x.js";` only), and
    theirs, then `entry` itself, as one module: each sibling import taken out, and each imported module's
    `export` keyword (the entry keeps its own exports). Every top-level name must be declared once in all
    the modules, since they then share one scope; a name imported must be one its module exports."""
    texts: dict[str, str] = {}
    graph: dict[str, set[str]] = {}
    waiting = [entry]
    while waiting:
        name = waiting.pop()
        if name in texts:
            continue
        path = folder / name
        if not path.is_file():
            raise JoinError(f"{name} is imported but {path} does not exist: add it or fix the import")
        texts[name] = path.read_text(encoding="utf-8")
        graph[name] = {module for _, module in _IMPORT.findall(texts[name])}
        waiting.extend(graph[name])
    try:
        order = list(TopologicalSorter(graph).static_order())
    except CycleError as exc:
        raise JoinError(f"the stepper's modules import each other in a cycle ({' -> '.join(exc.args[1])})") from exc
    _check_names(texts)
    parts = []
    for name in order:
        body = _IMPORT.sub("", texts[name])
        if re.search(r"^\s*(import|export \{|export \*)", body, re.M):
            raise JoinError(
                f'{name}: only `import {{ ... }} from "./sibling.js";` and `export` before a declaration join'
            )
        if name != entry:
            body = re.sub(r"^export (?!default)", "", body, flags=re.M)
        parts.append(f"// ---- {name}\n{body}")
    return "\n".join(parts)


def _check_names(texts: dict[str, str]) -> None:
    """Each imported name is exported by its module, and no top-level name is declared by two modules."""
    declared: dict[str, str] = {}
    for name, text in texts.items():
        for _, top in _DECLARED.findall(text):
            if top in declared:
                raise JoinError(f"{top} is declared in both {declared[top]} and {name}: rename one, they share a scope")
            declared[top] = name
    for name, text in texts.items():
        for names, module in _IMPORT.findall(text):
            exported = {top for export, top in _DECLARED.findall(texts[module]) if export}
            for wanted in (n.strip() for n in names.split(",") if n.strip()):
                if wanted not in exported:
                    raise JoinError(f"{name} imports {wanted} from {module}, which does not export it")
