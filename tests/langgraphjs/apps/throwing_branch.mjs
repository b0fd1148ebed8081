// A conditional edge that throws: the error surfaces from the node the edge leaves.
import { Annotation, START, StateGraph } from "@langchain/langgraph";

const State = Annotation.Root({ n: Annotation() });

export const graph = new StateGraph(State)
  .addNode("first", () => ({ n: 1 }))
  .addNode("second", () => ({ n: 2 }))
  .addEdge(START, "first")
  .addConditionalEdges(
    "first",
    function pick() {
      throw new RangeError("no route for n=1");
    },
    ["second"],
  )
  .compile();
