// A ReAct agent asking for two tools at once (the twin of ../react_parallel.py): each call is its own task
// (Send), their ToolMessages joined by the messages reducer; the last turn hands over with
// Command({ goto: "respond" }).
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { Command, END, MessagesAnnotation, START, Send, StateGraph } from "@langchain/langgraph";

const CALLS = [
  { name: "weather", args: { city: "Oslo" }, id: "c-1" },
  { name: "calendar", args: { day: "2026-03-02" }, id: "c-2" },
];
const RESULTS = { weather: "rain, 4 C", calendar: "no meetings" };

function agent(state) {
  if (!state.messages.some((m) => m._getType() === "tool")) {
    return { messages: [new AIMessage({ content: "", id: "ai-1", tool_calls: CALLS })] };
  }
  return new Command({ goto: "respond", update: { messages: [new AIMessage({ content: "Rain and a free day.", id: "ai-2" })] } });
}

function dispatch(state) {
  const calls = state.messages.at(-1).tool_calls ?? [];
  return calls.length ? calls.map((call) => new Send("tool", call)) : END;
}

const tool = (call) => ({ messages: [new ToolMessage({ content: RESULTS[call.name], tool_call_id: call.id, id: `t-${call.id}` })] });
const respond = () => ({ messages: [new AIMessage({ content: "Take an umbrella.", id: "ai-3" })] });

export const graph = new StateGraph(MessagesAnnotation)
  .addNode("agent", agent, { ends: ["respond"] })
  .addNode("tool", tool)
  .addNode("respond", respond)
  .addEdge(START, "agent")
  .addConditionalEdges("agent", dispatch, ["tool", END])
  .addEdge("tool", "agent")
  .addEdge("respond", END)
  .compile();

export const exampleInput = { messages: [{ role: "user", content: "Should I go out Monday?", id: "h-1" }] };
