// An app's own run, without StepScope: `node own_run.mjs APP CONFIG RESUMES` runs the app's `graph` on its
// `exampleInput` (invoke, then one Command({resume}) a pause) and prints the state after each call as plain
// JSON in plain_state.py's shape (plain_value.mjs), or the name of the error a call threw.
import { pathToFileURL } from "node:url";
import { Command } from "@langchain/langgraph";
import { plain } from "./plain_value.mjs";

const [app, config, resumes] = process.argv.slice(2);
const module = await import(pathToFileURL(app).href);

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
