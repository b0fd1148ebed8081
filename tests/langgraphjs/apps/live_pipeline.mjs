// a -> b -> c: each node logs its name and doubles count (the live-run tests' pipeline, as in
// tests/test_live_langgraph.py). Variants: b fails, b waits long, a question asked with interrupt(),
// breakpoints compiled in, a saver of the app's own.
import { Annotation, END, MemorySaver, START, StateGraph, interrupt } from "@langchain/langgraph";

const State = Annotation.Root({
  log: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),
  count: Annotation(),
});

function pipeline(b) {
  const make = (name) => (state) => ({ log: [name], count: state.count * 2 });
  return new StateGraph(State)
    .addNode("a", make("a"))
    .addNode("b", b ?? make("b"))
    .addNode("c", make("c"))
    .addEdge(START, "a")
    .addEdge("a", "b")
    .addEdge("b", "c")
    .addEdge("c", END);
}

export const graph = pipeline().compile();
export const failing = pipeline(() => {
  throw new Error("b broke");
}).compile();
export const slow = pipeline(async (state) => {
  await new Promise((resolve) => setTimeout(resolve, 60_000));
  return { log: ["b"], count: state.count * 2 };
}).compile();
export const asking = pipeline((state) => ({ log: [`answer: ${interrupt("Approve the plan?")}`], count: state.count }))
  .compile();
export const withBreakpoints = pipeline().compile({ interruptBefore: ["c"], interruptAfter: ["a"] });
export const saved = pipeline().compile({ checkpointer: new MemorySaver() });
export const exampleInput = { log: [], count: 1 };
