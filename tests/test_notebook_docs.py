"""Every notebook under docs/ runs from top to bottom in a real kernel (nbclient), as a learner's would: no
cell fails, and every `show(...)` a cell ends with is the widget (its mime type), never text or an error."""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

pytestmark = pytest.mark.slow  # a kernel is a process

DOCS = Path(__file__).resolve().parents[1] / "docs"
NOTEBOOKS = sorted(DOCS.rglob("*.ipynb"))
WIDGET = "application/vnd.jupyter.widget-view+json"


def test_the_docs_have_the_tutorial_in_english_and_chinese() -> None:
    names = {p.relative_to(DOCS).as_posix() for p in NOTEBOOKS}
    assert {"notebooks/reducers.ipynb", "notebooks/reducers.zh.ipynb"} <= names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_a_notebook_runs_and_each_show_is_the_widget(path: Path, tmp_path) -> None:
    book = nbformat.read(path, as_version=4)
    assert not any(cell.get("outputs") for cell in book.cells if cell.cell_type == "code"), "commit it without outputs"
    client = nbclient.NotebookClient(
        book, timeout=120, kernel_name="python3", resources={"metadata": {"path": tmp_path}}
    )
    client.execute()
    shows = 0
    for cell in book.cells:
        if cell.cell_type != "code":
            continue
        errors = [o for o in cell.outputs if o.output_type == "error"]
        assert not errors, f"{path.name}: {cell.source[:60]!r} failed: {errors[0].ename}: {errors[0].evalue}"
        ends_with_show = cell.source.strip().splitlines()[-1].startswith("show(") or cell.source.strip().endswith(
            ("refund", "race", "trap", "mine")
        )
        if ends_with_show:
            shown = [o for o in cell.outputs if o.output_type == "execute_result"]
            assert shown and WIDGET in shown[0].data, f"{path.name}: {cell.source[:60]!r} shows no widget"
            shows += 1
    assert shows >= 5
