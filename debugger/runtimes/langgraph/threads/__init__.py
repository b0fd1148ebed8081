"""Threads of a langgraph app's checkpointer, opened as recorded runs.

    savers.py    open a SQLite file or a postgresql:// URL read-only; list threads; read a thread's checkpoints
    status.py    a thread's status from its newest checkpoint alone (the `threads` listing)
    tables.py    the savers' tables read directly: a checkpoint, or a whole thread with each stored value decoded once
    reader.py    which checkpoints a view decodes (the newest steps, one step, or all, cached) and `read_thread`
    damage.py    a damaged checkpoint or write as a damaged step of its thread
    rebuild.py   a thread's checkpoints, namespace by namespace, into an `engine.trace.Trace`: each stored step
                 applied again with langgraph's `apply_writes`, recorded by the live recorder's builder
                 (`debugger/runtimes/langgraph/recorder/superstep.py`), checked against the next checkpoint
    message_ids.py  the message ids `add_messages` made up during the run, taken back from the checkpoint
    fork.py      time travel from a stored checkpoint, on a local copy (never the app's checkpointer)
    open.py      what the commands and the app's sources call: load the app's graph, open a thread, fork one

Nothing here writes to the app's checkpointer: connections are read-only at the database level.
"""
