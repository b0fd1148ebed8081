// The per-run probes of a LangGraph.js recording: `LoopProbe` records one run of one graph (the root run,
// or a subgraph's nested under the task running it), `TaskProbe` one task. They turn what the patches
// (patches.mjs) see into events (documented in reader.py) and check each committed state against the
// recorded reducer calls.
//
// `updates`/debug stream events arrive in completion order while the barrier applies writes in task
// order, so nothing here rebuilds state from the stream: every value after comes from the channel itself.

import { AsyncLocalStorage } from "node:async_hooks";
import { channelValue, observeChannelUpdate } from "./barrier.mjs";
import { DeltaTracker, MISSING, SAME, encode, encodeError, sameEncoding } from "./codec.mjs";
import { reducerName } from "./describe.mjs";

const PULL = "__pregel_pull";
const INPUT_WRITER = "__input__";
export const currentTask = new AsyncLocalStorage();
export const PROBES = new WeakMap(); // loop -> LoopProbe
export const OWNERS = new WeakMap(); // a loop's state channel -> { probe, key }
export const GRAPHS = new WeakMap(); // compiled graph's `nodes` object -> { graph, gid, stateKeys }
export const TASKS = new Map(); // task id -> TaskProbe, while its task runs

// ---- one task -----------------------------------------------------------------------------------

export class TaskProbe {
  constructor(loopProbe, task, step) {
    this.loop = loopProbe;
    this.id = task.id;
    this.name = String(task.name);
    this.step = step;
    this.run = loopProbe.run;
    this.routes = [];
    this.attempts = [];
    this.hasResult = false;
    this.result = undefined;
    this.error = undefined;
    this.hasError = false;
    this.started = 0;
    this.duration = 0;
  }

  begin() {
    this.routes = [];
    this.started = performance.now();
  }

  returned(result) {
    this.duration += (performance.now() - this.started) / 1000;
    this.result = result;
    this.hasResult = true;
    this.hasError = false;
  }

  failed(error) {
    const elapsed = (performance.now() - this.started) / 1000;
    this.duration += elapsed;
    this.error = error;
    this.hasError = true;
    if (!isBubbleUp(error)) {
      this.attempts.push({ attempt: this.attempts.length + 1, error: encodeError(error), duration: round(elapsed) });
    }
  }

  /** What the task did, sent once it settled: writes in the node's order, the raw return or the error. */
  settle(task, error) {
    TASKS.delete(this.id);
    const loop = this.loop;
    const event = { e: "task_done", run: this.run, step: this.step, id: this.id, duration: round(this.duration) };
    event.writes = task.writes.map(([channel, value]) => [channel, loop.encode(value)]);
    // the node's own throw (a bare string stays a string); LangGraph.js may have wrapped it since
    let failure = this.hasError ? this.error : error;
    let result = this.hasResult && error === undefined ? this.result : undefined;
    let hasResult = this.hasResult && error === undefined;
    if (error === undefined && failure?.name === "ParentCommand") {
      // a subgraph's Command({graph: PARENT}) that LangGraph.js applied to this task: its return value
      [result, hasResult, failure] = [failure.command, true, undefined];
    }
    if (hasResult) event.result = sameAsWrites(result, task.writes) ? { $type: "same_as_writes" } : loop.encode(result);
    if (failure !== undefined) {
      event.error = encodeError(failure);
      if (isInterrupt(failure)) loop.interruptedBy.set(this.id, failure);
    }
    if (this.routes.length) {
      event.routes = this.routes.map(([name, chosen]) => [name, loop.encode(chosen)]);
      event.route_reads = routeReads(this.routes);
    }
    // as in Python's recorder: failed attempts a RetryPolicy retried; the last one's error is the task's own
    const attempts = this.hasError && !isBubbleUp(this.error) ? this.attempts.slice(0, -1) : this.attempts;
    if (attempts.length) event.attempts = attempts;
    loop.out.emit(event);
  }
}

/** Per route the task ran: the state keys it read, in every call. */
function routeReads(routes) {
  const reads = {};
  for (const [name, , keys] of routes) reads[name] = [...new Set([...(reads[name] ?? []), ...keys])].sort();
  return reads;
}

function sameAsWrites(result, writes) {
  if (result === null || typeof result !== "object" || Object.getPrototypeOf(result) !== Object.prototype) return false;
  const keys = Object.keys(result);
  if (writes.length < keys.length) return false;
  return keys.every((key, i) => writes[i][0] === key && writes[i][1] === result[key]);
}

// ---- one run of one graph -------------------------------------------------------------------------

export class LoopProbe {
  constructor(ctx, loop, params) {
    this.ctx = ctx;
    this.out = ctx.out;
    this.run = ctx.ids.run++;
    const known = GRAPHS.get(params.nodes);
    this.keys = known?.stateKeys ?? Object.keys(loop.channels).filter((k) => !/^(__|branch:|join:)/.test(k));
    this.keys = this.keys.filter((k) => k in loop.channels);
    this.trackers = new Map(this.keys.map((k) => [k, new DeltaTracker()]));
    this.versions = {};
    this.memo = new Map();
    this.lastAfter = new Map();
    this.seenTasks = new Set();
    this.interruptedBy = new Map();
    this.asked = []; // the interrupts the root loop streamed, which invoke returns as __interrupt__
    this.latest = undefined; // the last state chunk it streamed: invoke's return, once it paused
    this.grouped = null;
    this.inFirst = false;
    this.calls = 0; // reducer calls recorded, to see whether the end applied a paused step's writes
    this.committedState = {};
    this.sortKey = ctx.sortKey;
    this.outputKeys = params.outputKeys;
    this.loop = loop;
    this.taskNames = new Map();
    for (const key of this.keys) OWNERS.set(loop.channels[key], { probe: this, key });
    const parent = currentTask.getStore();
    this.parentRun = parent?.run ?? null;
    const config = loop.config ?? {};
    this.out.emit({
      e: "run",
      run: this.run,
      parent_run: parent?.run ?? null,
      parent_task: parent?.id ?? null,
      ns: [...(loop.checkpointNamespace ?? [])].filter((part) => part !== ""),
      gid: known?.gid ?? null,
      state_keys: this.keys,
      input: encode(params.input),
      config: plainConfig(config),
      recursion_limit: Number(config.recursionLimit ?? 0),
      thread_id: String(config.configurable?.thread_id ?? ""),
      started_at: loop.startedAt ?? new Date().toISOString(), // a stored thread: its first checkpoint's time
    });
    this.started = performance.now();
  }

  encode(value) {
    return encode(value, this.memo);
  }

  // ---- tasks ----------------------------------------------------------------------------------

  planned(loop) {
    for (const task of Object.values(loop.tasks)) {
      if (this.seenTasks.has(task.id)) continue;
      this.seenTasks.add(task.id);
      this.emitTask(loop, task);
      if (task.writes.length === 0) {
        TASKS.set(task.id, new TaskProbe(this, task, loop.step));
        this.ctx.observeProc(task.proc); // patches.mjs: its runnable reports to the probe
      } else {
        this.out.emit({
          e: "task_done",
          run: this.run,
          step: loop.step,
          id: task.id,
          writes: task.writes.map(([c, v]) => [c, this.encode(v)]),
        });
      }
    }
    this.out.flush();
  }

  /** The `task` event of one task planned for `loop.step`: why it runs (the versions it saw), its input. */
  emitTask(loop, task) {
    const versions = loop.checkpoint.channel_versions;
    this.taskNames.set(task.id, String(task.name));
    const seen = loop.checkpoint.versions_seen[task.name] ?? {};
    const pull = task.path?.[0] === PULL;
    const triggers = [...(task.triggers ?? [])];
    const fired = pull ? triggers.filter((c) => c in versions && (!(c in seen) || seen[c] < versions[c])) : triggers;
    const seenVersions = {};
    for (const c of fired) if (c in versions) seenVersions[c] = versionNumber(versions[c]);
    this.out.emit({
      e: "task",
      run: this.run,
      step: loop.step,
      task: {
        id: task.id,
        name: String(task.name),
        path: plainPath(task.path),
        triggers,
        fired,
        seen_versions: seenVersions,
        input: pull && task.name !== "__start__" ? this.inputView(task.input) : this.encode(task.input),
      },
    });
  }

  /** `{"$view": keys}` when a node's input is the recorded state (the usual case), else its encoding. */
  inputView(value) {
    if (value === null || typeof value !== "object" || Object.getPrototypeOf(value) !== Object.prototype)
      return this.encode(value);
    const keys = Object.keys(value);
    for (const key of keys) {
      const tracker = this.trackers.get(key);
      const raw = tracker?.raw;
      const current = value[key];
      if (tracker === undefined || !(raw === current || (raw === MISSING && current === undefined)))
        return this.encode(value);
    }
    return { $view: keys };
  }

  // ---- the barrier ----------------------------------------------------------------------------

  writersFor(loop, key, values) {
    if (this.inFirst || loop === undefined) return values.map(() => [INPUT_WRITER, INPUT_WRITER]);
    if (this.grouped === null) {
      this.grouped = new Map();
      for (const task of this.sortKey(Object.values(loop.tasks ?? {}))) {
        for (const [channel, value] of task.writes) {
          if (!this.trackers.has(channel)) continue;
          if (!this.grouped.has(channel)) this.grouped.set(channel, []);
          this.grouped.get(channel).push([value, task]);
        }
      }
    }
    const pairs = this.grouped.get(key) ?? [];
    if (pairs.length === values.length && pairs.every(([value], i) => Object.is(value, values[i]))) {
      return pairs.map(([, task]) => [task.id, String(task.name)]);
    }
    return values.map(() => ["?", "?"]); // writes this probe cannot attribute: shown, never guessed
  }

  observeUpdate(channel, key, values, update) {
    const writers = this.writersFor(this.loop, key, values);
    const step = this.currentStep();
    const reducer = reducerName(channel);
    const sink = (i, before, after, error) =>
      this.call(step, key, reducer, writers[i], before, values[i], after, error);
    return observeChannelUpdate(channel, values, update, sink, this.ctx.lg);
  }

  call(step, key, reducer, [writer, writerName], before, write, after, error) {
    const tracker = this.trackers.get(key);
    const enc = (v) => this.encode(v);
    const beforeDelta = tracker.delta(before, enc);
    const afterDelta = error !== undefined ? SAME : tracker.delta(after, enc);
    const call = {
      channel: key,
      reducer,
      writer,
      writer_name: writerName,
      write: this.encode(write),
      before: beforeDelta,
      after: afterDelta,
    };
    if (error !== undefined) call.error = encodeError(error);
    else this.lastAfter.set(key, after);
    this.calls++;
    this.out.emit({ e: "call", run: this.run, step, call });
  }

  currentStep() {
    return this.loop.step;
  }

  /** The barrier of `step` committed: versions that changed, state changes no call explains, mismatches. */
  commit(loop, step) {
    const versions = {};
    for (const [channel, version] of Object.entries(loop.checkpoint.channel_versions)) {
      const number = versionNumber(version);
      if (this.versions[channel] !== number) versions[channel] = number;
      this.versions[channel] = number;
    }
    const state = {};
    const mismatches = [];
    for (const key of this.keys) {
      const value = channelValue(loop.channels[key]);
      this.committedState[key] = value;
      if (this.lastAfter.has(key)) {
        const recorded = this.lastAfter.get(key);
        if (recorded !== value && !sameEncoding(this.encode(recorded), this.encode(value))) {
          mismatches.push({ channel: key, recorded: this.encode(recorded), committed: this.encode(value) });
        }
      }
      const change = this.trackers.get(key).delta(value, (v) => this.encode(v));
      if (!change.same) state[key] = change;
    }
    const event = { e: "commit", run: this.run, step, versions, updated: [...(loop.updatedChannels ?? [])].sort() };
    if (Object.keys(state).length) event.state = state;
    if (mismatches.length) event.mismatches = mismatches;
    this.out.emit(event);
    this.lastAfter.clear();
    this.memo = new Map();
    this.grouped = null;
  }

  checkpoint(step, config, parent) {
    this.out.emit({
      e: "checkpoint",
      run: this.run,
      step,
      config: plainCheckpointConfig(config),
      parent: parent ? plainCheckpointConfig(parent) : null,
    });
  }

  // ---- the end ----------------------------------------------------------------------------------

  finish(loop, error) {
    for (const task of Object.values(loop.tasks ?? {})) TASKS.delete(task.id);
    let status = "done";
    let interrupts = [];
    const name = error?.name;
    if (error === undefined) status = loop.status === "done" || loop.status === "pending" ? "done" : loop.status;
    else if (name === "GraphInterrupt" || name === "NodeInterrupt") {
      status = "interrupted";
      interrupts = inStateOrder(loop, (error.interrupts ?? []).map((i) => this.interrupt(i)));
    } else if (name === "GraphRecursionError") status = "recursion_limit";
    else if (name === "ParentCommand" && this.parentRun !== null) status = "interrupted";
    else status = "error";
    if (status === "out_of_steps") status = "recursion_limit";
    let output = loop.output;
    if (output === undefined && error !== undefined) output = this.stateOutput();
    if (status === "interrupted" && this.parentRun === null) output = this.pausedOutput();
    const event = {
      e: "end",
      run: this.run,
      status,
      output: encode(output),
      duration: round((performance.now() - this.started) / 1000),
    };
    // as in Python's recorder: an interrupt() keeps its GraphInterrupt; a breakpoint (no interrupts) has none
    const breakpoint = isInterrupt(error) && interrupts.length === 0;
    if (error !== undefined && !breakpoint) event.error = encodeError(error);
    if (interrupts.length) event.interrupts = interrupts;
    this.out.emit(event);
    this.out.flush();
  }

  /** Keeps the `values` chunks of the run's own namespace as LangGraph.js's invoke reads them: the last
   * state, and each chunk of what was asked. */
  streamed(values, namespace) {
    if ([...(namespace ?? [])].some((part) => part !== "")) return;
    for (const [mode, payload] of values ?? []) {
      if (mode !== "values") continue;
      if (payload && typeof payload === "object" && Array.isArray(payload.__interrupt__)) this.asked.push(payload.__interrupt__);
      else this.latest = payload;
    }
  }

  /** What LangGraph.js's invoke returns for a paused run: its last state chunk, which has the finished
   * branches' writes (applied after `loop.output` was read), and all that was asked (a breakpoint's [] too). */
  pausedOutput() {
    if (!this.asked.length) return this.latest;
    const asked = this.asked.flat(1);
    if (this.latest == null) return { __interrupt__: asked };
    return typeof this.latest === "object" ? { ...this.latest, __interrupt__: asked } : this.latest;
  }

  stateOutput() {
    const keys = this.outputKeys;
    const state = this.committedState;
    if (typeof keys === "string") return state[keys] === MISSING ? undefined : state[keys];
    const out = {};
    for (const key of keys ?? this.keys) if (key in state && state[key] !== MISSING) out[key] = state[key];
    return out;
  }

  interrupt(interrupt) {
    let node = "";
    let task = "";
    for (const [taskId, error] of this.interruptedBy) {
      if ((error.interrupts ?? []).some((i) => i.id === interrupt.id)) {
        task = taskId;
        node = this.taskNames.get(taskId) ?? "";
        break;
      }
    }
    return { id: String(interrupt.id ?? ""), value: encode(interrupt.value), node, task };
  }
}

// ---- helpers --------------------------------------------------------------------------------------

/** A GraphInterrupt lists its interrupts as the tasks stopped; getState lists them task by task, in the
 * order the loop planned its tasks (`loop.tasks`): the recorded run says them as the thread's state does. */
function inStateOrder(loop, interrupts) {
  const planned = Object.keys(loop.tasks ?? {});
  const rank = (item) => (planned.includes(item.task) ? planned.indexOf(item.task) : planned.length);
  return [...interrupts].sort((a, b) => rank(a) - rank(b));
}

function isBubbleUp(error) {
  return ["GraphInterrupt", "NodeInterrupt", "GraphBubbleUp", "ParentCommand"].includes(error?.name);
}

function isInterrupt(error) {
  return error?.name === "GraphInterrupt" || error?.name === "NodeInterrupt";
}

function versionNumber(version) {
  if (typeof version === "number") return version;
  const head = String(version).split(".", 1)[0];
  return /^\d+$/.test(head) ? Number(head) : 0;
}

function plainPath(path) {
  return (path ?? []).map((part) =>
    Array.isArray(part)
      ? plainPath(part)
      : ["string", "number", "boolean"].includes(typeof part)
        ? part
        : String(part?.name ?? part),
  );
}

function plainConfig(config) {
  const plain = {};
  for (const [key, value] of Object.entries(config)) {
    if (
      [
        "callbacks",
        "configurable",
        "metadata",
        "signal",
        "store",
        "writer",
        "interrupt",
        "control",
        "serverInfo",
        "context",
      ].includes(key)
    )
      continue;
    if (value == null || typeof value === "function" || typeof value === "object") continue;
    plain[key] = value;
  }
  const configurable = {};
  for (const [key, value] of Object.entries(config.configurable ?? {})) {
    if (!key.startsWith("__") && ["string", "number", "boolean"].includes(typeof value)) configurable[key] = value;
  }
  if (Object.keys(configurable).length) plain.configurable = configurable;
  return plain;
}

function plainCheckpointConfig(config) {
  const configurable = config?.configurable ?? {};
  const kept = {};
  for (const key of ["thread_id", "checkpoint_ns", "checkpoint_id"])
    if (key in configurable) kept[key] = configurable[key];
  return { configurable: kept };
}

function round(seconds) {
  return Math.round(seconds * 1e6) / 1e6;
}
