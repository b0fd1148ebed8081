// A node that throws a bare string, not an Error.
import { Annotation, START, StateGraph } from "@langchain/langgraph";

const State = Annotation.Root({ n: Annotation() });

export const graph = new StateGraph(State)
  .addNode("ok", () => ({ n: 1 }))
  .addNode("bad", () => {
    throw "the payment service said no";
  })
  .addEdge(START, "ok")
  .addEdge("ok", "bad")
  .compile();
