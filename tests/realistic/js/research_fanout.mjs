// A research fan-out (the twin of ../research_fanout.py): the planner sends one `research` task per
// subtopic (Send); each returns a finding with nested sources and a Date, concatenated by the reducer.
import { Annotation, END, START, Send, StateGraph } from "@langchain/langgraph";

const Research = Annotation.Root({
  question: Annotation(),
  subtopics: Annotation(),
  findings: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),
  summary: Annotation(),
});

const plan = () => ({ subtopics: ["battery life", "price", "repairability"] });
const fanOut = (state) => state.subtopics.map((topic) => new Send("research", { topic }));

function research(task) {
  const source = { url: `https://example.org/${task.topic.replace(" ", "-")}`, seen: new Date(Date.UTC(2026, 1, 3)) };
  return { findings: [{ topic: task.topic, score: task.topic.length / 10, sources: [source] }] };
}

function summarize(state) {
  const best = state.findings.reduce((a, b) => (b.score > a.score ? b : a));
  return { summary: { count: state.findings.length, best: best.topic, topics: [...state.subtopics] } };
}

export const graph = new StateGraph(Research)
  .addNode("plan", plan)
  .addNode("research", research)
  .addNode("summarize", summarize)
  .addEdge(START, "plan")
  .addConditionalEdges("plan", fanOut, ["research"])
  .addEdge("research", "summarize")
  .addEdge("summarize", END)
  .compile();

export const exampleInput = { question: "Which laptop should I buy?" };
