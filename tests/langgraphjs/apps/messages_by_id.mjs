// messagesStateReducer: a message with a known id replaces it, RemoveMessage deletes one.
import { AIMessage, HumanMessage, RemoveMessage, ToolMessage } from "@langchain/core/messages";
import { MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";

export const graph = new StateGraph(MessagesAnnotation)
  .addNode("agent", () => ({
    messages: [
      new AIMessage({ content: "", id: "ai-1", tool_calls: [{ name: "lookup", args: { q: "x" }, id: "call-1" }] }),
    ],
  }))
  .addNode("tool", () => ({ messages: [new ToolMessage({ content: "42", tool_call_id: "call-1", id: "tool-1" })] }))
  .addNode("rewrite", () => ({
    messages: [new HumanMessage({ content: "edited question", id: "h-1" }), new RemoveMessage({ id: "tool-1" })],
  }))
  .addEdge(START, "agent")
  .addEdge("agent", "tool")
  .addEdge("tool", "rewrite")
  .compile();
