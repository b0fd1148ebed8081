/**
 * Fan-out and fan-in (seed article 003, section 07, "并行执行"), in LangGraph.js:
 * start -> search_web + search_db -> merge. Twin of ../fan_out_search.py.
 *
 * The article's graph, with the search state of the Python twin (the article leaves its nodes out):
 * both searches run in one superstep and append to `results`; `merge` runs in the next.
 */
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import { format, isMain, show } from "./_show.mjs";

export const title = "Fan-out, fan-in: two searches in parallel, one merge";
export const pythonTwin = "fan_out_search";
export const source = "seed 003, section 07";
export const lesson =
  "The article says: after `start`, search_web and search_db are queued together and run concurrently, " +
  "and `merge` is queued once both are done, then runs and leads to END. " +
  "That is what happens: the two searches run in one superstep, their writes meet in `results` (an " +
  "appending reducer; a plain `Annotation()` would throw INVALID_CONCURRENT_GRAPH_UPDATE), and `merge` " +
  "runs once, in the next superstep. " +
  "Notice the db result comes first although search_db is the slower node: LangGraph.js applies one " +
  "superstep's writes in task order, by node name, not by finishing time. " +
  "`merge` runs once only because both branches are one step long; plain edges do not wait for every " +
  "predecessor, so branches of different lengths run the join twice (see uneven_join).";

const WEB = { langgraph: "web: the LangGraph docs" };
const DATABASE = { langgraph: "db: 3 design notes" };

const SearchState = Annotation.Root({
  query: Annotation(),
  results: Annotation({ reducer: (prev, next) => prev.concat(next), default: () => [] }), // both searches append
  answer: Annotation(),
});

const startNode = (state) => ({ query: state.query.trim().toLowerCase() });
const searchWeb = (state) => ({ results: [WEB[state.query] ?? "web: nothing found"] });
async function searchDB(state) {
  await new Promise((resolve) => setTimeout(resolve, 5)); // the slower of the two; `results` order ignores it
  return { results: [DATABASE[state.query] ?? "db: nothing found"] };
}
const mergeResults = (state) => ({ answer: `${state.results.length} sources: ${state.results.join(" | ")}` });

// Fan-out：一个节点触发多个并行节点
const parallelGraph = new StateGraph(SearchState)
  .addNode("start", startNode)
  .addNode("search_web", searchWeb) // 并行
  .addNode("search_db", searchDB) // 并行
  .addNode("merge", mergeResults) // 合并
  .addEdge(START, "start")
  .addEdge("start", "search_web") // 同时出发
  .addEdge("start", "search_db")
  .addEdge("search_web", "merge") // 都完成后汇聚
  .addEdge("search_db", "merge")
  .addEdge("merge", END)
  .compile();

export const graph = parallelGraph;
export const exampleInput = { query: "  LangGraph " };

if (isMain(import.meta)) {
  for await (const chunk of await graph.stream(exampleInput)) console.log("  ", format(chunk));
  await show("final state", graph, exampleInput);
}
