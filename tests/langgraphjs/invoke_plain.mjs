// The app's own run, without StepScope: `node invoke_plain.mjs app export input-json config-json` prints
// what `graph.invoke` returned or threw, encoded as the recorder encodes values, for the tests to compare.
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { encode, encodeError } from "../../debugger/runtimes/langgraphjs/codec.mjs";

const [app, name, input, config] = process.argv.slice(2);
const module = app.endsWith(".cjs") ? createRequire(import.meta.url)(app) : await import(pathToFileURL(app).href);
let graph = module[name];
if (typeof graph.invoke !== "function") graph = graph.compile();
try {
  console.log(JSON.stringify({ output: encode(await graph.invoke(JSON.parse(input), JSON.parse(config))) }));
} catch (error) {
  console.log(JSON.stringify({ error: encodeError(error) }));
}
