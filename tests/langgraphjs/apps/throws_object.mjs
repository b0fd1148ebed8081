// A node that throws a plain object, not an Error (stored as "[object Object]" before).
import { Annotation, START, StateGraph } from "@langchain/langgraph";

const State = Annotation.Root({ n: Annotation() });

export const graph = new StateGraph(State)
  .addNode("ok", () => ({ n: 1 }))
  .addNode("bad", () => {
    throw { code: 42, reason: "card declined" };
  })
  .addEdge(START, "ok")
  .addEdge("ok", "bad")
  .compile();
