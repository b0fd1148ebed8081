"""The checkpointer databases the runtimes with threads share: the tables langgraph's and LangGraph.js's
`SqliteSaver` and `PostgresSaver` write, opened read-only (never a runtime's own module: both read them).

    savers.py    open a SQLite file or a postgresql:// URL read-only; list threads; read a thread's checkpoints
    tables.py    the savers' tables read directly: a checkpoint, or a whole thread with each stored value decoded once
    status.py    a thread's status from its newest checkpoint alone (the `threads` listing)
    open.py      what the commands and the app's sources call: load the app's graph, open a thread, fork one,
                 each through the graph's runtime's `Threads` capability

The types they speak in (`CheckpointerError`, `ThreadRead`, `ForkResult`, ...) are `../threads_api.py`.
Nothing here writes to the app's checkpointer: connections are read-only at the database level.
"""
