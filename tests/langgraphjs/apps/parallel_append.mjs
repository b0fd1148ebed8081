// Two parallel nodes append to a reducer key; the slow one finishes last but is applied first (task order).
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const State = Annotation.Root({
  items: Annotation({ reducer: (left, right) => left.concat(right), default: () => [] }),
});

export const graph = new StateGraph(State)
  .addNode("a_slow", async () => {
    await sleep(60);
    return { items: ["a"] };
  })
  .addNode("b_fast", async () => ({ items: ["b"] }))
  .addEdge(START, "a_slow")
  .addEdge(START, "b_fast")
  .addEdge("a_slow", END)
  .addEdge("b_fast", END)
  .compile();
