"""The pure view-model: everything a page or the CLI shows of a run, computed from a Trace and its
analysis (`debugger.diagnostics`), with no Streamlit and no I/O.

    trace_view.py   `TraceView`: the whole trace, its findings, the scope entered and the `Cursor`
    run_view.py     `RunView`: one run's steps, merges, diffs, triggers, findings at a step
    highlights.py   what the drawing marks at a step (ran, next, visited, failed, edges taken)
    merge_calls.py  a step's reducer calls ready to show, and its lost updates
    step_changes.py a step's state diff and channel versions
    step_summary.py the plain-words summary of one superstep (what ran, why, what was lost)
    present.py      one sentence per reducer call, readable values
    drawing.py      the step drawing (graphviz) with one moment highlighted
    dot_text.py     the one way run text enters DOT: quoted, escaped, never an attribute or markup
    live_page.py    the Live run page's status line and edit words of a `LiveSnapshot`
    live_stepper.py the Live run page's stepper model: the steps recorded so far and the one running
    background.py   a long run's findings, computed in a thread the page does not wait for
    learn.py        learn mode: predict a merge before it is revealed
    what_if.py      re-fold a step's writes in another order or without one
    failures.py     what went wrong in a step, in plain words, with the fixes
    run_status.py   how a run's status reads, everywhere
    frames.py       a Trace as pandas DataFrames, for notebooks
"""
