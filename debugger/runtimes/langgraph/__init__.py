"""Apps written with `langgraph` itself as a runtime of the debugger."""
