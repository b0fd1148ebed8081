/**
 * `node tests/js/lesson_outcomes.mjs sample_graphs/js/NAME.mjs` prints, as one JSON object, what the
 * JavaScript lesson NAME does: its exports (title, lesson, pythonTwin), the outcome of each compiled graph
 * it exports on its input (the final state with messages as records, or the error's class, code and
 * message), the line the lesson prints for that outcome, and the `updates` chunks of `graph`.
 * tests/test_js_lessons.py compares these with the lesson's Python twin.
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, errorRecord, outcome, plain } from "../../sample_graphs/js/_show.mjs";

/** A compiled LangGraph.js graph (duck-typed: the lesson's own copy of the package may differ from ours). */
const isCompiledGraph = (value) => typeof value?.invoke === "function" && typeof value?.getGraph === "function";

/** The input a lesson runs an exported graph with: `fixedInput` for `fixedGraph`, else `exampleInput`. */
const inputFor = (lesson, name) => (name === "fixedGraph" && "fixedInput" in lesson ? lesson.fixedInput : lesson.exampleInput);

async function streamedUpdates(graph, input) {
  const chunks = [];
  try {
    for await (const chunk of await graph.stream(input, { streamMode: "updates" })) chunks.push(plain(chunk));
    return { chunks };
  } catch (error) {
    return { chunks, error: errorRecord(error) };
  }
}

const lesson = await import(pathToFileURL(resolve(process.argv[2])).href);
const graphs = {};
const printed = {};
for (const [name, value] of Object.entries(lesson)) {
  if (!isCompiledGraph(value)) continue;
  const result = await outcome(value, inputFor(lesson, name));
  graphs[name] = "error" in result ? { error: errorRecord(result.error) } : { state: plain(result.state) };
  printed[name] = describe(result);
}
const { title, lesson: text, pythonTwin, source } = lesson;
const stream = await streamedUpdates(lesson.graph, lesson.exampleInput);
process.stdout.write(JSON.stringify({ title, lesson: text, pythonTwin, source, graphs, printed, stream }) + "\n");
