// An app's own state after its run, without StepScope: `node own_state.mjs APP EXPORT INPUT CONFIG` runs the
// export on INPUT (JSON, or "example" for the app's exampleInput) and prints LangGraph.js's own
// getState().values as plain JSON in plain_state.py's shape (tests/realistic/js/plain_value.mjs), with the
// pause invoke returned as __interrupt__ (getState keeps it on its tasks, not in values): {"state", "paused"},
// with "error" the name of the error invoke threw (a recursion limit's state is the one it stopped at). A graph
// compiled without a checkpointer gets a MemorySaver: getState needs one, and a saver changes no value; a
// builder (StateGraph) is compiled, as StepScope compiles it.
import { pathToFileURL } from "node:url";
import { MemorySaver } from "@langchain/langgraph";
import { plain } from "../realistic/js/plain_value.mjs";

const [app, exportName, input, configText] = process.argv.slice(2);
const module = await import(pathToFileURL(app).href);
const exported = module[exportName] ?? module.default?.[exportName];
const graph = typeof exported.invoke === "function" ? exported : exported.compile();
graph.checkpointer ??= new MemorySaver();
const config = JSON.parse(configText);
config.configurable = { thread_id: "own-state", ...config.configurable };

let returned;
let error;
try {
  returned = await graph.invoke(input === "example" ? module.exampleInput : JSON.parse(input), config);
} catch (thrown) {
  error = thrown?.name ?? String(thrown);
}
console.log(JSON.stringify({ ...(await ownState()), ...(error ? { error } : {}) }));

// getState's values; a Date as invoke returned it (the saver hands a Date back as its ISO string); `next`
// says whether the run paused. Nothing, when getState throws the run's error again (a refused merge).
async function ownState() {
  let snapshot;
  try {
    snapshot = await graph.getState(config);
  } catch {
    return {};
  }
  const state = withDates(plain(snapshot.values), plain(returned ?? {}));
  if (returned?.__interrupt__) state.__interrupt__ = plain(returned.__interrupt__, "__interrupt__");
  return { state, paused: snapshot.next.length > 0 };
}

function withDates(stored, returned) {
  if (returned?.repr !== undefined && returned.repr === stored) return returned;
  if (!stored || typeof stored !== "object" || !returned || typeof returned !== "object") return stored;
  if (Array.isArray(stored)) return stored.map((item, i) => withDates(item, returned[i]));
  return Object.fromEntries(Object.entries(stored).map(([k, v]) => [k, withDates(v, returned[k])]));
}
