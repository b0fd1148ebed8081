// The refund assistant's two parallel lookups write one plain key: LastValue refuses the second write.
import { Annotation, START, StateGraph } from "@langchain/langgraph";

const State = Annotation.Root({ v: Annotation() });

export const graph = new StateGraph(State)
  .addNode("lookup_order", () => ({ v: 1 }))
  .addNode("lookup_user_history", () => ({ v: 2 }))
  .addEdge(START, "lookup_order")
  .addEdge(START, "lookup_user_history")
  .compile();
