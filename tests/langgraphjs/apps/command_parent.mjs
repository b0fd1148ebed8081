// A subgraph's node answers with Command({graph: Command.PARENT}): the parent goes on to `done`.
import { Annotation, Command, END, START, StateGraph } from "@langchain/langgraph";

const State = Annotation.Root({ log: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }) });

const sub = new StateGraph(State)
  .addNode("hop", () => new Command({ graph: Command.PARENT, goto: "done", update: { log: ["hop"] } }))
  .addEdge(START, "hop")
  .compile();

export const graph = new StateGraph(State)
  .addNode("child", sub, { ends: ["done"] })
  .addNode("done", () => ({ log: ["done"] }))
  .addEdge(START, "child")
  .addEdge("done", END)
  .compile();
