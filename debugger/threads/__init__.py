"""Threads of a langgraph app's checkpointer, opened as recorded runs.

    savers.py    open a SQLite file or a postgresql:// URL read-only; list threads; read a thread's checkpoints
    refold.py    one stored step's writes folded again with langgraph's `apply_writes`, each reducer call observed
    rebuild.py   a thread's checkpoints, namespace by namespace, into an `engine.trace.Trace`
    fork.py      time travel from a stored checkpoint, on a local copy (never the app's checkpointer)
    open.py      what the CLI and the app call: load the app's graph, open a thread

Nothing here writes to the app's checkpointer: connections are read-only at the database level.
"""
