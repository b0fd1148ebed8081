/**
 * The single-node LLM agent of seed article 003, section 04 ("一次完整执行"), in LangGraph.js, with a
 * scripted model in place of `ChatOpenAI` (no network, the same reply every run). Twin of
 * ../single_node_agent.py.
 *
 * START -> llm -> END: the node returns `{ messages: [response] }`, an update, and the reducer on
 * `messages` merges it into the history.
 */
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { isMain, show } from "./_show.mjs";

export const title = "A single-node LLM agent: a node returns an update";
export const pythonTwin = "single_node_agent";
export const source = "seed 003, section 04";
export const lesson =
  "The article says: invoke writes the input into the state, the scheduler follows START -> llm, the node " +
  "returns { messages: [AIMessage] }, the reducer appends it ([...old, AIMessage]), llm's edge leads to END " +
  "and invoke returns the final state. " +
  "That is what happens: one superstep runs `llm`, and the final state holds the human message followed by " +
  "the model's reply. " +
  "Notice the node returns only the reply, not the new state: with the article's `[...prev, ...next]` " +
  "reducer, returning `[...state.messages, response]` would repeat the whole history. " +
  "The scripted model stands in for `new ChatOpenAI({ model: \"gpt-4o-mini\" })`: it has the same " +
  "`invoke(messages)` and returns a canned AIMessage.";

// 1. 定义状态结构
const AgentState = Annotation.Root({
  messages: Annotation({
    reducer: (prev, next) => [...prev, ...next],
    default: () => [],
  }),
});

// 2. 初始化 LLM: a scripted stand-in for ChatOpenAI, a pure function of the conversation.
const llm = {
  async invoke(messages) {
    const turn = messages.filter((m) => m.type === "ai").length + 1;
    return new AIMessage({
      content: "Hello! I am a scripted stand-in for a chat model: same answer every run.",
      id: `ai-${turn}`,
    });
  },
};

// 3. 定义节点函数
/** @param {typeof AgentState.State} state */
async function callLLM(state) {
  const response = await llm.invoke(state.messages);
  return { messages: [response] }; // an update, not the new state
}

// 4. 构建图
export const graph = new StateGraph(AgentState)
  .addNode("llm", callLLM)
  .addEdge(START, "llm")
  .addEdge("llm", END)
  .compile();

export const exampleInput = {
  messages: [new HumanMessage({ content: "Hello, introduce yourself", id: "user-1" })],
};

// 5. 运行
if (isMain(import.meta)) {
  for await (const chunk of await graph.stream(exampleInput)) {
    for (const [node, update] of Object.entries(chunk)) {
      console.log(`${node} returned:`, JSON.stringify(update.messages.map((m) => `${m.type}: ${m.content}`)));
    }
  }
  await show("final state", graph, exampleInput);
}
