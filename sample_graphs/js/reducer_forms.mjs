/**
 * The three common reducer forms of seed article 003, section 05 ("三种常见 Reducer 写法"), in one
 * `Annotation.Root`, in LangGraph.js. Twin of ../reducer_forms.py.
 *
 * Form 1 appends (`[...prev, ...next]`, declared with no default, as in the article), form 2 overwrites
 * (`(_, next) => next`), form 3 counts (`prev + next`, default 0). Two nodes in sequence each send a
 * fragment; the reducers make each new snapshot from the old one, which stays as it was.
 */
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import { format, isMain, show } from "./_show.mjs";

export const title = "Three reducer forms: append, overwrite, count";
export const pythonTwin = "reducer_forms";
export const source = "seed 003, section 05";
export const lesson =
  "The article says: a node returns a fragment of the state, not a new state, each key's reducer computes " +
  "newState[key] = reducer(oldState[key], value), and the state is immutable: every node's run makes a new " +
  "snapshot and the old ones are kept. " +
  "That is what happens: `plan` and `act` each send one message, their name as `step` and 1 as `callCount`, " +
  "and the run ends with every message, step='act' and callCount=2, while the snapshots printed after the " +
  "run still hold the values they had when they were made. " +
  "Form 1 has no `default` here, as in the article, and it still works because LangGraph.js takes the first " +
  "write (the input) as the channel's value; the crash article 000 predicts for a missing default " +
  "(`undefined.concat(...)`) does not happen in LangGraph.js 1.7, but a node that reads the field before " +
  "anything wrote it gets `undefined`, so keep the default. " +
  "Sending the running total instead of 1 to an adding key is the classic mistake (see retries_counter).";

const State = Annotation.Root({
  // 方式1：追加消息
  messages: Annotation({
    reducer: (prev, next) => [...prev, ...next],
  }),
  // 方式2：覆盖（最新值覆盖旧值）
  step: Annotation({
    reducer: (_, next) => next, // 直接替换
  }),
  // 方式3：累加计数
  callCount: Annotation({
    reducer: (prev, next) => prev + next,
    default: () => 0,
  }),
});

const node = (name) => (state) => ({ messages: [`${name} done`], step: name, callCount: 1 }); // a fragment

export const graph = new StateGraph(State)
  .addNode("plan", node("plan"))
  .addNode("act", node("act"))
  .addEdge(START, "plan")
  .addEdge("plan", "act")
  .addEdge("act", END)
  .compile();

export const exampleInput = { messages: ["hi"] };

if (isMain(import.meta)) {
  const snapshots = [];
  for await (const snapshot of await graph.stream(exampleInput, { streamMode: "values" })) snapshots.push(snapshot);
  // Printed after the run: an old snapshot still holds what it held when it was made.
  for (const snapshot of snapshots) console.log("snapshot:", format(snapshot));
  await show("final state", graph, exampleInput);
}
