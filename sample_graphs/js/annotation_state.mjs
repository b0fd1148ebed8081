/**
 * The article's `Annotation.Root` state (seed article 000, "字段的样子，就是 Annotation" and
 * "覆盖字段有个隐藏的并发约束"), in LangGraph.js. Twin of ../annotation_state.py.
 *
 * messages appends, retries adds, answer (`Annotation()`, no argument) keeps the latest write and takes
 * one write per step: two parallel writers of `answer` fail with INVALID_CONCURRENT_GRAPH_UPDATE.
 */
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import { isMain, show } from "./_show.mjs";

export const title = "Declared merges: parallel appends, one answer writer";
export const pythonTwin = "annotation_state";
export const source = "seed 000 (Annotation fields; the overwrite field's concurrency rule)";
export const lesson =
  "The article says: an `Annotation()` with no argument is a last-value channel that allows one write per " +
  "step, so two nodes writing it in parallel throw INVALID_CONCURRENT_GRAPH_UPDATE, while append and add " +
  "fields welcome parallel writers. " +
  "That is what happens: in `graph` nodeA and nodeB both send a message and an answer in one superstep, and " +
  "the run fails with InvalidUpdateError (lc_error_code INVALID_CONCURRENT_GRAPH_UPDATE) for channel " +
  "\"answer\", at the barrier after both nodes have run. " +
  "Notice `retries` is 0 in the fixed run although no node writes it: `default: () => 0` is where the " +
  "reduction starts. " +
  "Give an overwrite field one writer per step: in `fixedGraph` nodeA and nodeB send only their messages, " +
  "which `prev.concat(next)` folds into one array, and `respond` alone writes `answer` after the join.";

const State = Annotation.Root({
  messages: Annotation({ // append: declared once, valid for the whole graph
    reducer: (prev, next) => prev.concat(next), // old array + new messages = new array
    default: () => [],
  }),
  retries: Annotation({ // add: a node sends 1, the reducer adds it
    reducer: (prev, next) => prev + next,
    default: () => 0,
  }),
  answer: Annotation(), // no argument = overwrite: keeps the latest write
});

const msgA = "from A";
const msgB = "from B";

export const graph = new StateGraph(State)
  .addNode("node_a", (state) => ({ messages: [msgA], answer: "A's answer" }))
  .addNode("node_b", (state) => ({ messages: [msgB], answer: "B's answer" }))
  .addEdge(START, "node_a") // parallel: both write `answer` in the same superstep
  .addEdge(START, "node_b")
  .addEdge("node_a", END)
  .addEdge("node_b", END)
  .compile();

const nodeA = (state) => ({ messages: [msgA] }); // only "A's message arrived"
const nodeB = (state) => ({ messages: [msgB] }); // only "B's message arrived"
const respond = (state) => ({ answer: `${state.messages.length} messages: ${state.messages.join(", ")}` });

export const fixedGraph = new StateGraph(State)
  .addNode("node_a", nodeA)
  .addNode("node_b", nodeB)
  .addNode("respond", respond) // the one writer of `answer`
  .addEdge(START, "node_a")
  .addEdge(START, "node_b")
  .addEdge(["node_a", "node_b"], "respond")
  .addEdge("respond", END)
  .compile();

export const exampleInput = { messages: ["hi"] };
export const fixedInput = exampleInput;

if (isMain(import.meta)) {
  await show("broken (two answer writers)", graph, exampleInput);
  await show("fixed  (one answer writer) ", fixedGraph, fixedInput);
}
