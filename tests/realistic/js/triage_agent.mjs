// A support-ticket triage agent (the twin of ../triage_agent.py): a scripted model asks for a tool
// (tool_calls), a tool node answers, the ticket is filed with a category, tags (a Set) and a due Date; the
// customer's tier comes from the run's config (configurable.tier).
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { Annotation, END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";

const Ticket = Annotation.Root({
  ...MessagesAnnotation.spec,
  category: Annotation(),
  tags: Annotation({ reducer: (old, next) => new Set([...old, ...next]), default: () => new Set() }),
  due: Annotation(),
});

const SCRIPT = [
  new AIMessage({ content: "", id: "ai-1", tool_calls: [{ name: "lookup_order", args: { order: 17 }, id: "call-1" }] }),
  new AIMessage({ content: "Order 17 arrived broken: refund.", id: "ai-2" }),
];
const TOOLS = { lookup_order: (args) => ({ order: args.order, status: "delivered", damaged: true }) };

const model = (state) => ({ messages: [SCRIPT[state.messages.filter((m) => m._getType() === "ai").length]] });

function tools(state) {
  const calls = state.messages.at(-1).tool_calls;
  const answers = calls.map(
    (c) => new ToolMessage({ content: JSON.stringify(TOOLS[c.name](c.args)), tool_call_id: c.id, id: `t-${c.id}` }),
  );
  return { messages: answers, tags: ["order-lookup"] };
}

function fileTicket(state, config) {
  const tier = config.configurable?.tier ?? "basic";
  return { category: "refund", tags: ["damaged", tier], due: new Date(Date.UTC(2026, 2, tier === "gold" ? 2 : 4)) };
}

const route = (state) => (state.messages.at(-1).tool_calls?.length ? "tools" : "file_ticket");

export const graph = new StateGraph(Ticket)
  .addNode("model", model)
  .addNode("tools", tools)
  .addNode("file_ticket", fileTicket)
  .addEdge(START, "model")
  .addConditionalEdges("model", route, ["tools", "file_ticket"])
  .addEdge("tools", "model")
  .addEdge("file_ticket", END)
  .compile();

export const exampleInput = { messages: [{ role: "user", content: "My order 17 is broken", id: "h-1" }] };
