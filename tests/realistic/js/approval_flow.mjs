// An expense approval flow on a MemorySaver thread (the twin of ../approval_flow.py): the manager is asked
// (interrupt), then finance twice in one node; each answer is a Command({ resume }) on the thread.
import { Annotation, END, MemorySaver, START, StateGraph, interrupt } from "@langchain/langgraph";

const Expense = Annotation.Root({ item: Annotation(), amount: Annotation(), manager: Annotation(), finance: Annotation() });

const manager = (state) => ({ manager: interrupt({ ask: `Approve ${state.item} for ${state.amount}?` }) });

function finance(state) {
  const amount = interrupt({ ask: "Confirm the amount", proposed: state.amount });
  const centre = interrupt({ ask: "Which cost centre?" });
  return { finance: { amount, centre } };
}

export const graph = new StateGraph(Expense)
  .addNode("ask_manager", manager)
  .addNode("ask_finance", finance)
  .addEdge(START, "ask_manager")
  .addEdge("ask_manager", "ask_finance")
  .addEdge("ask_finance", END)
  .compile({ checkpointer: new MemorySaver() });

export const exampleInput = { item: "monitor", amount: 249.5 };
