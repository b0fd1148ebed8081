/**
 * A draft -> review -> draft loop whose route reads a key that stopped changing: `review` always
 * writes `approved: false` (the scripted reviewer never approves), so `route` never says END and
 * LangGraph.js stops the run at its recursion limit. The loop finding's test app (issue 41, item 4).
 */
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";

const State = Annotation.Root({
  text: Annotation(),
  approved: Annotation(),
  notes: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),
});

function draft(state) {
  return { text: "a first draft" }; // the writer ignores the notes: the same draft every round
}

function review(state) {
  return { approved: false, notes: ["needs more detail"] };
}

function route(state) {
  return state.approved ? END : "draft";
}

export const graph = new StateGraph(State)
  .addNode("draft", draft)
  .addNode("review", review)
  .addEdge(START, "draft")
  .addEdge("draft", "review")
  .addConditionalEdges("review", route, ["draft", END])
  .compile();

export const exampleInput = { approved: false };
export const exampleConfig = { recursionLimit: 12 };
