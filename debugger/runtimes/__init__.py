"""Runtimes the debugger drives: one adapter per way of running a graph (the engine, langgraph, LangGraph.js in node)."""
