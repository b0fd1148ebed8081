// Watching LangGraph.js's own loop: the patches the recorder puts into the app's @langchain/langgraph and
// the per-run probes that turn what they see into events (the protocol is in ../langgraphjs/events.py).
//
// LangGraph.js has no hooks for a debugger, and its `_applyWrites` is an ES module binding nobody outside
// can replace, so the patches sit on the classes the loop calls through (the same module instances the
// app uses: the caller imports them by absolute file URL):
//
//   PregelLoop.initialize       a run starts: a LoopProbe (nested under the running task, for a subgraph)
//   PregelLoop.tick             the tasks each tick plans; each task's runnable observed (input, return, error)
//   PregelLoop._first           the input barrier (its writes are the input's)
//   <channel>.update            the barrier: each state key's writes, in LangGraph.js's application order
//   PregelLoop._putCheckpoint   the barrier committed: versions, the committed state checked, checkpoints
//   PregelLoop.finishAndHandleError   the run ended: status, output, error, interrupts
//   PregelRunner._commit        a task settled: its writes, in the node's own order
//   Pregel._streamIterator      which compiled graph a run belongs to (its description, its branch names)
//
// `updates`/debug stream events arrive in completion order while the barrier applies writes in task
// order, so nothing here rebuilds state from the stream: every value after comes from the channel itself.

import { AsyncLocalStorage } from "node:async_hooks";
import { DeltaTracker, MISSING, SAME, encode, encodeError, sameEncoding } from "./codec.mjs";
import { describeGraph, reducerName } from "./describe.mjs";

const PULL = "__pregel_pull";
const INPUT_WRITER = "__input__";
const currentTask = new AsyncLocalStorage();
const PROBES = new WeakMap(); // loop -> LoopProbe
const OWNERS = new WeakMap(); // a loop's state channel -> { probe, key }
const GRAPHS = new WeakMap(); // compiled graph's `nodes` object -> { graph, gid, branchNames }
const TASKS = new Map(); // task id -> TaskProbe, while its loop runs
const WRAPPED = new WeakSet();

/** Installs the patches into one @langchain/langgraph module instance (`lg`: its classes and helpers). */
export function install(lg, out) {
  const ctx = { lg, out, nextRun: 1, nextGraph: 1, sortKey: makeSortKey(lg) };
  patchGraphs(lg, ctx);
  patchLoop(lg, ctx);
  patchRunner(lg);
  for (const channelClass of lg.channelClasses) patchChannel(channelClass);
  return ctx;
}

function makeSortKey(lg) {
  const pathStr = lg.taskPathStr ?? fallbackPathStr;
  if (lg.writesSortKey && lg.compareWritesSortKeys) {
    return (tasks) => {
      const keys = new Map(tasks.map((t) => [t, lg.writesSortKey(pathStr(t.path))]));
      return tasks.slice().sort((a, b) => lg.compareWritesSortKeys(keys.get(a), keys.get(b)));
    };
  }
  return (tasks) => tasks.slice().sort((a, b) => compareCodePoints(pathStr(a.path), pathStr(b.path)));
}

function fallbackPathStr(path) {
  if (Array.isArray(path)) return `~${path.map(fallbackPathStr).join(", ")}`;
  if (typeof path === "boolean") return path ? "0000000001" : "0000000000";
  if (typeof path === "number") return path < 0 ? `-${String(-path).padStart(9, "0")}` : String(path).padStart(10, "0");
  return path == null ? "~" : String(path);
}

function compareCodePoints(a, b) {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0) - y[i].codePointAt(0);
    if (d) return d;
  }
  return x.length - y.length;
}

// ---- patches ------------------------------------------------------------------------------------

function patchGraphs(lg, ctx) {
  const original = lg.Pregel.prototype._streamIterator;
  lg.Pregel.prototype._streamIterator = async function* observedStreamIterator(input, options) {
    if (this.nodes && !GRAPHS.has(this.nodes)) GRAPHS.set(this.nodes, await registerGraph(this, ctx));
    yield* original.call(this, input, options);
  };
}

async function registerGraph(graph, ctx) {
  const gid = ctx.nextGraph++;
  let description;
  try {
    description = await describeGraph(graph);
  } catch (error) {
    description = { name: graph.name ?? "LangGraph", error: String(error?.message ?? error) };
  }
  ctx.out.emit({ e: "graph", gid, graph: description });
  const branchNames = new Map();
  for (const [, byName] of Object.entries(graph.builder?.branches ?? {})) {
    for (const [name, branch] of Object.entries(byName)) {
      branchNames.set(branch, name);
      observeBranch(branch, name);
    }
  }
  const stateKeys = graph.builder?.channels ? Object.keys(graph.builder.channels) : null;
  return { graph, gid, stateKeys };
}

/** A conditional edge's own answer, filed under the task it runs in (routes run inside the node's task). */
function observeBranch(branch, name) {
  const path = branch.path;
  if (!path || WRAPPED.has(path)) return;
  WRAPPED.add(path);
  const invoke = path.invoke;
  path.invoke = async function observedRoute(input, config) {
    const result = await invoke.call(this, input, config);
    currentTask.getStore()?.routes.push([name, result]);
    return result;
  };
}

function patchLoop(lg, ctx) {
  const Loop = lg.PregelLoop;
  const initialize = Loop.initialize;
  Loop.initialize = async function observedInitialize(params) {
    const loop = await initialize.call(this, params);
    PROBES.set(loop, new LoopProbe(ctx, loop, params));
    return loop;
  };
  const tick = Loop.prototype.tick;
  Loop.prototype.tick = async function observedTick(params) {
    const probe = PROBES.get(this);
    if (probe === undefined) return tick.call(this, params);
    probe.grouped = null; // a new barrier: its writers are sorted on first use
    const more = await tick.call(this, params);
    if (more) probe.planned(this);
    return more;
  };
  const first = Loop.prototype._first;
  Loop.prototype._first = async function observedFirst(inputKeys) {
    const probe = PROBES.get(this);
    if (probe === undefined) return first.call(this, inputKeys);
    probe.inFirst = true;
    probe.committedInFirst = false;
    try {
      return await first.call(this, inputKeys);
    } finally {
      probe.inFirst = false;
      if (!probe.committedInFirst) probe.commit(this, this.step - 1); // a resume: the state it starts from
    }
  };
  const putCheckpoint = Loop.prototype._putCheckpoint;
  Loop.prototype._putCheckpoint = function observedPutCheckpoint(metadata) {
    const probe = PROBES.get(this);
    if (probe === undefined || metadata === this.checkpointMetadata) return putCheckpoint.call(this, metadata);
    const step = this.step;
    if (probe.inFirst) probe.committedInFirst = true;
    probe.commit(this, step);
    const before = this.checkpointConfig?.configurable?.checkpoint_id;
    const result = putCheckpoint.call(this, metadata);
    const after = this.checkpointConfig?.configurable?.checkpoint_id;
    if (this.checkpointer && after && after !== before) probe.checkpoint(step, this.checkpointConfig, this.prevCheckpointConfig);
    probe.out.flush();
    return result;
  };
  const finish = Loop.prototype.finishAndHandleError;
  Loop.prototype.finishAndHandleError = async function observedFinish(error) {
    const probe = PROBES.get(this);
    if (probe === undefined) return finish.call(this, error);
    probe.quiet = true; // it re-applies an interrupted step's finished writes for the output: not a barrier
    try {
      return await finish.call(this, error);
    } finally {
      probe.quiet = false;
      probe.finish(this, error);
    }
  };
}

function patchRunner(lg) {
  const commit = lg.PregelRunner.prototype._commit;
  lg.PregelRunner.prototype._commit = function observedCommit(task, error) {
    TASKS.get(task.id)?.settle(task, error); // before LangGraph.js adds its own __error__/__no_writes__ marker
    return commit.call(this, task, error);
  };
}

function patchChannel(channelClass) {
  const update = channelClass.prototype.update;
  if (typeof update !== "function" || Object.prototype.hasOwnProperty.call(channelClass.prototype, "__stepscope")) return;
  channelClass.prototype.__stepscope = true;
  channelClass.prototype.update = function observedUpdate(values) {
    const owner = OWNERS.get(this);
    if (owner === undefined || values.length === 0 || owner.probe.quiet) return update.call(this, values);
    return owner.probe.observeUpdate(this, owner.key, values, update);
  };
}

/** Makes a task's runnable report to the task's probe (found by the task id LangGraph.js puts in its config). */
function observeProc(proc) {
  if (proc == null || WRAPPED.has(proc) || typeof proc.invoke !== "function") return;
  WRAPPED.add(proc);
  const invoke = proc.invoke;
  proc.invoke = function observedInvoke(input, config) {
    const probe = TASKS.get(config?.configurable?.__pregel_task_id);
    if (probe === undefined) return invoke.call(this, input, config);
    return currentTask.run(probe, async () => {
      probe.begin();
      try {
        const result = await invoke.call(this, input, config);
        probe.returned(result);
        return result;
      } catch (error) {
        probe.failed(error);
        throw error;
      }
    });
  };
}

// ---- one task -----------------------------------------------------------------------------------

class TaskProbe {
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
    if (this.hasResult && error === undefined) {
      event.result = sameAsWrites(this.result, task.writes) ? { $type: "same_as_writes" } : loop.encode(this.result);
    }
    if (error !== undefined || this.hasError) {
      // the node's own throw (a bare string stays a string); LangGraph.js may have wrapped it since
      event.error = encodeError(this.hasError ? this.error : error);
      if (isInterrupt(this.hasError ? this.error : error)) loop.interruptedBy.set(this.id, this.hasError ? this.error : error);
    }
    if (this.routes.length) event.routes = this.routes.map(([name, chosen]) => [name, loop.encode(chosen)]);
    // as in Python's recorder: failed attempts a RetryPolicy retried; the last one's error is the task's own
    const attempts = this.hasError && !isBubbleUp(this.error) ? this.attempts.slice(0, -1) : this.attempts;
    if (attempts.length) event.attempts = attempts;
    loop.out.emit(event);
  }
}

function sameAsWrites(result, writes) {
  if (result === null || typeof result !== "object" || Object.getPrototypeOf(result) !== Object.prototype) return false;
  const keys = Object.keys(result);
  if (writes.length < keys.length) return false;
  return keys.every((key, i) => writes[i][0] === key && writes[i][1] === result[key]);
}

// ---- one run of one graph -------------------------------------------------------------------------

class LoopProbe {
  constructor(ctx, loop, params) {
    this.ctx = ctx;
    this.out = ctx.out;
    this.run = ctx.nextRun++;
    const known = GRAPHS.get(params.nodes);
    this.keys = known?.stateKeys ?? Object.keys(loop.channels).filter((k) => !/^(__|branch:|join:)/.test(k));
    this.keys = this.keys.filter((k) => k in loop.channels);
    this.trackers = new Map(this.keys.map((k) => [k, new DeltaTracker()]));
    this.versions = {};
    this.memo = new Map();
    this.lastAfter = new Map();
    this.seenTasks = new Set();
    this.interruptedBy = new Map();
    this.grouped = null;
    this.inFirst = false;
    this.quiet = false;
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
      started_at: new Date().toISOString(),
    });
    this.started = performance.now();
  }

  encode(value) {
    return encode(value, this.memo);
  }

  // ---- tasks ----------------------------------------------------------------------------------

  planned(loop) {
    const versions = loop.checkpoint.channel_versions;
    for (const task of Object.values(loop.tasks)) {
      if (this.seenTasks.has(task.id)) continue;
      this.seenTasks.add(task.id);
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
      if (task.writes.length === 0) {
        TASKS.set(task.id, new TaskProbe(this, task, loop.step));
        observeProc(task.proc);
      } else {
        this.out.emit({ e: "task_done", run: this.run, step: loop.step, id: task.id, writes: task.writes.map(([c, v]) => [c, this.encode(v)]) });
      }
    }
    this.out.flush();
  }

  /** `{"$view": keys}` when a node's input is the recorded state (the usual case), else its encoding. */
  inputView(value) {
    if (value === null || typeof value !== "object" || Object.getPrototypeOf(value) !== Object.prototype) return this.encode(value);
    const keys = Object.keys(value);
    for (const key of keys) {
      const tracker = this.trackers.get(key);
      const raw = tracker?.raw;
      const current = value[key];
      if (tracker === undefined || !(raw === current || (raw === MISSING && current === undefined))) return this.encode(value);
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
    const sink = (i, before, after, error) => this.call(step, key, reducer, writers[i], before, values[i], after, error);
    return observeChannelUpdate(channel, values, update, sink, this.ctx.lg);
  }

  call(step, key, reducer, [writer, writerName], before, write, after, error) {
    const tracker = this.trackers.get(key);
    const enc = (v) => this.encode(v);
    const beforeDelta = tracker.delta(before, enc);
    const afterDelta = error !== undefined ? SAME : tracker.delta(after, enc);
    const call = { channel: key, reducer, writer, writer_name: writerName, write: this.encode(write), before: beforeDelta, after: afterDelta };
    if (error !== undefined) call.error = encodeError(error);
    else this.lastAfter.set(key, after);
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
    this.out.emit({ e: "checkpoint", run: this.run, step, config: plainCheckpointConfig(config), parent: parent ? plainCheckpointConfig(parent) : null });
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
      interrupts = (error.interrupts ?? []).map((i) => this.interrupt(i));
    } else if (name === "GraphRecursionError") status = "recursion_limit";
    else if (name === "ParentCommand" && this.parentRun !== null) status = "interrupted";
    else status = "error";
    if (status === "out_of_steps") status = "recursion_limit";
    let output = loop.output;
    if (output === undefined && error !== undefined) output = this.stateOutput();
    const event = { e: "end", run: this.run, status, output: encode(output), duration: round((performance.now() - this.started) / 1000) };
    // as in Python's recorder: an interrupt() keeps its GraphInterrupt; a breakpoint (no interrupts) has none
    if (error !== undefined && (status !== "interrupted" || interrupts.length)) event.error = encodeError(error);
    if (interrupts.length) event.interrupts = interrupts;
    this.out.emit(event);
    this.out.flush();
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

// ---- one channel's update, a write at a time ------------------------------------------------------

/** Runs LangGraph.js's own `update(values)` and reports each write as one reducer call to `sink(i, before,
 * after, error)`, in the order the channel folds them; re-throws what `update` throws, after reporting the
 * writes it refused with the channel's own error. */
function observeChannelUpdate(channel, values, update, sink, lg) {
  const kind = channel.lc_graph_name;
  if (kind === "BinaryOperatorAggregate") return observeBinop(channel, values, update, sink, lg);
  const before = channelValue(channel);
  if (kind === "Topic") {
    const changed = update.call(channel, values);
    let acc = channel.accumulate && Array.isArray(before) ? before.slice() : [];
    for (let i = 0; i < values.length; i++) {
      const previous = acc.length ? acc.slice() : MISSING;
      acc = acc.concat(Array.isArray(values[i]) ? values[i] : [values[i]]);
      sink(i, previous, acc.slice(), undefined);
    }
    return changed;
  }
  let changed;
  try {
    changed = update.call(channel, values);
  } catch (error) {
    for (let i = 0; i < values.length; i++) sink(i, before, MISSING, error);
    throw error;
  }
  if (["LastValue", "LastValueAfterFinish", "AnyValue", "EphemeralValue", "UntrackedValue"].includes(kind)) {
    let previous = before;
    for (let i = 0; i < values.length; i++) {
      sink(i, previous, values[i], undefined);
      previous = values[i];
    }
  } else {
    // a channel kind folded as one batch: each write shown against the batch's result (checked at commit)
    const after = channelValue(channel);
    for (let i = 0; i < values.length; i++) sink(i, before, after, undefined);
  }
  return changed;
}

function observeBinop(channel, values, update, sink, lg) {
  const overwrite = (v) => (lg.getOverwriteValue ? lg.getOverwriteValue(v) : [false, v]);
  let current = channel.value;
  if (values.length === 1 && current !== undefined && !overwrite(values[0])[0]) {
    // the usual step: one plain write into a value, exactly one operator call
    let changed;
    try {
      changed = update.call(channel, values);
    } catch (error) {
      sink(0, current, MISSING, error);
      throw error;
    }
    sink(0, current, channel.value, undefined);
    return changed;
  }
  const operator = channel.operator;
  const calls = [];
  channel.operator = (left, right) => {
    const result = operator(left, right);
    calls.push([left, result]);
    return result;
  };
  let failure;
  let changed;
  try {
    changed = update.call(channel, values);
  } catch (error) {
    failure = error;
  } finally {
    channel.operator = operator;
  }
  // Attribute the calls to the writes exactly as BinaryOperatorAggregate.update walks them.
  let done = 0;
  let seenOverwrite = false;
  let next = 0;
  for (let i = 0; i < values.length; i++) {
    const [isOverwrite, value] = overwrite(values[i]);
    if (i === 0 && current === undefined) {
      sink(i, MISSING, value, undefined);
      current = value;
      done = 1;
      continue;
    }
    if (isOverwrite) {
      if (seenOverwrite) break; // the second Overwrite of a step: refused below
      sink(i, current, value, undefined);
      current = value;
      seenOverwrite = true;
    } else if (!seenOverwrite) {
      const pair = calls[next++];
      if (pair === undefined) break; // the operator threw on this write
      sink(i, pair[0], pair[1], undefined);
      current = pair[1];
    }
    done = i + 1;
  }
  if (failure !== undefined) {
    for (let i = done; i < values.length; i++) sink(i, current, MISSING, failure);
    throw failure;
  }
  return changed;
}

// ---- helpers --------------------------------------------------------------------------------------

function channelValue(channel) {
  if (channel === undefined) return MISSING;
  if (channel.lc_graph_name === "BinaryOperatorAggregate") return channel.value === undefined ? MISSING : channel.value;
  if (Array.isArray(channel.value) && channel.lc_graph_name !== "Topic") return channel.value.length ? channel.value[0] : MISSING;
  try {
    return channel.get();
  } catch {
    return MISSING;
  }
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
    Array.isArray(part) ? plainPath(part) : ["string", "number", "boolean"].includes(typeof part) ? part : String(part?.name ?? part),
  );
}

function plainConfig(config) {
  const plain = {};
  for (const [key, value] of Object.entries(config)) {
    if (["callbacks", "configurable", "metadata", "signal", "store", "writer", "interrupt", "control", "serverInfo", "context"].includes(key)) continue;
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
  for (const key of ["thread_id", "checkpoint_ns", "checkpoint_id"]) if (key in configurable) kept[key] = configurable[key];
  return { configurable: kept };
}

function round(seconds) {
  return Math.round(seconds * 1e6) / 1e6;
}
