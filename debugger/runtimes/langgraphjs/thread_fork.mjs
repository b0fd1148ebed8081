// Time travel on a LangGraph.js checkpointer thread (request `mode: "thread"` with `fork: true` of recorder.mjs), as
// debugger/runtimes/langgraph/threads/fork.py does it for a Python thread, never on the app's checkpointer:
//
//   {"app", "export", "mode": "thread", "fork": true, "checkpointer": {"kind", "url"}, "label", "thread_id",
//    "checkpoint_id", "local", "values"?, "as_node"?, "resume"?}
//
// The thread's checkpoints up to `checkpoint_id` (every namespace, with the writes stored on each; not the
// writes of the chosen checkpoint itself, so its next step runs again) are copied from the app's saver,
// opened read-only, into `local`, a fresh SQLite file written by the app's own `SqliteSaver`. The app's graph
// then runs there with LangGraph.js's time travel: `updateState(config, values, asNode)` on the chosen
// checkpoint if asked, then `invoke(null)` (or `new Command({resume})`). The nodes run for real. One event
// answers: `{e: "forked", error?}`; Python reads the local thread back as any thread (threads.py).

import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { encodeError } from "./codec.mjs";
import { ThreadRefusal, openSaver } from "./thread_replay.mjs";

const SQLITE_SAVER = "@langchain/langgraph-checkpoint-sqlite";

/** Copies the thread into `request.local` and runs the fork there; refusals are `ThreadRefusal`s (one line). */
export async function forkThread({ graph, lg, request, out, appFile, packageEntry }) {
  const threadId = String(request.thread_id ?? "");
  const checkpointId = String(request.checkpoint_id ?? "");
  const local = path.resolve(String(request.local ?? ""));
  if (fs.existsSync(local)) throw new ThreadRefusal(`${local} exists already: choose a new file for the fork`);
  const production = await openSaver(request.checkpointer ?? {}, appFile, packageEntry);
  let tuples;
  try {
    tuples = [];
    for await (const saved of production.saver.list({ configurable: { thread_id: threadId } })) tuples.push(saved);
  } finally {
    await production.close();
  }
  const configs = tuples.map((t) => t.config.configurable);
  const roots = new Set(configs.filter((c) => !c.checkpoint_ns).map((c) => c.checkpoint_id));
  if (!roots.has(checkpointId)) {
    const which = `${JSON.stringify(threadId)} has no checkpoint ${JSON.stringify(checkpointId)}`;
    throw new ThreadRefusal(`thread ${which} of the root graph`);
  }
  const saver = await localSaver(appFile, packageEntry, local);
  try {
    await copyThread(saver, tuples.reverse(), threadId, checkpointId); // oldest first, as they were written
    const forked = new graph.constructor({ ...graph, checkpointer: saver }); // the app's graph on the copy
    let config = { configurable: { thread_id: threadId, checkpoint_ns: "", checkpoint_id: checkpointId } };
    const event = { e: "forked" };
    try {
      if (request.values !== undefined && request.values !== null)
        config = await forked.updateState(config, request.values, request.as_node ?? undefined);
      const resume = request.resume;
      await forked.invoke(resume !== undefined && resume !== null ? new lg.Command({ resume }) : null, config);
    } catch (error) {
      event.error = encodeError(error); // the fork's own failure is part of what it shows
    }
    out.emit(event);
  } finally {
    saver.db.close();
  }
}

/** A fresh SqliteSaver of the app's own package at `file` (tables made by its `setup()`: the file is ours). */
async function localSaver(appFile, packageEntry, file) {
  const entry = packageEntry(createRequire(appFile), SQLITE_SAVER, ".", "import");
  if (entry === null)
    throw new ThreadRefusal(
      `time travel copies the thread into a SQLite file: run \`npm install ${SQLITE_SAVER}\` in the app's folder`,
    );
  const { SqliteSaver } = await import(pathToFileURL(entry).href);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  return SqliteSaver.fromConnString(file);
}

async function copyThread(saver, tuples, threadId, checkpointId) {
  for (const saved of tuples) {
    const conf = saved.config.configurable;
    if (conf.checkpoint_id > checkpointId) continue;
    const parent = saved.parentConfig?.configurable?.checkpoint_id;
    const ns = conf.checkpoint_ns ?? "";
    const target = { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: parent } };
    const stored = await saver.put(target, saved.checkpoint, saved.metadata);
    if (conf.checkpoint_id === checkpointId) continue; // the step after the chosen checkpoint runs again
    const byTask = new Map();
    for (const [taskId, channel, value] of saved.pendingWrites ?? []) {
      if (!byTask.has(taskId)) byTask.set(taskId, []);
      byTask.get(taskId).push([channel, value]);
    }
    for (const [taskId, writes] of byTask) await saver.putWrites(stored, writes, taskId);
  }
}
