"""Thin Streamlit renderers: one module per page, plus shared widgets. The only place `st.*`
element calls live; they read the view-model (`debugger.model`) and change nothing while rendering."""
