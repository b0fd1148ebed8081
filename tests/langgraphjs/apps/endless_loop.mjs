// A loop whose stop condition never holds: LangGraph.js stops it at the recursion limit.
import { Annotation, START, StateGraph } from "@langchain/langgraph";

const State = Annotation.Root({ n: Annotation({ reducer: (a, b) => a + b, default: () => 0 }) });

export const graph = new StateGraph(State)
  .addNode("tick", () => ({ n: 1 }))
  .addEdge(START, "tick")
  .addConditionalEdges("tick", function again(state) {
    return state.n < 0 ? "__end__" : "tick";
  })
  .compile();
