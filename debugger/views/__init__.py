"""Thin Streamlit renderers: one module per page, plus shared widgets. The only place `st.*`
element calls live; they read the view-model (`debugger.model.trace_view`, `debugger.model.run_view`) and
change nothing while rendering."""
