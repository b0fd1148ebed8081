"""The run stores against hostile or broken databases and URLs (issue 25): foreign SQLite files are
never written into, a read-only store is refused before a graph runs, a run read through a symbolic
link is not taken for cut off, a run being recorded cannot be deleted from under its recorder, odd
layout versions and malformed URLs get one line, and no printed URL shows a secret."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

import pytest

from debugger.commands.terminal import one_line
from debugger.stores.postgres_layout import layout_version
from debugger.stores.protocol import StoreError
from debugger.stores.sqlite import RunStore, SqliteDialect
from debugger.stores.urls import BadURL, checked_postgres_url, masked
from engine import START, StateGraph
from engine.records import describe
from engine.trace import StepRecord, Trace


def _fingerprint(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _foreign(path: Path, *statements: str) -> Path:
    db = sqlite3.connect(path)
    for statement in statements:
        db.execute(statement)
    db.commit()
    db.close()
    return path


@pytest.mark.parametrize(
    "statements",
    [
        ["CREATE TABLE SQLiteNotes (note TEXT)"],  # LIKE 'sqlite_%' ignores case and reads _ as a wildcard
        ["CREATE TABLE sqlitebrowser_backup (x)"],
        ["CREATE TABLE t (x)", "CREATE VIEW only_view AS SELECT 1 AS one", "DROP TABLE t"],  # a view alone
        ["CREATE TABLE sqlite1 (x)"],
    ],
    ids=["SQLiteNotes", "sqlitebrowser_backup", "only-a-view", "sqlite1"],
)
def test_a_foreign_sqlite_file_is_refused_and_left_byte_for_byte(tmp_path, statements):
    path = _foreign(tmp_path / "theirs.sqlite3", *statements)
    before = _fingerprint(path)
    with pytest.raises(StoreError, match="is not a StepScope run database") as caught:
        RunStore(path)
    assert "\n" not in str(caught.value)
    assert _fingerprint(path) == before


def test_an_empty_file_gets_the_layout(tmp_path):
    path = tmp_path / "new.sqlite3"
    RunStore(path)
    RunStore(path)  # and is recognised as StepScope's the next time


def _read_only(monkeypatch) -> None:
    """Opens every store connection read-only (`mode=ro`), as a read-only disk would: `BEGIN
    IMMEDIATE` still succeeds there, only a real write fails."""
    monkeypatch.setattr(
        SqliteDialect,
        "connect",
        lambda self: sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=10, isolation_level=None),
    )


def test_a_read_only_store_is_refused_when_it_is_opened_not_after_the_run(tmp_path, monkeypatch):
    path = tmp_path / "runs.sqlite3"
    RunStore(path)  # an existing StepScope database, so opening it needs no write but the probe
    _read_only(monkeypatch)
    with pytest.raises(StoreError, match="read-only") as caught:
        RunStore(path)
    assert "Pass --db PATH" in str(caught.value)


def _trace(run_id: str = "r-1") -> Trace:
    """A run that has just started: a real graph's description, no steps yet."""
    graph = StateGraph(dict)
    graph.add_node("a", lambda state: {})
    graph.add_edge(START, "a")
    return Trace(
        ns=[], graph=describe(graph.compile()), input={}, config={}, run_id=run_id, target="t", status="running"
    )


def test_a_run_read_through_a_symlink_is_still_recording_not_cut_off(tmp_path):
    real = tmp_path / "data" / "runs.sqlite3"
    real.parent.mkdir()
    link = tmp_path / "link.sqlite3"
    recorder = RunStore(real)
    recorder.start_run(_trace())
    link.symlink_to(real)
    reader = RunStore(link)
    assert reader.load("r-1").error is None  # unfinished, not "cut off"
    assert reader.list()[0].error == ""
    done = _trace()
    done.status = "done"
    recorder.finish_run(done)


def test_a_run_being_recorded_cannot_be_deleted_from_under_its_recorder(tmp_path):
    path = tmp_path / "runs.sqlite3"
    recorder = RunStore(path)
    recorder.start_run(_trace())
    other = RunStore(path)
    with pytest.raises(StoreError, match="still being recorded"):
        other.delete("r-1")
    recorder.append_steps("r-1", [StepRecord(0, committed=True)])
    done = _trace()
    done.status = "done"
    recorder.finish_run(done)
    assert other.delete("r-1") == "r-1"


def test_a_recording_whose_row_was_removed_says_so_instead_of_finishing(tmp_path):
    path = tmp_path / "runs.sqlite3"
    recorder = RunStore(path)
    recorder.start_run(_trace())
    with sqlite3.connect(path) as db:  # by hand, as another tool would
        db.execute("DELETE FROM runs WHERE run_id = 'r-1'")
    with pytest.raises(StoreError, match="no longer in"):
        recorder.append_steps("r-1", [StepRecord(0, committed=True)])


def test_a_cut_off_run_can_still_be_deleted(tmp_path):
    path = tmp_path / "runs.sqlite3"
    store = RunStore(path)
    store.start_run(_trace())
    store.dialect.stop_recording("r-1")  # what the kernel does when the recording process dies
    assert RunStore(path).delete("r-1") == "r-1"


@pytest.mark.parametrize("text", ["0", "²", "", "2.0", " 2", None, "99999999999"])
def test_an_odd_postgres_layout_version_is_refused_in_one_line(text):
    with pytest.raises(StoreError, match="no StepScope wrote") as caught:
        layout_version(text, "postgresql://h/db")
    assert "\n" not in str(caught.value)


def test_a_good_postgres_layout_version_reads_as_a_number():
    assert layout_version("2", "db") == 2


@pytest.mark.parametrize(
    "url, secret",
    [
        ("postgresql://u:s3cret@h:5432/db", "s3cret"),
        ("postgresql://h/db?password=s3cret&sslmode=require", "s3cret"),
        ("postgresql://h/db?sslmode=require&sslpassword=s3cret", "s3cret"),
        ("postgresql://u:p@ss3cret@h/db", "ss3cret"),
        ("postgres://u:s3cret@[::1:8680/x", "s3cret"),
        ("no stored run 'zzzz' in postgresql://h/d?password=s3cret", "s3cret"),
    ],
)
def test_masked_hides_every_secret_of_a_url_even_one_that_does_not_parse(url, secret):
    shown = masked(url)
    assert secret not in shown
    assert "***" in shown


def test_masked_leaves_paths_and_urls_without_secrets_alone():
    assert masked("/tmp/a:b@c.sqlite3") == "/tmp/a:b@c.sqlite3"
    assert masked("postgresql://u@h/db?sslmode=require") == "postgresql://u@h/db?sslmode=require"


def test_a_malformed_postgres_url_gets_one_line_with_the_form_to_use():
    with pytest.raises(BadURL) as caught:
        checked_postgres_url("postgres://u:s3cret@[::1:8680/x")
    message = str(caught.value)
    assert "s3cret" not in message and "\n" not in message and "postgresql://USER" in message


def test_a_malformed_postgres_url_as_the_run_store_is_a_store_error(monkeypatch):
    from debugger.stores.opening import open_store

    with pytest.raises(StoreError, match="not a valid PostgreSQL URL") as caught:
        open_store("postgres://u:s3cret@[::1:8680/x")
    assert "s3cret" not in str(caught.value)


def test_data_printed_inside_a_line_cannot_start_a_line_of_its_own():
    assert one_line("run\nforged  row") == "run\\x0aforged  row"
    assert "\n" not in one_line("a\r\nb\u2028c\tz\x1b[2J")


def test_the_runs_table_escapes_a_newline_in_a_run_id(tmp_path, capsys):
    from debugger.cli import main

    path = tmp_path / "runs.sqlite3"
    forged = _trace("abcd\nffff  g  t  2026  done  9")
    forged.status = "done"
    RunStore(path).save(forged)
    assert main(["runs", "--db", str(path)]) == 0
    out = capsys.readouterr().out
    assert "abcd\\x0affff" in out
    assert not any(line.startswith("ffff") for line in out.splitlines())


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a read-only file system needs root (CI runs as root)")
@pytest.mark.slow  # mounts a file system (starts `mount`)
def test_a_store_on_a_read_only_file_system_is_refused_before_the_run(tmp_path):
    import subprocess

    mount = tmp_path / "ro"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(mount)]).returncode:
        pytest.skip("this machine cannot mount a tmpfs")
    try:
        RunStore(mount / "runs.sqlite3")
        subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True)
        with pytest.raises(StoreError, match="read-only"):
            RunStore(mount / "runs.sqlite3")
    finally:
        subprocess.run(["umount", str(mount)])
