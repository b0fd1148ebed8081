// An interrupt answered from a later process: the thread lives in the app's own saver (STEPSCOPE_TEST_THREADS:
// a SQLite file, or a postgresql:// URL).
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { Annotation, START, StateGraph, interrupt } from "@langchain/langgraph";

const where = process.env.STEPSCOPE_TEST_THREADS;
async function saver() {
  if (!where.startsWith("postgresql://")) return SqliteSaver.fromConnString(where);
  const postgres = PostgresSaver.fromConnString(where);
  await postgres.setup();
  return postgres;
}

const State = Annotation.Root({ question: Annotation(), answer: Annotation() });

export const graph = new StateGraph(State)
  .addNode("prepare", () => ({ question: "Refund order 17?" }))
  .addNode("ask", (state) => ({ answer: interrupt({ ask: state.question }) }))
  .addEdge(START, "prepare")
  .addEdge("prepare", "ask")
  .compile({ checkpointer: await saver() });
