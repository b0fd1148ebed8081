// The second node calls process.exit(): the first step is committed and must be kept.
import { Annotation, START, StateGraph } from "@langchain/langgraph";

const State = Annotation.Root({ n: Annotation({ reducer: (a, b) => a + b, default: () => 0 }) });

export const graph = new StateGraph(State)
  .addNode("first", () => ({ n: 1 }))
  .addNode("quits", () => process.exit(3))
  .addEdge(START, "first")
  .addEdge("first", "quits")
  .compile();
