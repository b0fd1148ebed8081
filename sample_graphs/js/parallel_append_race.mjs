/**
 * The read-modify-write race of two parallel appends (seed article 000, "上一篇埋下的问题" and
 * "LangGraph 的解法"), in LangGraph.js. Twin of ../parallel_append_race.py.
 *
 * nodeA and nodeB run in one superstep, each reads the same old `messages`, appends its own message and
 * writes the whole array back: the later write replaces the other, silently. The fix is the article's:
 * declare the merge on the field (`prev.concat(next)`) and let each node send only its delta.
 */
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import { isMain, show } from "./_show.mjs";

export const title = "Two parallel appends: one message silently lost";
export const pythonTwin = "parallel_append_race";
export const source = "seed 000 (parallel append race)";
export const lesson =
  "The article says: both nodes build a new array from the same old value and write it back whole, so " +
  "whoever is written back last replaces the other's array, a message is lost and nothing reports an error. " +
  "That is what happens here: `messages` has the overwrite reducer `(_prev, next) => next`, nodeA and nodeB " +
  "run in one superstep on messages=['hi'], and nodeB's ['hi', 'from B'] replaces nodeA's ['hi', 'from A'] " +
  "(LangGraph.js applies one superstep's writes in task order, by node name, so node_b always wins). " +
  "The fix is the article's too: declare the merge on the field " +
  "(`Annotation({ reducer: (prev, next) => prev.concat(next), default: () => [] })`) and let each node send " +
  "only its delta (`{ messages: [msgA] }`); `fixedGraph` ends with ['hi', 'from A', 'from B']. " +
  "With no reducer at all (`Annotation()`) LangGraph.js refuses the two writes outright (see annotation_state).";

const msgA = "from A";
const msgB = "from B";

// The article's race needs a field that accepts two writes in one step: the overwrite reducer does.
const RacyState = Annotation.Root({
  messages: Annotation({ reducer: (_prev, next) => next, default: () => [] }),
});

// 节点 A / 节点 B（同一轮并行）: read all, add one, write all
const nodeA = (state) => {
  const all = [...state.messages, msgA]; // reads the old value ['hi']
  return { messages: all }; // writes back ['hi', 'from A'] whole
};
const nodeB = (state) => {
  const all = [...state.messages, msgB]; // reads the same old value
  return { messages: all }; // writes back ['hi', 'from B'] whole
};

export const graph = new StateGraph(RacyState)
  .addNode("node_a", nodeA)
  .addNode("node_b", nodeB)
  .addEdge(START, "node_a") // two edges from START: node_a and node_b run in parallel
  .addEdge(START, "node_b")
  .addEdge("node_a", END)
  .addEdge("node_b", END)
  .compile();

const State = Annotation.Root({
  messages: Annotation({
    reducer: (prev, next) => prev.concat(next), // old array + new messages = new array
    default: () => [],
  }),
});

export const fixedGraph = new StateGraph(State)
  .addNode("node_a", (state) => ({ messages: [msgA] })) // only "A's message arrived"
  .addNode("node_b", (state) => ({ messages: [msgB] })) // only "B's message arrived"
  .addEdge(START, "node_a")
  .addEdge(START, "node_b")
  .addEdge("node_a", END)
  .addEdge("node_b", END)
  .compile();

export const exampleInput = { messages: ["hi"] };
export const fixedInput = exampleInput;

if (isMain(import.meta)) {
  await show("broken (whole array, last write wins)", graph, exampleInput);
  await show("fixed  (deltas into prev.concat)     ", fixedGraph, fixedInput);
}
