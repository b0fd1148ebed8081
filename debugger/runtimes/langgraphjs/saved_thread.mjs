// Threads that outlive the node process: an app compiled with LangGraph.js's `MemorySaver` keeps its checkpoints
// in node, so `stepscope run app.mjs:graph --thread T` saves that thread's part of the saver (its checkpoints and
// pending writes, exactly as the saver holds them: serialized bytes in base64) to a file beside the run store when
// the run ends, and puts it back into the saver before the next run on the same thread (`--resume`, the next turn),
// in a later process. A saver of the app's own (SqliteSaver, PostgresSaver) keeps its threads itself: left alone.

import fs from "node:fs";
import path from "node:path";

const BYTES = "$b64";

/** True for LangGraph.js's in-memory saver (the one whose threads end with the process). */
export function isMemorySaver(saver) {
  return Boolean(saver && saver.constructor?.name === "MemorySaver" && saver.storage && saver.writes);
}

/** Puts the saved thread back into `saver`; false when no file was saved yet. Throws with the file named. */
export function restoreThread(saver, threadId, file) {
  if (!fs.existsSync(file)) return false;
  let data;
  try {
    data = JSON.parse(fs.readFileSync(file, "utf8"), (_, value) =>
      value && typeof value === "object" && BYTES in value ? new Uint8Array(Buffer.from(value[BYTES], "base64")) : value,
    );
  } catch (error) {
    throw new Error(`cannot read the saved thread ${threadId} from ${file}: ${error.message}. Delete the file to start the thread afresh`);
  }
  if (data.storage) saver.storage[threadId] = data.storage;
  for (const [key, writes] of Object.entries(data.writes ?? {})) saver.writes[key] = writes;
  return true;
}

/** Saves `threadId`'s checkpoints and writes to `file` (written whole, then renamed into place). */
export function saveThread(saver, threadId, file) {
  const storage = saver.storage[threadId];
  if (storage === undefined) return;
  const writes = {};
  for (const [key, value] of Object.entries(saver.writes)) {
    if (threadOfKey(key) === threadId) writes[key] = value;
  }
  const text = JSON.stringify({ thread_id: threadId, storage, writes }, (_, value) =>
    value instanceof Uint8Array ? { [BYTES]: Buffer.from(value).toString("base64") } : value,
  );
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(`${file}.tmp`, text);
  fs.renameSync(`${file}.tmp`, file);
}

function threadOfKey(key) {
  try {
    return JSON.parse(key)[0];
  } catch {
    return undefined;
  }
}
