"""Where the runs the debugger shows come from, as plain services (no Streamlit) that return data
or raise an error whose message says what to do.

    runs.py         open a sample, a graph file, a stored run or an uploaded trace
    checkpointer_threads.py  a checkpointer thread as a run, its threads, time travel on a copy of one
    recording.py    record a run however it ends (timeouts, the store sink that writes it step by step)
    forks.py        time travel: a branch of a run from one of its steps, with an edit or an answer
    trace_stream.py a long trace file read step by step (trace_scan.py: its JSON scanned in chunks)
    trace_check.py  the gates every trace read passes (size, nesting, schema, consistency, sense)
    trace_schema.py the trace file's schema (pydantic records); trace_values.py its recorded values
    trace_replay.py the consistency gate: every channel's deltas apply in order
    trace_sense.py  the last gate: does a schema-valid trace add up?
"""
