// The benchmark's loop: one node runs 2,000 supersteps, adding to a counter and appending to a list
// (the list shows that a value that only grows is recorded as what it gained, not its whole length).
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";

export const STEPS = 2000;
const State = Annotation.Root({
  n: Annotation({ reducer: (a, b) => a + b, default: () => 0 }),
  seen: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),
});

export const graph = new StateGraph(State)
  .addNode("inc", (state) => ({ n: 1, seen: [state.n] }))
  .addEdge(START, "inc")
  .addConditionalEdges("inc", (state) => (state.n < STEPS ? "inc" : END), ["inc", END])
  .compile();
export const input = { n: 0 };
export const config = { recursionLimit: STEPS + 10 };
