// A long conversation on the app's own SqliteSaver (STEPSCOPE_TEST_THREADS: its file): one node replies
// with a message per step (messagesStateReducer, ids m1, m2, ...) until the thread holds `steps` of them,
// so the state grows each step as a chat's does (the newest-steps window of test_thread_window.py, and
// benchmarks/threads.py's LangGraph.js row, the twin of its Python chat app).
import { AIMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { Annotation, END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";

const State = Annotation.Root({ ...MessagesAnnotation.spec, steps: Annotation() });

function reply(state) {
  const n = state.messages.length + 1;
  return { messages: [new AIMessage({ content: `reply ${n}`, id: `m${n}` })] };
}

export const graph = new StateGraph(State)
  .addNode("reply", reply)
  .addEdge(START, "reply")
  .addConditionalEdges("reply", (state) => (state.messages.length < state.steps ? "reply" : END), ["reply", END])
  .compile({ checkpointer: SqliteSaver.fromConnString(process.env.STEPSCOPE_TEST_THREADS ?? ":memory:") });
