// The second node leaves a rejected promise nobody awaits, then waits: node dies of the unhandled rejection.
import { Annotation, START, StateGraph } from "@langchain/langgraph";

const State = Annotation.Root({ n: Annotation({ reducer: (a, b) => a + b, default: () => 0 }) });

export const graph = new StateGraph(State)
  .addNode("first", () => ({ n: 1 }))
  .addNode("leaks", async () => {
    Promise.reject(new TypeError("lost promise"));
    await new Promise((resolve) => setTimeout(resolve, 5000));
    return { n: 1 };
  })
  .addEdge(START, "first")
  .addEdge("first", "leaks")
  .compile();
