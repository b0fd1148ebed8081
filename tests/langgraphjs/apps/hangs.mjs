// The second node never returns: only a timeout ends the run.
import { Annotation, START, StateGraph } from "@langchain/langgraph";

const State = Annotation.Root({ n: Annotation({ reducer: (a, b) => a + b, default: () => 0 }) });

export const graph = new StateGraph(State)
  .addNode("first", () => ({ n: 1 }))
  .addNode("hangs", () => new Promise(() => setInterval(() => {}, 1000)))
  .addEdge(START, "first")
  .addEdge("first", "hangs")
  .compile();
