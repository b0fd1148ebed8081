// interrupt() inside a compiled subgraph of an app compiled with MemorySaver: the whole run pauses there, and
// Command({resume}) on the same thread (configurable.thread_id) answers it.
import { Annotation, MemorySaver, START, StateGraph, interrupt } from "@langchain/langgraph";

const State = Annotation.Root({ question: Annotation(), answer: Annotation() });

const review = new StateGraph(State)
  .addNode("ask", (state) => ({ answer: interrupt({ ask: state.question }) }))
  .addEdge(START, "ask")
  .compile();

export const graph = new StateGraph(State)
  .addNode("prepare", () => ({ question: "Refund order 17?" }))
  .addNode("review", review)
  .addEdge(START, "prepare")
  .addEdge("prepare", "review")
  .compile({ checkpointer: new MemorySaver() });
