// The benchmark's fan-out: `split` starts 64 workers in one superstep, a waiting edge joins them, 20 rounds.
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";

export const WIDTH = 64;
export const ROUNDS = 20;
const State = Annotation.Root({
  results: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),
  rounds: Annotation({ reducer: (a, b) => a + b, default: () => 0 }),
  total: Annotation(),
});

const names = Array.from({ length: WIDTH }, (_, i) => `w${String(i).padStart(2, "0")}`);
let builder = new StateGraph(State).addNode("split", () => ({ rounds: 1 }));
for (const [i, name] of names.entries())
  builder = builder.addNode(name, () => ({ results: [i] })).addEdge("split", name);
export const graph = builder
  .addNode("join", (state) => ({ total: state.results.reduce((a, b) => a + b, 0) }))
  .addEdge(START, "split")
  .addEdge(names, "join")
  .addConditionalEdges("join", (state) => (state.rounds < ROUNDS ? "split" : END), ["split", END])
  .compile();
export const input = { results: [] };
export const config = { recursionLimit: 10 * ROUNDS };
