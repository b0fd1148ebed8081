// A node decides where to go next with Command({goto, update}).
import { Annotation, Command, END, START, StateGraph } from "@langchain/langgraph";

const State = Annotation.Root({
  route: Annotation(),
  visited: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),
});

export const graph = new StateGraph(State)
  .addNode("decide", (state) => new Command({ goto: state.route, update: { visited: ["decide"] } }), {
    ends: ["left", "right"],
  })
  .addNode("left", () => ({ visited: ["left"] }))
  .addNode("right", () => ({ visited: ["right"] }))
  .addEdge(START, "decide")
  .addEdge("left", END)
  .addEdge("right", END)
  .compile();
