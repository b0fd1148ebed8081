// `--checkpointer URL` for a LangGraph.js app compiled without a saver (request `checkpointer: {kind, url}` of
// recorder.mjs): the run goes on LangGraph.js's own saver of that database, writable, as the app itself would
// compile one in (`SqliteSaver.fromConnString(file)`, `PostgresSaver.fromConnString(url)` and its `setup()`),
// so the thread is kept there for a later `--resume` and for `stepscope threads`. Python checked the database
// before (debugger/runtimes/checkpointers/run_on.py): nothing here writes to a database of something else.

import { saverPackage } from "./thread_replay.mjs";

/** The writable saver `checkpointer` names, from the app's own saver package. */
export async function openRunSaver({ kind, url }, appFile, packageEntry) {
  const { module } = await saverPackage(kind, appFile, packageEntry);
  if (kind !== "postgres") return module.SqliteSaver.fromConnString(url);
  const saver = module.PostgresSaver.fromConnString(url);
  await saver.setup(); // creates the saver's tables where there are none, as the app's own setup() would
  return saver;
}
