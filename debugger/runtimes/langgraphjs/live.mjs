// A live run of a LangGraph.js app (request `mode: "live"` of recorder.mjs): one long-lived node process that
// reads JSON command lines on stdin and answers each with one `reply` event on the events fd, after the
// events of whatever the command ran (the recorder's patches record each segment as a run of its own).
//
//   {"cmd": "step", "input": ..., "first": true}     one segment: `graph.stream(input)` (the input's segment)
//   {"cmd": "step"}                                  one segment from the checkpoint: `graph.stream(null)`
//   {"cmd": "step", "resume": ...}                   one segment answering an interrupt: `new Command({resume})`
//        (each with optional "recursionLimit"; every segment stops before the next superstep: interruptBefore
//         every node)
//   {"cmd": "state"}                                 `getState(config)`
//   {"cmd": "update", "values": {...}, "asNode": n}  `updateState(config, values, asNode)`
//   {"cmd": "stop"}                                  leave
//
// Every reply carries `state` (the snapshot after the command: values, next, step, tasks with interrupts,
// each push task's Send argument) or `error` (encodeError of what the command threw). The run goes on a
// fresh thread id the caller put in `config`; a graph compiled without a checkpointer runs on a copy
// with a MemorySaver of its own (the user's graph object is not changed).

import { encode, encodeError } from "./codec.mjs";

const PUSH = "__pregel_push";
const TASKS = "__pregel_tasks";

/** Runs the command loop until `stop` or the end of stdin. */
export async function runLive({ graph, lg, config, lines, out }) {
  const runnable = graph.checkpointer ? graph : new graph.constructor({ ...graph, checkpointer: new lg.MemorySaver() });
  const nodes = Object.keys(graph.nodes).filter((name) => name !== "__start__");
  out.emit({ e: "live_ready", own_saver: Boolean(graph.checkpointer), nodes });
  out.flush();
  const session = { runnable, nodes, config, lg };
  for (;;) {
    const { value, done } = await lines.next();
    if (done) return;
    let command;
    try {
      command = JSON.parse(value);
    } catch {
      out.emit({ e: "reply", error: { class: "Error", message: `not a JSON command: ${value.slice(0, 80)}` } });
      out.flush();
      continue;
    }
    if (command.cmd === "stop") return;
    out.emit({ e: "reply", cmd: command.cmd, ...(await answer(session, command)) });
    out.flush();
  }
}

async function answer(session, command) {
  const { runnable, config } = session;
  const reply = {};
  try {
    if (command.cmd === "step") await segment(session, command);
    else if (command.cmd === "update") {
      const saved = await runnable.updateState(config, command.values, command.asNode ?? undefined);
      reply.checkpoint = plainConfigurable(saved);
    } else if (command.cmd !== "state") throw new Error(`unknown live command ${command.cmd}`);
  } catch (error) {
    reply.error = encodeError(error);
  }
  try {
    reply.state = await snapshot(session);
  } catch (error) {
    reply.error ??= encodeError(error);
  }
  return reply;
}

/** One `stream` call, ended by LangGraph.js's own breakpoint before the next superstep. */
async function segment({ runnable, nodes, config, lg }, command) {
  let input = null;
  if ("resume" in command) input = new lg.Command({ resume: command.resume });
  else if (command.first) input = command.input;
  const options = { ...config, interruptBefore: nodes, interruptAfter: [], streamMode: "values" };
  if (Number.isInteger(command.recursionLimit)) options.recursionLimit = command.recursionLimit;
  const stream = await runnable.stream(input, options);
  for await (const _ of stream) {
    // the recorder's patches record the segment; the values themselves are read with getState
  }
}

async function snapshot({ runnable, config }) {
  const state = await runnable.getState(config);
  const sends = await pendingSends(runnable, config);
  return {
    values: encode(state.values ?? {}),
    next: [...(state.next ?? [])],
    step: state.metadata?.step ?? null,
    checkpoint: plainConfigurable(state.config),
    tasks: (state.tasks ?? []).map((task) => {
      const path = Array.isArray(task.path) ? task.path : [];
      const push = path[0] === PUSH;
      const index = push && typeof path[1] === "number" ? path[1] : -1;
      return {
        id: task.id,
        name: task.name,
        push,
        ...(index >= 0 && index < sends.length ? { send_arg: encode(sends[index]?.args) } : {}),
        interrupts: (task.interrupts ?? []).map((i) => ({ id: i.id ?? null, value: encode(i.value) })),
      };
    }),
  };
}

/** The Sends the next superstep runs, in LangGraph.js's order (the checkpoint's pending writes keep them). */
async function pendingSends(runnable, config) {
  try {
    const saved = await runnable.checkpointer.getTuple(config);
    const fromChannel = saved?.checkpoint?.channel_values?.[TASKS];
    if (Array.isArray(fromChannel) && fromChannel.length) return fromChannel;
    return (saved?.pendingWrites ?? []).filter(([, channel]) => channel === TASKS).map(([, , value]) => value);
  } catch {
    return []; // a saver that cannot say: the tasks show the state instead
  }
}

function plainConfigurable(saved) {
  const configurable = saved?.configurable ?? {};
  const plain = {};
  for (const key of ["thread_id", "checkpoint_ns", "checkpoint_id"]) {
    if (configurable[key] !== undefined) plain[key] = String(configurable[key]);
  }
  return plain;
}
