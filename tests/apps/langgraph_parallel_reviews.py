"""langgraph_interrupts.py's parallel reviewers as a graph file `stepscope run` opens: `graph`, on an
InMemorySaver that `stepscope run` keeps between its processes for a thread."""

from tests.apps.langgraph_interrupts import parallel_reviews

graph = parallel_reviews()
