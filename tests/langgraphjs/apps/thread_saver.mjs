// A thread kept by the app's own saver (STEPSCOPE_TEST_THREADS: a SQLite file, or a postgresql:// URL):
// two parallel nodes append through a reducer (applied in task order), a compiled subgraph returns its whole
// state (the subgraph trap: its log appended again), and a node takes messages through messagesStateReducer.
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { Annotation, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";

const where = process.env.STEPSCOPE_TEST_THREADS ?? ":memory:";
async function saver() {
  if (!where.startsWith("postgresql://")) return SqliteSaver.fromConnString(where);
  const postgres = PostgresSaver.fromConnString(where);
  await postgres.setup();
  return postgres;
}

const stateWith = (logReducer) =>
  Annotation.Root({ ...MessagesAnnotation.spec, log: Annotation({ reducer: logReducer, default: () => [] }) });
const State = stateWith((left, right) => left.concat(right));

const sub = new StateGraph(State)
  .addNode("s1", () => ({ log: ["sub-1"] }))
  .addEdge(START, "s1")
  .compile();

function build(state) {
  return new StateGraph(state)
    .addNode("a", async () => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      return { log: ["a"] };
    })
    .addNode("b", () => ({ log: ["b"], messages: [new AIMessage({ content: "hi", id: "m2" })] }))
    .addNode("child", sub)
    .addEdge(START, "a")
    .addEdge(START, "b")
    .addEdge(["a", "b"], "child");
}

export const graph = build(State).compile({ checkpointer: await saver() });

/** The same graph with another `log` reducer (it drops repeats): not the code that wrote the thread. */
export const changed = build(stateWith((left, right) => [...new Set(left.concat(right))])).compile();

export const exampleInput = { messages: [new HumanMessage({ content: "hello", id: "m1" })], log: ["start"] };
