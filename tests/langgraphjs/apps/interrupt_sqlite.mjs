// An interrupt answered from a later process: the thread lives in a SQLite file (STEPSCOPE_TEST_THREADS).
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { Annotation, START, StateGraph, interrupt } from "@langchain/langgraph";

const State = Annotation.Root({ question: Annotation(), answer: Annotation() });

export const graph = new StateGraph(State)
  .addNode("prepare", () => ({ question: "Refund order 17?" }))
  .addNode("ask", (state) => ({ answer: interrupt({ ask: state.question }) }))
  .addEdge(START, "prepare")
  .addEdge("prepare", "ask")
  .compile({ checkpointer: SqliteSaver.fromConnString(process.env.STEPSCOPE_TEST_THREADS) });
