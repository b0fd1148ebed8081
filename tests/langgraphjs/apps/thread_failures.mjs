// Threads that ended badly, kept by the app's own SqliteSaver (STEPSCOPE_TEST_THREADS): a node that throws
// (`graph`), and two parallel writes to a plain key (`conflict`: LangGraph.js's InvalidUpdateError at the merge).
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { Annotation, START, StateGraph } from "@langchain/langgraph";

const saver = SqliteSaver.fromConnString(process.env.STEPSCOPE_TEST_THREADS ?? ":memory:");
const State = Annotation.Root({ a: Annotation(), b: Annotation() });

export const graph = new StateGraph(State)
  .addNode("one", () => ({ a: 1 }))
  .addNode("boom", () => {
    throw new TypeError("boom broke");
  })
  .addEdge(START, "one")
  .addEdge("one", "boom")
  .compile({ checkpointer: saver });

export const conflict = new StateGraph(State)
  .addNode("x", () => ({ a: 1 }))
  .addNode("y", () => ({ a: 2 }))
  .addEdge(START, "x")
  .addEdge(START, "y")
  .compile({ checkpointer: saver });
