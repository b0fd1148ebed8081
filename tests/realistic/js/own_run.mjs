// An app's own run, without StepScope: `node own_run.mjs APP CONFIG RESUMES` runs the app's `graph` on its
// `exampleInput` (invoke, then one Command({resume}) a pause) and prints the state after each call as plain
// JSON in plain_state.py's shape (a message as its type and own fields, a Set as {set}, a Date as {repr},
// an interrupt as its value), or the name of the error a call threw.
import { pathToFileURL } from "node:url";
import { Command } from "@langchain/langgraph";

const [app, config, resumes] = process.argv.slice(2);
const module = await import(pathToFileURL(app).href);

function plain(value, key) {
  if (Array.isArray(value)) return value.map((item) => (key === "__interrupt__" ? { interrupt: plain(item.value) } : plain(item)));
  if (value instanceof Set) return { set: Array.from(value, (item) => plain(item)) };
  if (value instanceof Date) return { repr: value.toISOString() };
  if (value && typeof value === "object" && typeof value._getType === "function") {
    const message = { type: value._getType(), content: value.content };
    for (const name of ["id", "name", "tool_call_id"]) if (value[name]) message[name] = value[name];
    if (Array.isArray(value.tool_calls) && value.tool_calls.length) message.tool_calls = plain(value.tool_calls);
    return message;
  }
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v, k)]));
  return value;
}

const calls = [module.exampleInput, ...JSON.parse(resumes).map((resume) => new Command({ resume }))];
const states = [];
for (const given of calls) {
  try {
    states.push(plain(await module.graph.invoke(given, JSON.parse(config))));
  } catch (error) {
    states.push({ error: error?.name ?? String(error) });
    break;
  }
}
console.log(JSON.stringify(states));
