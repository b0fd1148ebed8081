// A RAG pipeline (the twin of ../rag_pipeline.py): the query is rewritten, then a compiled retrieval
// subgraph and a keyword search run in parallel, both adding documents (nested metadata, a Set of labels)
// through one reducer; `answer` cites them.
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";

const CORPUS = {
  d1: { text: "Tides follow the moon.", meta: { year: 2021, labels: new Set(["science", "ocean"]) } },
  d2: { text: "Spring tides are larger.", meta: { year: 2019, labels: new Set(["ocean"]) } },
};

const Rag = Annotation.Root({
  question: Annotation(),
  query: Annotation(),
  documents: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),
  answer: Annotation(),
});

const rewrite = (state) => ({ query: state.question.toLowerCase().replace(/\?$/, "") });
const search = () => ({
  documents: Object.entries(CORPUS)
    .filter(([, doc]) => doc.text.toLowerCase().includes("tides"))
    .map(([id, doc]) => ({ id, ...doc, via: "vector" })),
});
const keyword = () => ({ documents: [{ id: "d2", ...CORPUS.d2, via: "keyword" }] });

function answer(state) {
  const cited = [...new Set(state.documents.map((doc) => doc.id))].sort();
  return { answer: `${CORPUS[cited[0]].text} [${cited.join(", ")}]` };
}

const retrieval = new StateGraph(Rag).addNode("search", search).addEdge(START, "search").compile();

export const graph = new StateGraph(Rag)
  .addNode("rewrite", rewrite)
  .addNode("retrieve", retrieval)
  .addNode("keyword", keyword)
  .addNode("compose", answer)
  .addEdge(START, "rewrite")
  .addEdge("rewrite", "retrieve")
  .addEdge("rewrite", "keyword")
  .addEdge(["retrieve", "keyword"], "compose")
  .addEdge("compose", END)
  .compile();

export const exampleInput = { question: "Why do tides happen?" };
