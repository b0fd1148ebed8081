// The app's own conversation, without StepScope: `node turns_plain.mjs app export config-json turns-json`
// runs graph.invoke once a turn on one thread (turn 0 is the input, each later turn a resume value, or null to
// go on from a breakpoint) and prints each turn's return, encoded as the recorder encodes values.
import { pathToFileURL } from "node:url";
import { Command } from "@langchain/langgraph";
import { encode } from "../../debugger/runtimes/langgraphjs/codec.mjs";

const [app, name, config, turns] = process.argv.slice(2);
const graph = (await import(pathToFileURL(app).href))[name];
const outputs = [];
for (const [i, turn] of JSON.parse(turns).entries()) {
  const given = i === 0 ? turn : turn === null ? null : new Command({ resume: turn });
  outputs.push(encode(await graph.invoke(given, JSON.parse(config))));
}
console.log(JSON.stringify({ outputs }));
