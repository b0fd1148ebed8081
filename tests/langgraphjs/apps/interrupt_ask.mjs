// A node asks a person with interrupt(); the run stops there (the answer would come with Command({resume})).
import { Annotation, MemorySaver, START, StateGraph, interrupt } from "@langchain/langgraph";

const State = Annotation.Root({ question: Annotation(), answer: Annotation() });

export const graph = new StateGraph(State)
  .addNode("prepare", () => ({ question: "Refund order 17?" }))
  .addNode("ask", (state) => ({ answer: interrupt({ ask: state.question }) }))
  .addEdge(START, "prepare")
  .addEdge("prepare", "ask")
  .compile({ checkpointer: new MemorySaver() });
