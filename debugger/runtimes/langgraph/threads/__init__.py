"""Threads of a langgraph app's checkpointer, rebuilt into recorded runs (the langgraph runtime's `Threads`).

    reader.py    which checkpoints a view decodes (the newest steps, one step, or all, cached) and `read_thread`
    damage.py    a damaged checkpoint or write as a damaged step of its thread
    rebuild.py   a thread's checkpoints, namespace by namespace, into an `engine.trace.Trace`: each stored step
                 applied again with langgraph's `apply_writes`, recorded by the live recorder's builder
                 (`debugger/runtimes/langgraph/recorder/superstep.py`), checked against the next checkpoint
    message_ids.py  the message ids `add_messages` made up during the run, taken back from the checkpoint
    cache.py     whole threads already rebuilt, kept between processes
    fork.py      time travel from a stored checkpoint, on a local copy (never the app's checkpointer)

The checkpointer databases themselves (opening, listing, reading checkpoints) are shared with LangGraph.js:
`debugger/runtimes/checkpointers/`. Nothing here writes to the app's checkpointer.
"""
