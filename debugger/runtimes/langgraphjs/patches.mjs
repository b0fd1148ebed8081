// The patches StepScope puts into the app's own @langchain/langgraph to watch a run (probe.mjs records
// what they see; the events are documented in reader.py).
//
// LangGraph.js has no hooks for a debugger, and its `_applyWrites` is an ES module binding nobody outside
// can replace, so the patches sit on the classes the loop calls through (the same module instances the
// app uses: recorder.mjs imports them by absolute file URL, or requires the CommonJS copies for a .cjs app):
//
//   PregelLoop.initialize       a run starts: a LoopProbe (nested under the running task, for a subgraph)
//   PregelLoop.tick             the tasks each tick plans; each task's runnable observed (input, return, error)
//   PregelLoop._first           the input barrier (its writes are the input's)
//   <channel>.update            the barrier: each state key's writes, in LangGraph.js's application order
//   PregelLoop._putCheckpoint   the barrier committed: versions, the committed state checked, checkpoints
//   PregelLoop.finishAndHandleError   the run ended: status, output, error, interrupts
//   PregelLoop._emit, _emitValuesWithCheckpointMeta   the values chunks invoke reads (its return, __interrupt__)
//   PregelRunner._commit        a task settled: its writes, in the node's own order
//   Pregel._streamIterator      which compiled graph a run belongs to (its description, its branch names)
//   <branch>.path.invoke        a conditional edge's own answer and the keys it read, filed under its task

import { describeGraph } from "./describe.mjs";
import { GRAPHS, LoopProbe, OWNERS, PROBES, TASKS, currentTask } from "./probe.mjs";

const WRAPPED = new WeakSet();
const ids = { run: 1, graph: 1 }; // shared by every instance patched (a TypeScript app may load two)
/** Root runs are recorded only once the recorder starts its own invoke (`arm()`): a run the app starts
 * while it is imported is the app's business. Runs inside a recorded task (subgraphs) always are. */
const recording = { armed: false };

/** From now on, runs that start outside any recorded task are root runs of the recording. */
export function arm() {
  recording.armed = true;
}

/** Installs the patches into one @langchain/langgraph module instance (`lg`: its classes and helpers); called
 * once per instance the app may use (its ES modules, or its CommonJS copies, or both for TypeScript). */
export function install(lg, out) {
  const ctx = { lg, out, ids, sortKey: makeSortKey(lg), observeProc };
  patchGraphs(lg, ctx);
  patchLoop(lg, ctx);
  patchRunner(lg);
  for (const channelClass of lg.channelClasses) patchChannel(channelClass);
  return ctx;
}

/** LangGraph.js's order of a step's tasks at the barrier (`_applyWrites`): by `writesSortKey(taskPathStr(path))`,
 * which is `[path string, "", 0]` there, compared by code point; a stable sort keeps ties in task order as theirs. */
function makeSortKey(lg) {
  const pathStr = lg.taskPathStr ?? fallbackPathStr;
  return (tasks) => {
    const keys = new Map(tasks.map((task) => [task, pathStr(task.path)]));
    return tasks.slice().sort((a, b) => compareCodePoints(keys.get(a), keys.get(b)));
  };
}

function fallbackPathStr(path) {
  if (Array.isArray(path)) return `~${path.map(fallbackPathStr).join(", ")}`;
  if (typeof path === "boolean") return path ? "0000000001" : "0000000000";
  if (typeof path === "number") return path < 0 ? `-${String(-path).padStart(9, "0")}` : String(path).padStart(10, "0");
  return path == null ? "~" : String(path);
}

const SURROGATE = /[\uD800-\uDFFF]/;

function compareCodePoints(a, b) {
  if (!SURROGATE.test(a) && !SURROGATE.test(b)) return a < b ? -1 : a > b ? 1 : 0; // code units = code points
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0) - y[i].codePointAt(0);
    if (d) return d;
  }
  return x.length - y.length;
}

function patchGraphs(lg, ctx) {
  const original = lg.Pregel.prototype._streamIterator;
  lg.Pregel.prototype._streamIterator = async function* observedStreamIterator(input, options) {
    if (this.nodes && !GRAPHS.has(this.nodes)) GRAPHS.set(this.nodes, await registerGraph(this, ctx));
    yield* original.call(this, input, options);
  };
}

async function registerGraph(graph, ctx) {
  const gid = ctx.ids.graph++;
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

/** A conditional edge's own answer and the state keys it read, filed under the task it runs in (routes run
 * inside the node's task). */
function observeBranch(branch, name) {
  const path = branch.path;
  if (!path || WRAPPED.has(path)) return;
  WRAPPED.add(path);
  const invoke = path.invoke;
  path.invoke = async function observedRoute(input, config) {
    const reads = new Set();
    const result = await invoke.call(this, readsWatched(input, reads), config);
    currentTask.getStore()?.routes.push([name, result, reads]);
    return result;
  };
}

/** The state a route is given, as an object whose keys note that they were read (a JavaScript route's
 * source cannot be read for them, as a Python one's is); a value set on it goes to the state itself. */
function readsWatched(input, reads) {
  if (input === null || typeof input !== "object" || Object.getPrototypeOf(input) !== Object.prototype) return input;
  const view = {};
  for (const key of Object.keys(input)) {
    Object.defineProperty(view, key, {
      enumerable: true,
      configurable: true,
      get: () => (reads.add(key), input[key]),
      set: (value) => (input[key] = value),
    });
  }
  return view;
}

function patchLoop(lg, ctx) {
  const Loop = lg.PregelLoop;
  const initialize = Loop.initialize;
  Loop.initialize = async function observedInitialize(params) {
    const loop = await initialize.call(this, params);
    if (recording.armed || currentTask.getStore() !== undefined) PROBES.set(loop, new LoopProbe(ctx, loop, params));
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
    if (this.checkpointer && after && after !== before)
      probe.checkpoint(step, this.checkpointConfig, this.prevCheckpointConfig);
    probe.out.flush();
    return result;
  };
  const emit = Loop.prototype._emit;
  Loop.prototype._emit = function observedEmit(values, namespace) {
    PROBES.get(this)?.streamed(values, namespace ?? this.checkpointNamespace);
    return emit.apply(this, arguments);
  };
  const emitValues = Loop.prototype._emitValuesWithCheckpointMeta; // the state chunks, which skip _emit
  Loop.prototype._emitValuesWithCheckpointMeta = function observedEmitValues(entries) {
    PROBES.get(this)?.streamed(entries, this.checkpointNamespace);
    return emitValues.apply(this, arguments);
  };
  const finish = Loop.prototype.finishAndHandleError;
  Loop.prototype.finishAndHandleError = async function observedFinish(error) {
    const probe = PROBES.get(this);
    if (probe === undefined) return finish.call(this, error);
    const calls = probe.calls;
    try {
      return await finish.call(this, error);
    } finally {
      // a paused step's finished branches are applied for the output, as getState applies them: its barrier
      if (probe.calls !== calls) probe.commit(this, this.step);
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
  if (typeof update !== "function" || Object.prototype.hasOwnProperty.call(channelClass.prototype, "__stepscope"))
    return;
  channelClass.prototype.__stepscope = true;
  channelClass.prototype.update = function observedUpdate(values) {
    const owner = OWNERS.get(this);
    if (owner === undefined || values.length === 0) return update.call(this, values);
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
