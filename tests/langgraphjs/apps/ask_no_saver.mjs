// interrupt_ask.mjs compiled without a checkpointer: `stepscope run --checkpointer FILE` gives it one (run_saver.mjs).
import { Annotation, START, StateGraph, interrupt } from "@langchain/langgraph";

const State = Annotation.Root({ question: Annotation(), answer: Annotation() });

export const graph = new StateGraph(State)
  .addNode("prepare", () => ({ question: "Refund order 17?" }))
  .addNode("ask", (state) => ({ answer: interrupt({ ask: state.question }) }))
  .addEdge(START, "prepare")
  .addEdge("prepare", "ask")
  .compile();
