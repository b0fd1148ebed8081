// A loop that appends one item per step until it ran `steps` steps: its events must grow linearly.
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";

const State = Annotation.Root({
  steps: Annotation(),
  seen: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),
});

export const graph = new StateGraph(State)
  .addNode("step", (state) => ({ seen: [`item ${state.seen.length}`] }))
  .addEdge(START, "step")
  .addConditionalEdges("step", (state) => (state.seen.length < state.steps ? "step" : END), ["step", END])
  .compile();
