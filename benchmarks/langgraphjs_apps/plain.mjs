// LangGraph.js alone: `node plain.mjs app.mjs` imports the app and prints how long its graph.invoke took
// (wall and CPU seconds); `node plain.mjs app.mjs --startup` only imports it (node's start-up and imports).
import { pathToFileURL } from "node:url";

const app = await import(pathToFileURL(process.argv[2]).href);
if (process.argv[3] !== "--startup") {
  const started = performance.now();
  const cpu = process.cpuUsage();
  await app.graph.invoke(app.input, app.config);
  const used = process.cpuUsage(cpu);
  console.log(
    JSON.stringify({ seconds: (performance.now() - started) / 1000, cpu_seconds: (used.user + used.system) / 1e6 }),
  );
}
