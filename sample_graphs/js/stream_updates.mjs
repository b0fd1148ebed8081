/**
 * Streaming a run (seed article 003, section 08, "stream() 的输出格式"), in LangGraph.js: one chunk per
 * finished node, `{ node name: the update it returned }`. Twin of ../stream_updates.py.
 *
 * The article's loop is `for await (const chunk of graph.stream(input))`; in LangGraph.js 1.x
 * `graph.stream()` returns a promise of the stream, so the loop needs `await graph.stream(input)`.
 */
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { brief, format, isMain, show } from "./_show.mjs";

export const title = "Streaming: one chunk per finished node, holding its update";
export const pythonTwin = "stream_updates";
export const source = "seed 003, section 08";
export const lesson =
  "The article says: stream() yields once per finished node, and each chunk is { node name: the state " +
  "update that node produced }, e.g. { llm: { messages: [AIMessage] } } then { tools: { messages: " +
  "[ToolMessage] } }, which is what lets a front end show progress as it happens. " +
  "That is what happens (LangGraph.js streams updates by default): this agent streams { llm: the tool call }, " +
  "{ tools: the tool result }, { llm: the answer }, and the whole history never appears in the stream. " +
  "One correction to the article's code: `graph.stream(input)` returns a promise, and `for await` over it " +
  "throws 'is not async iterable', so write `for await (const chunk of await graph.stream(input))`. " +
  "Ask for `{ streamMode: \"values\" }` to get the whole state after every superstep instead.";

const AgentState = Annotation.Root({
  messages: Annotation({
    reducer: (prev, next) => [...prev, ...next],
    default: () => [],
  }),
});

const FORECASTS = { paris: "18°C and sunny" };

/** Stands in for a chat model with a weather tool bound: one lookup, then the answer. */
const llm = {
  async invoke(messages) {
    const turn = messages.filter((m) => m.type === "ai").length + 1;
    const results = messages.filter((m) => m.type === "tool").map((m) => m.content);
    if (results.length === 0) {
      const call = { name: "get_weather", args: { city: "Paris" }, id: `call-${turn}` };
      return new AIMessage({ content: "", tool_calls: [call], id: `ai-${turn}` });
    }
    return new AIMessage({ content: `In Paris it is ${results.at(-1)}.`, id: `ai-${turn}` });
  },
};

const callLLM = async (state) => ({ messages: [await llm.invoke(state.messages)] });

const callTools = async (state) => ({
  messages: state.messages.at(-1).tool_calls.map(
    (call) =>
      new ToolMessage({
        content: FORECASTS[call.args.city.toLowerCase()] ?? "unknown",
        tool_call_id: call.id,
        name: call.name,
        id: `result-${call.id}`,
      }),
  ),
});

const routeAfterLLM = (state) => (state.messages.at(-1).tool_calls?.length ? "tools" : END);

export const graph = new StateGraph(AgentState)
  .addNode("llm", callLLM)
  .addNode("tools", callTools)
  .addEdge(START, "llm")
  .addConditionalEdges("llm", routeAfterLLM, { tools: "tools", [END]: END })
  .addEdge("tools", "llm")
  .compile();

export const exampleInput = {
  messages: [new HumanMessage({ content: "What is the weather in Paris?", id: "user-1" })],
};

if (isMain(import.meta)) {
  for await (const chunk of await graph.stream(exampleInput)) {
    // chunk 是一个对象：{ 节点名: 该节点产生的状态更新 }
    console.log("chunk:", format(brief(chunk)));
  }
  await show("final state", graph, exampleInput);
}
