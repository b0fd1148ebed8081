// A static breakpoint: compile({ interruptBefore: ["send"] }) stops before send; invoke(null) goes on.
import { Annotation, MemorySaver, START, StateGraph } from "@langchain/langgraph";

const State = Annotation.Root({ draft: Annotation(), sent: Annotation() });

export const graph = new StateGraph(State)
  .addNode("write", (state) => ({ draft: `${state.draft} (drafted)` }))
  .addNode("send", () => ({ sent: true }))
  .addEdge(START, "write")
  .addEdge("write", "send")
  .compile({ checkpointer: new MemorySaver(), interruptBefore: ["send"] });
