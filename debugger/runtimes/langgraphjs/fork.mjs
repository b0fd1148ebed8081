// Time travel on a LangGraph.js app (requests `mode: "history"` and `mode: "update"` of recorder.mjs): the
// checkpoint calls `debugger/timetravel.py` makes between its recorded runs, each in a node process of its
// own on the debugger's copy of the graph (a fresh MemorySaver, kept between processes in the request's
// `thread_file`, never the user's saver):
//
//   history  {config}                      -> {e: "history", states: [{config, metadata: {step}}]}, newest first
//   update   {config, values, as_node}     -> {e: "updated", config}: `updateState(config, values, asNode)`

import { encode, encodeError } from "./codec.mjs";

/** The graph compiled again on a fresh MemorySaver (the user's graph and saver are left alone). */
export function withFreshSaver(graph, lg) {
  return new graph.constructor({ ...graph, checkpointer: new lg.MemorySaver() });
}

/** Answers one history or update request with one event. */
export async function answerForkRequest({ graph, request, out }) {
  const config = request.config ?? {};
  try {
    if (request.mode === "history") {
      const states = [];
      for await (const state of graph.getStateHistory(config)) {
        states.push({ config: plain(state.config), metadata: { step: state.metadata?.step ?? null } });
      }
      out.emit({ e: "history", states });
    } else {
      const saved = await graph.updateState(config, request.values ?? null, request.as_node ?? undefined);
      out.emit({ e: "updated", config: plain(saved) });
    }
  } catch (error) {
    out.emit({ e: "fork_error", error: encodeError(error), message: `${error?.name ?? "Error"}: ${error?.message}` });
  }
}

function plain(config) {
  const configurable = {};
  for (const [key, value] of Object.entries(config?.configurable ?? {})) {
    if (["thread_id", "checkpoint_ns", "checkpoint_id"].includes(key)) configurable[key] = encode(value);
  }
  return { configurable };
}
