"""Differential tests: the same graphs on langgraph and on engine, compared."""
