"""A store that fails after `stepscope run` started (issue 25, 3 and "disk fills / PostgreSQL lost
mid-run"): the run ends with exit code 3, the whole trace is in `--out` or a kept file, and the printed
command stores it whole once the database works again."""

from __future__ import annotations

import re
import shlex

import pytest

from debugger.cli import main
from debugger.commands.run import STORE_FAILED
from debugger.sources import store_sink
from debugger.stores.protocol import StoreError
from debugger.stores.sqlite import RunStore

SAMPLE = "fan_out_search"


def _clean_steps(tmp_path) -> list[int]:
    assert main(["run", SAMPLE, "--db", str(tmp_path / "clean.sqlite3")]) == 0
    (run,) = RunStore(tmp_path / "clean.sqlite3").list()
    return [s.step for s in RunStore(tmp_path / "clean.sqlite3").load(run.run_id).steps]


def _fail_after_first_append(monkeypatch) -> None:
    monkeypatch.setattr(store_sink, "BATCH_STEPS", 1)  # a transaction per step: the second one fails
    real = RunStore.append_steps
    calls = []

    def append_then_fail(self, run_id, steps):
        calls.append(run_id)
        if len(calls) > 1:
            raise StoreError("database or disk is full")
        return real(self, run_id, steps)

    monkeypatch.setattr(RunStore, "append_steps", append_then_fail)


def _recovery_command(err: str) -> list[str]:
    line = next(line for line in err.splitlines() if line.strip().startswith("stepscope import"))
    return shlex.split(line)[1:]


@pytest.mark.parametrize("fails", ["append_steps", "finish_run"])
def test_a_store_failing_mid_run_exits_3_and_prints_the_command_that_recovers_it(tmp_path, monkeypatch, capsys, fails):
    expected = _clean_steps(tmp_path)
    capsys.readouterr()
    if fails == "append_steps":
        _fail_after_first_append(monkeypatch)
    else:
        monkeypatch.setattr(RunStore, "finish_run", lambda self, trace: (_ for _ in ()).throw(StoreError("lost")))
    db = tmp_path / "runs.sqlite3"
    monkeypatch.chdir(tmp_path)
    assert main(["run", SAMPLE, "--db", str(db)]) == STORE_FAILED
    err = capsys.readouterr().err
    assert "is not stored whole" in err and "Traceback" not in err
    command = _recovery_command(err)
    kept = tmp_path / f"stepscope-unstored-{re.search(r'run ([0-9a-f]{12}) is not stored', err).group(1)}.json"
    assert kept.exists(), "the trace is kept beside the database"
    monkeypatch.undo()  # the database works again
    assert main(command) == 0
    (run,) = RunStore(db).list()
    assert [s.step for s in RunStore(db).load(run.run_id).steps] == expected, "every step is back"
    assert run.status == "done"


def test_with_out_the_recovery_command_names_the_out_file(tmp_path, monkeypatch, capsys):
    _fail_after_first_append(monkeypatch)
    out = tmp_path / "trace.json"
    db = tmp_path / "runs.sqlite3"
    assert main(["run", SAMPLE, "--db", str(db), "--out", str(out)]) == STORE_FAILED
    command = _recovery_command(capsys.readouterr().err)
    assert command[:2] == ["import", str(out)] and "--replace" in command and command[-1] == str(db)
    assert not list(tmp_path.glob("stepscope-unstored-*")), "no second copy beside --out"


def test_the_exit_code_is_documented_in_the_help(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    assert f"{STORE_FAILED} the run database failed during the run" in " ".join(capsys.readouterr().out.split())


def test_follow_whose_store_fails_exits_3_and_keeps_the_run(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(RunStore, "save", lambda self, trace, **kw: (_ for _ in ()).throw(StoreError("disk is full")))
    db = tmp_path / "runs.sqlite3"
    assert main(["run", "parallel_append_race", "--follow", "--db", str(db)]) == STORE_FAILED
    command = _recovery_command(capsys.readouterr().err)
    monkeypatch.undo()
    assert main(command) == 0
    (run,) = RunStore(db).list()
    assert run.status == "done" and run.steps > 0
