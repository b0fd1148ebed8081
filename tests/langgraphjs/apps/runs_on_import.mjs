// An app that runs its graph once while it is imported (a demo at module level) and prints the result.
import { Annotation, START, StateGraph } from "@langchain/langgraph";

const State = Annotation.Root({ n: Annotation({ reducer: (a, b) => a + b, default: () => 0 }) });

export const graph = new StateGraph(State)
  .addNode("inc", () => ({ n: 1 }))
  .addEdge(START, "inc")
  .compile();

console.log("demo:", JSON.stringify(await graph.invoke({ n: 100 })));
