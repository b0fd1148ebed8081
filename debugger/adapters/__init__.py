"""Adapters that let StepScope record graphs written for other runtimes (`langgraph_graph.py`)."""
