/**
 * The ReAct loop of seed article 003, section 06 ("条件边"), in LangGraph.js: llm -> tools -> llm ... -> END.
 * Twin of ../react_agent.py.
 *
 * A scripted model (in place of a chat model with tools bound) asks for tools by returning tool calls;
 * `routeAfterLLM` sends the run to `tools` while the last message has tool calls, and `tools -> llm`
 * brings it back. The tools are real functions; no network, the same result every run.
 */
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { brief, format, isMain, show } from "./_show.mjs";

export const title = "The ReAct loop: llm, tools, and a conditional edge back";
export const pythonTwin = "react_agent";
export const source = "seed 003, section 06";
export const lesson =
  "The article says: the router looks at the last message, sends the run to `tools` while the model asks " +
  "for a tool, `tools -> llm` brings it back, and the run ends when the model answers without tool calls: " +
  "START -> llm -> tools -> llm -> END, a loop with a conditional edge, which is all a ReAct agent is. " +
  "That is what happens: the scripted model asks for multiply(12, 7), then add(84, 5), then answers, so the " +
  "run is llm, tools, llm, tools, llm and ends with '12 x 7 + 5 = 89'. " +
  "Notice each tool result comes back as a ToolMessage carrying the `tool_call_id` of the call it answers. " +
  "A model that never stops calling tools runs until the recursion limit (see endless_loop).";

const AgentState = Annotation.Root({
  messages: Annotation({
    reducer: (prev, next) => [...prev, ...next],
    default: () => [],
  }),
});

const TOOLS = { multiply: ({ a, b }) => a * b, add: ({ a, b }) => a + b };

/** Stands in for a chat model with tools bound: decides from the conversation alone. */
const llm = {
  async invoke(messages) {
    const results = messages.filter((m) => m.type === "tool").map((m) => Number(m.content));
    const turn = messages.filter((m) => m.type === "ai").length + 1;
    const call = (name, args) =>
      new AIMessage({ content: "", tool_calls: [{ name, args, id: `call-${turn}` }], id: `ai-${turn}` });
    if (results.length === 0) return call("multiply", { a: 12, b: 7 });
    if (results.length === 1) return call("add", { a: results[0], b: 5 });
    return new AIMessage({ content: `12 x 7 + 5 = ${results.at(-1)}`, id: `ai-${turn}` });
  },
};

async function callLLM(state) {
  return { messages: [await llm.invoke(state.messages)] };
}

async function callTools(state) {
  const results = state.messages.at(-1).tool_calls.map(
    (call) =>
      new ToolMessage({
        content: String(TOOLS[call.name](call.args)),
        tool_call_id: call.id,
        name: call.name,
        id: `result-${call.id}`,
      }),
  );
  return { messages: results };
}

// 路由函数：根据 state 返回下一个节点名
function routeAfterLLM(state) {
  const lastMessage = state.messages[state.messages.length - 1];

  // 如果 LLM 想调工具
  if ("tool_calls" in lastMessage && lastMessage.tool_calls?.length) {
    return "tools"; // → 去工具节点
  }
  return END; // → 直接结束
}

export const graph = new StateGraph(AgentState)
  .addNode("llm", callLLM)
  .addNode("tools", callTools)
  .addEdge(START, "llm")
  .addConditionalEdges("llm", routeAfterLLM, {
    tools: "tools", // 映射：路由函数返回值 → 节点名
    [END]: END,
  })
  .addEdge("tools", "llm") // 工具执行完回到 LLM
  .compile();

export const exampleInput = {
  messages: [new HumanMessage({ content: "What is 12 times 7, plus 5?", id: "user-1" })],
};

if (isMain(import.meta)) {
  for await (const chunk of await graph.stream(exampleInput)) {
    for (const [node, update] of Object.entries(chunk)) console.log(`${node.padStart(5)}:`, format(brief(update.messages)));
  }
  const final = await show("final state", graph, exampleInput);
  if ("state" in final) console.log(`final answer: '${final.state.messages.at(-1).content}' (${final.state.messages.length} messages)`);
}
