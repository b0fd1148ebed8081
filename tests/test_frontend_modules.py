"""The stepper's modules (debugger/frontend/): one source, loaded as files by the page and joined into one
module for the HTML file and the notebook; each module short, the join refusing what would break it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from debugger.frontend import ENTRY, FOLDER, JoinError, join_modules, stepper_js

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "debugger" / "app.py")
MODULES = sorted(p.name for p in FOLDER.glob("*.js"))


def test_the_folder_the_page_serves_holds_only_what_the_browser_loads() -> None:
    """The page's server serves the stepper's asset folder as it is: no Python source beside the modules."""
    served = sorted(p.name for p in FOLDER.rglob("*"))
    assert served == sorted([*MODULES, "stepper.css"]), served


def test_every_module_is_short_and_in_the_joined_module() -> None:
    assert len(MODULES) >= 6, MODULES  # split by role: drawing, tables, keys, windows of steps, frame, entry
    for name in MODULES:
        assert len((FOLDER / name).read_text(encoding="utf-8").splitlines()) < 450, name
        assert f"// ---- {name}\n" in stepper_js(), name
    joined = stepper_js()
    assert joined.index("// ---- dom.js") < joined.index("// ---- drawing.js") < joined.index(f"// ---- {ENTRY}")
    assert "import " not in "".join(line[:7] for line in joined.splitlines())  # no import line left
    assert [line for line in joined.splitlines() if line.startswith("export ")] == [
        "export function mount(root, data, options = {}) {",
        "export default function stepscope(component) {",
    ]


@pytest.mark.slow  # a node process
@pytest.mark.skipif(shutil.which("node") is None, reason="node checks the joined module's syntax")
def test_the_joined_module_is_one_valid_es_module(tmp_path: Path) -> None:
    joined = tmp_path / "stepper.mjs"
    joined.write_text(stepper_js(), encoding="utf-8")
    done = subprocess.run(["node", "--check", str(joined)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def _modules(folder: Path, **texts: str) -> Path:
    for name, text in texts.items():
        (folder / f"{name}.js").write_text(text, encoding="utf-8")
    return folder


def test_the_join_puts_a_module_before_its_importers_and_keeps_the_entrys_exports(tmp_path: Path) -> None:
    folder = _modules(
        tmp_path,
        a='import { b } from "./b.js";\nexport function a() { return b(); }\n',
        b="export function b() { return 1; }\n",
        main='import { a } from "./a.js";\nexport default function main() { return a(); }\n',
    )
    assert join_modules(folder, "main.js") == (
        "// ---- b.js\nfunction b() { return 1; }\n\n"
        "// ---- a.js\nfunction a() { return b(); }\n\n"
        "// ---- main.js\nexport default function main() { return a(); }\n"
    )


@pytest.mark.parametrize(
    ("texts", "said"),
    [
        (
            {"a": "const x = 1;\nexport function a() {}\n", "main": 'import { a } from "./a.js";\nconst x = 2;\n'},
            "x is declared in both",
        ),
        (
            {"a": "function a() {}\n", "main": 'import { a } from "./a.js";\n'},
            "imports a from a.js, which does not export it",
        ),
        ({"main": 'import { a } from "./gone.js";\n'}, "gone.js is imported but"),
        (
            {
                "a": 'import { m } from "./main.js";\nexport function a() {}\n',
                "main": 'import { a } from "./a.js";\nexport function m() {}\n',
            },
            "cycle",
        ),
        ({"main": 'import x from "https://cdn.example/x.js";\n'}, "only `import { ... } from"),
    ],
)
def test_the_join_refuses_what_one_shared_scope_would_break(tmp_path: Path, texts: dict, said: str) -> None:
    with pytest.raises(JoinError, match=said.replace("`", ".").replace("(", ".").replace(")", ".")):
        join_modules(_modules(tmp_path, **texts), "main.js")


@pytest.mark.slow  # the page draws its graph with dot
@pytest.mark.usefixtures("fresh_store")
def test_the_page_sends_the_stepper_by_its_files_names_not_its_code() -> None:
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params.update({"sample": "fan_out_search"})
    at.run()
    assert not at.exception, at.exception
    (shown,) = at.get("bidi_component")
    # each rerun sends the names; the browser fetches the files once (was the whole module, every rerun)
    assert (shown.proto.js_source_path, shown.proto.css_source_path) == (ENTRY, "stepper.css")
    assert shown.proto.js_content == "" and shown.proto.css_content == ""
