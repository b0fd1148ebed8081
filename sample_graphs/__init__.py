"""Runnable lessons: one module per lesson, each printing what happened when run on its own
(`python sample_graphs/NAME.py`). `gallery.py` lists them (`list_samples()`, `load_sample(name)`).

Every sample module exposes:

- `graph`: a compiled graph; for a lesson about a mistake, the broken one;
- `example_input`: a JSON-able dict (messages as `{"role": ..., "content": ..., "id": ...}` dicts);
- `title` (short), `summary` (one line), `lesson` (three to six sentences: what to notice, what
  goes wrong and why, what to change);

and, where it applies:

- `fixed_graph` and `fixed_input` (the corrected graph, side by side with the broken one);
- `example_config`: the `config` to run both with (e.g. `{"recursion_limit": 25}`);
- `source`: where the lesson comes from (a seed article and section);
- further compiled graphs for variants (e.g. `in_place_mutation.silent_graph`).

Samples import the LangGraph surface from `engine` only (`from engine import StateGraph, ...`),
so the same file runs on `langgraph` once that import points there (tests/test_samples.py does).
"""
