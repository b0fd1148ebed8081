"""A RAG pipeline: the query is rewritten, then two branches run in parallel, a compiled retrieval
subgraph (search -> rerank) and a keyword search, both adding documents (nested metadata, a set of
labels) through one reducer; `answer` cites them."""

import operator
from typing import Annotated, TypedDict

from langgraph.graph import END, START, StateGraph

CORPUS = {
    "d1": {"text": "Tides follow the moon.", "meta": {"year": 2021, "labels": {"science", "ocean"}}},
    "d2": {"text": "Spring tides are larger.", "meta": {"year": 2019, "labels": {"ocean"}}},
}


class Rag(TypedDict):
    question: str
    query: str
    documents: Annotated[list[dict], operator.add]
    answer: str


def rewrite(state: Rag) -> dict:
    return {"query": state["question"].lower().rstrip("?")}


def search(state: Rag) -> dict:
    hits = [k for k, doc in CORPUS.items() if "tides" in doc["text"].lower()]
    return {"documents": [{"id": k, **CORPUS[k], "via": "vector"} for k in hits]}


def keyword(state: Rag) -> dict:
    return {"documents": [{"id": "d2", **CORPUS["d2"], "via": "keyword"}]}


def answer(state: Rag) -> dict:
    cited = sorted({doc["id"] for doc in state["documents"]})
    return {"answer": f"{CORPUS[cited[0]]['text']} [{', '.join(cited)}]"}


retrieval = StateGraph(Rag)
retrieval.add_node("search", search)
retrieval.add_edge(START, "search")
builder = StateGraph(Rag)
builder.add_node("rewrite", rewrite)
builder.add_node("retrieve", retrieval.compile())
builder.add_node("keyword", keyword)
builder.add_node("compose", answer)
builder.add_edge(START, "rewrite")
builder.add_edge("rewrite", "retrieve")
builder.add_edge("rewrite", "keyword")
builder.add_edge(["retrieve", "keyword"], "compose")
builder.add_edge("compose", END)
graph = builder.compile()
example_input = {"question": "Why do tides happen?", "documents": []}

if __name__ == "__main__":
    from own_run import print_own_run

    print_own_run(graph, example_input)
