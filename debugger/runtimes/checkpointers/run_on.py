"""The saver a run goes on when `--checkpointer URL` names one (`RunRequest.checkpointer`): a SQLite file or a
PostgreSQL database, for an app compiled without a checkpointer, so its thread is kept there and can be
resumed later (`--resume ... --checkpointer URL --thread ID`) and read back (`stepscope threads`, `show`).

Nothing is written before the database is checked as `stepscope threads` reads it (`savers.open_checkpointer`,
read-only): an existing file that is not SQLite, a SQLite database of something else (a run database, the
engine's own saver) or of a layout StepScope does not read is refused in one line, left as it was. A missing
file is made (its folder must exist); so is an empty one. A PostgreSQL database without the savers' tables
gets them from the saver's own `setup()`, as the app itself would.

`checked_url` is shared by every runtime that takes the option; `python_saver` opens langgraph's own writable
saver for it (a LangGraph.js app opens the same database with LangGraph.js's saver, in node).
"""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from debugger.runtimes.threads_api import CheckpointerError
from debugger.stores.urls import BadURL, checked_postgres_url, is_postgres_url, masked

from .savers import open_checkpointer, read_only_postgres

SAVER_OF = {"python": "langgraph (Python)", "javascript": "LangGraph.js"}


def checked_url(url: str, language: str) -> str:
    """The database `--checkpointer` names, checked before an app in `language` ("python", "javascript")
    writes to it: a postgresql:// URL as given, or the SQLite file's path; `CheckpointerError` of one line
    saying what was found and what to give."""
    url = url.strip()
    if is_postgres_url(url):
        try:
            checked_postgres_url(url, "--checkpointer")
        except BadURL as exc:
            raise CheckpointerError(str(exc)) from None
        found = _postgres_tables(url)
        if found not in (None, language):
            raise CheckpointerError(
                f"{masked(url)} holds {SAVER_OF[found]}'s checkpointer tables, which a {SAVER_OF[language]} app "
                "cannot write: give another database."
            )
        return url
    path = Path(url.removeprefix("sqlite:///").removeprefix("sqlite://")).expanduser()
    if path.is_dir():
        raise CheckpointerError(f"--checkpointer {path} is a folder: give a SQLite file in it (made if missing).")
    if path.is_file() and path.stat().st_size > 0:
        try:
            open_checkpointer(str(path)).close()  # refuses a file that is not a checkpointer's, read-only
        except CheckpointerError as exc:
            raise CheckpointerError(f"{exc} (--checkpointer makes a new saver file where none exists yet)") from None
    elif not path.parent.is_dir():
        raise CheckpointerError(
            f"--checkpointer {path}: the folder {path.parent} does not exist; make it, or give a file in another one."
        )
    return str(path)


def _postgres_tables(url: str) -> str | None:
    """Whose saver made the database's checkpointer tables ("python", "javascript"), read-only and checked as
    `stepscope threads` reads them (`savers.open_checkpointer`); None for a database without them."""
    conn = read_only_postgres(url, masked(url))
    try:
        if conn.execute("SELECT to_regclass('checkpoint_migrations') AS m").fetchone()["m"] is None:
            return None
    finally:
        conn.close()
    with open_checkpointer(url) as found:
        return "javascript" if found.saver is None else "python"


@contextmanager
def python_saver(url: str) -> Iterator[Any]:
    """langgraph's writable saver on the database `url` names (checked first, `checked_url`), closed after."""
    checked = checked_url(url, "python")
    if is_postgres_url(checked):
        with _postgres_saver(checked) as saver:
            yield saver
        return
    from langgraph.checkpoint.sqlite import SqliteSaver  # optional package, only for a run on a SQLite saver

    conn = sqlite3.connect(checked, check_same_thread=False)  # the run goes on a worker thread
    try:
        saver = SqliteSaver(conn)
        saver.setup()
        yield saver
    finally:
        conn.close()


@contextmanager
def _postgres_saver(url: str) -> Iterator[Any]:
    """langgraph's `PostgresSaver` on `url` (checked by `checked_url`): a database without its tables gets them."""
    try:
        from langgraph.checkpoint.postgres import PostgresSaver
    except ImportError as exc:
        raise CheckpointerError(
            f"a run on a PostgreSQL checkpointer needs langgraph-checkpoint-postgres ({exc})."
        ) from None
    try:
        manager = PostgresSaver.from_conn_string(url)
        saver = manager.__enter__()
    except Exception as exc:  # noqa: BLE001 - psycopg's errors (a server down, a wrong password), one line
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise CheckpointerError(f"cannot connect to {masked(url)}: {masked(first)}") from None
    try:
        saver.setup()
        yield saver
    finally:
        manager.__exit__(None, None, None)
