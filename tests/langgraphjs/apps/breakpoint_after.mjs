// Static breakpoints: compile({ interruptAfter: ["write"], interruptBefore: ["send"] }), a node apart;
// invoke(null) goes on from each.
import { Annotation, MemorySaver, START, StateGraph } from "@langchain/langgraph";

const State = Annotation.Root({
  draft: Annotation(),
  verdicts: Annotation({ reducer: (left, right) => left.concat(right), default: () => [] }),
});

export const graph = new StateGraph(State)
  .addNode("write", (state) => ({ draft: `${state.draft} (drafted)` }))
  .addNode("check", () => ({ verdicts: ["checked"] }))
  .addNode("send", () => ({ verdicts: ["sent"] }))
  .addEdge(START, "write")
  .addEdge("write", "check")
  .addEdge("check", "send")
  .compile({ checkpointer: new MemorySaver(), interruptAfter: ["write"], interruptBefore: ["send"] });
