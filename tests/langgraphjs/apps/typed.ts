// A TypeScript app (compiled as CommonJS: no "type" in package.json): recorded when tsx is installed beside it.
import { Annotation, START, StateGraph } from "@langchain/langgraph";

const State = Annotation.Root({
  n: Annotation<number>({ reducer: (a: number, b: number) => a + b, default: () => 0 }),
});

export const graph = new StateGraph(State)
  .addNode("inc", (): { n: number } => ({ n: 2 }))
  .addEdge(START, "inc")
  .compile();
