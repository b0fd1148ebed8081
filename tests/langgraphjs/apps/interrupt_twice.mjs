// One node asks twice with interrupt(): the amount, then the approval; each resume re-runs it to the next.
import { Annotation, MemorySaver, START, StateGraph, interrupt } from "@langchain/langgraph";

const State = Annotation.Root({ order: Annotation(), amount: Annotation(), approved: Annotation() });

export const graph = new StateGraph(State)
  .addNode("ask", (state) => {
    const amount = interrupt({ ask: `amount for ${state.order}?` });
    const approved = interrupt({ ask: `refund ${amount}?` });
    return { amount, approved };
  })
  .addEdge(START, "ask")
  .compile({ checkpointer: new MemorySaver() });
