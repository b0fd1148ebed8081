"""Runnable lessons: each module exposes `graph` (compiled), `example_input`, `title` and `lesson`,
and prints what happened when run on its own (`python sample_graphs/NAME.py`)."""
