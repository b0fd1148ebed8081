// A long thread on the app's own SqliteSaver (STEPSCOPE_TEST_THREADS: its file): one node appends an item
// per step until the state holds `steps` items, so the state grows each step, as a conversation's does
// (the newest-steps window of test_threads.py, and benchmarks/threads.py's LangGraph.js row).
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";

const State = Annotation.Root({
  steps: Annotation(),
  seen: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),
});

export const graph = new StateGraph(State)
  .addNode("step", (state) => ({ seen: [`item ${state.seen.length}`] }))
  .addEdge(START, "step")
  .addConditionalEdges("step", (state) => (state.seen.length < state.steps ? "step" : END), ["step", END])
  .compile({ checkpointer: SqliteSaver.fromConnString(process.env.STEPSCOPE_TEST_THREADS ?? ":memory:") });
