// Three reviewers run in one superstep and each asks with interrupt(); the answers go back by interrupt id:
// new Command({ resume: { [id]: answer, ... } }), one id at a time or all at once. The first planned reads
// longest (more turns of the event loop's microtasks, so the same in every run), so they stop in the reverse
// of their order (GraphInterrupt's and invoke's order), not as getState lists them.
import { Annotation, MemorySaver, START, StateGraph, interrupt } from "@langchain/langgraph";

const State = Annotation.Root({
  draft: Annotation(),
  verdicts: Annotation({ reducer: (left, right) => left.concat(right), default: () => [] }),
});

const reviewer = (name, reading) => async (state) => {
  for (let page = 0; page < reading; page++) await null;
  return { verdicts: [`${name}: ${interrupt({ reviewer: name, draft: state.draft })}`] };
};

export const graph = new StateGraph(State)
  .addNode("legal", reviewer("legal", 40))
  .addNode("style", reviewer("style", 20))
  .addNode("tone", reviewer("tone", 0))
  .addEdge(START, "legal")
  .addEdge(START, "style")
  .addEdge(START, "tone")
  .compile({ checkpointer: new MemorySaver() });
