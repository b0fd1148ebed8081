"""`stepscope` imports only the subcommand its command line names (debugger/commands/__init__.py), so a
run does not wait for the modules of the app's server, the diagnostics or the other commands."""

from __future__ import annotations

import ast
import gc
import subprocess
import sys

import pytest

from debugger import cli
from debugger.commands import COMMANDS


def test_the_whole_parser_lists_every_subcommand_in_order() -> None:
    parser = cli.build_parser()
    choices = next(a for a in parser._actions if a.dest == "command").choices
    assert list(choices) == list(COMMANDS)


def test_a_usage_error_is_one_line_whatever_module_defines_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["show", "/no/such/trace.json"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: cannot read /no/such/trace.json") and err.count("\n") == 1


@pytest.mark.slow
def test_one_subcommand_imports_neither_the_others_nor_the_app_server() -> None:
    probe = (
        "import sys; from debugger import cli; cli.build_parser('samples'); "
        "print(sorted(m for m in sys.modules if m.startswith('debugger.commands.')))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    loaded = ast.literal_eval(out)  # the printed list of module names
    assert "debugger.commands.samples" in loaded
    assert not {"debugger.commands.app", "debugger.commands.app_server", "debugger.commands.diagnose"} & set(loaded)


LOADED_BY_RUN = (
    "import sys; from debugger import cli; cli.build_parser('run'); "
    "import debugger.runtimes.registry, debugger.sources.recording; "
    "print(sorted(m for m in sys.modules if m.startswith(('debugger.', 'engine.'))))"
)
"""What `stepscope run` has loaded before it imports the app: its command, the registry of runtimes (which
asks each whether it claims the graph) and the recording."""

NOT_BEFORE_A_RUN = {
    # the engine's builder, loop, runner and savers: a langgraph app never runs on them (engine/__init__.py)
    "engine.compiled",
    "engine.graph",
    "engine.loop",
    "engine.runner",
    "engine.savers",
    "engine.state_api",
    "engine.stepping",
    # live runs, each runtime's (--follow imports them)
    "debugger.live.controller",
    "debugger.live.start",
    "debugger.runtimes.driven",
    "debugger.runtimes.engine.live",
    "debugger.runtimes.langgraph.live",
    "debugger.runtimes.langgraphjs.live",
    "debugger.runtimes.segmented_live",
    # checkpointer threads: reading, rebuilding, forking them (commands/common.py, the runtimes' record.py)
    "debugger.runtimes.checkpointers.open",
    "debugger.runtimes.langgraph.threads.reader",
    "debugger.runtimes.langgraph.threads.fork",
    "debugger.runtimes.langgraphjs.threads",
    # the app's run sources, forks, comparisons, the run's analysis and the presenters of its merges
    "debugger.sources.runs",
    "debugger.sources.forks",
    "debugger.model.compare",
    "debugger.diagnostics.facts",
    "debugger.diagnostics.validation",
    "debugger.model.present",
    # the trace file schema (pydantic models): the stores import it when they read a run back
    "debugger.sources.trace_check",
    "debugger.sources.trace_schema",
}


@pytest.mark.slow
def test_a_run_loads_no_engine_loop_live_run_thread_reader_or_analysis_before_the_app() -> None:
    out = subprocess.run([sys.executable, "-c", LOADED_BY_RUN], capture_output=True, text=True, check=True).stdout
    loaded = set(ast.literal_eval(out))
    assert "debugger.commands.run" in loaded and "debugger.runtimes.langgraph.recorder.record" in loaded
    assert sorted(NOT_BEFORE_A_RUN & loaded) == []


@pytest.mark.slow
def test_the_lazy_engine_still_hands_out_every_public_name() -> None:
    probe = (
        "import sys, engine; assert 'engine.compiled' not in sys.modules; "
        "from engine import *; import engine as e; "
        "print(all(getattr(e, n) is not None for n in e.__all__), 'engine.compiled' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "True"]


FREEZE_PROBE_APP = """
import gc
import operator
from typing import Annotated, TypedDict

from langgraph.graph import END, START, StateGraph

print("frozen while the app imports:", gc.get_freeze_count())


class S(TypedDict):
    n: Annotated[int, operator.add]


builder = StateGraph(S)
builder.add_node("inc", lambda state: {"n": 1})
builder.add_edge(START, "inc")
builder.add_edge("inc", END)
graph = builder.compile()
example_input = {"n": 0}
"""


@pytest.mark.slow
def test_the_stepscope_process_freezes_its_own_modules_before_the_app_imports(tmp_path) -> None:
    app = tmp_path / "app.py"
    app.write_text(FREEZE_PROBE_APP)
    done = subprocess.run(
        [sys.executable, "-m", "debugger.cli", "run", str(app), "--db", str(tmp_path / "runs.sqlite3")],
        capture_output=True,
        text=True,
        check=True,
    )
    frozen = int(done.stdout.split("frozen while the app imports:")[1].split()[0])
    assert frozen > 10_000  # StepScope's modules: the collector no longer walks them while the app runs


def test_main_called_in_a_callers_process_freezes_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    before = gc.get_freeze_count()
    assert cli.main(["samples"]) == 0
    assert gc.get_freeze_count() <= before  # a caller's objects are its own (frozen ones may be freed meanwhile)
