"""Runtimes the debugger drives: one adapter per way of running a graph (engine, langgraph, LangGraph.js)."""
