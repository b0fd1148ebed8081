// A compiled subgraph mounted as a node returns its whole state, so the parent's reducer re-appends it.
import { Annotation, START, StateGraph } from "@langchain/langgraph";

const LogState = Annotation.Root({
  log: Annotation({ reducer: (left, right) => left.concat(right), default: () => [] }),
});

const sub = new StateGraph(LogState)
  .addNode("s1", () => ({ log: ["sub-1"] }))
  .addEdge(START, "s1")
  .compile();

export const graph = new StateGraph(LogState)
  .addNode("p1", () => ({ log: ["parent"] }))
  .addNode("child", sub)
  .addEdge(START, "p1")
  .addEdge("p1", "child")
  .compile();
