"""`stepscope` imports only the subcommand its command line names (debugger/commands/__init__.py), so a
run does not wait for the modules of the app's server, the diagnostics or the other commands."""

from __future__ import annotations

import ast
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
