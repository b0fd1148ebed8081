// A waiting edge: `join` runs once both branches finished, whatever their delays.
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const State = Annotation.Root({ log: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }) });

export const graph = new StateGraph(State)
  .addNode("fast", async () => ({ log: ["fast"] }))
  .addNode("slow", async () => {
    await sleep(20);
    return { log: ["slow-1"] };
  })
  .addNode("slower", async () => {
    await sleep(40);
    return { log: ["slow-2"] };
  })
  .addNode("join", (state) => ({ log: [`join saw ${state.log.length}`] }))
  .addEdge(START, "fast")
  .addEdge(START, "slow")
  .addEdge("slow", "slower")
  .addEdge(["fast", "slower"], "join")
  .addEdge("join", END)
  .compile();
