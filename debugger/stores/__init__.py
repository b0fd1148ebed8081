"""Run stores: where recorded runs are kept and how they are found again.

`protocol.py` says what every store does (`RunStoreProtocol`) and holds what they share; `rows.py`
cuts a Trace into the pieces both keep (a head, one row per superstep, large values once);
`sqlite.py` is the default store, one SQLite file; `postgres.py` (with `postgres_layout.py`, its
tables and migrations) a shared PostgreSQL database; `opening.py` picks one from `--db`/`$STEPSCOPE_DB`
(a `postgresql://` URL or a file path).
"""
