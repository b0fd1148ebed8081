// A router fans out one Send per topic; each worker appends its result.
import { Annotation, END, START, Send, StateGraph } from "@langchain/langgraph";

const State = Annotation.Root({
  topics: Annotation(),
  results: Annotation({ reducer: (left, right) => left.concat(right), default: () => [] }),
});

export const graph = new StateGraph(State)
  .addNode("plan", () => ({}))
  .addNode("worker", async ({ topic }) => {
    await new Promise((resolve) => setTimeout(resolve, topic.length * 5));
    return { results: [`done:${topic}`] };
  })
  .addEdge(START, "plan")
  .addConditionalEdges(
    "plan",
    function fanOut(state) {
      return state.topics.map((topic) => new Send("worker", { topic }));
    },
    ["worker"],
  )
  .addEdge("worker", END)
  .compile();
