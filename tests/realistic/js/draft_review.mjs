// A draft/review loop with a known mistake (the twin of ../draft_review.py): the reviewer scores the same
// draft 6 every round, so `route` (score >= 8) never ends it and the run hits its recursion limit.
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";

const Essay = Annotation.Root({
  topic: Annotation(),
  draft: Annotation(),
  score: Annotation(),
  notes: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),
});

const write = (state) => ({ draft: `An essay on ${state.topic}.` });
const review = () => ({ score: 6, notes: ["add an example"] });
const route = (state) => (state.score >= 8 ? END : "write");

export const graph = new StateGraph(Essay)
  .addNode("write", write)
  .addNode("review", review)
  .addEdge(START, "write")
  .addEdge("write", "review")
  .addConditionalEdges("review", route, ["write", END])
  .compile();

export const exampleInput = { topic: "tides", score: 0 };
