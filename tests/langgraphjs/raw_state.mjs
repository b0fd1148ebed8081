// The app's own final state as LangGraph.js holds it, without StepScope's codec: `node raw_state.mjs app
// export input-json config-json` runs graph.invoke and prints the state as plain JSON, each message as its
// type and own fields (content, id, name, tool_calls and tool_call_id as LangGraph.js keeps them), so a test
// can see a field the recorder added or dropped.
import { pathToFileURL } from "node:url";

const [app, name, input, config] = process.argv.slice(2);
const module = await import(pathToFileURL(app).href);
let graph = module[name];
if (typeof graph.invoke !== "function") graph = graph.compile();
const given = input === "example" ? module.exampleInput : JSON.parse(input);

function raw(value) {
  if (Array.isArray(value)) return value.map(raw);
  if (value && typeof value === "object" && typeof value._getType === "function") {
    const message = { type: value._getType(), content: value.content };
    for (const key of ["id", "name", "tool_call_id"]) if (value[key]) message[key] = value[key];
    if (Array.isArray(value.tool_calls) && value.tool_calls.length) message.tool_calls = value.tool_calls;
    return message;
  }
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, raw(v)]));
  return value;
}

try {
  console.log(JSON.stringify({ state: raw(await graph.invoke(given, JSON.parse(config))) }));
} catch (error) {
  console.log(JSON.stringify({ error: error?.name ?? String(error) }));
}
