// A LangGraph.js checkpointer thread rebuilt by LangGraph.js's own code (request `mode: "thread"` of
// recorder.mjs), as debugger/runtimes/langgraph/threads/rebuild.py rebuilds a Python one:
//
//   {"app", "export", "mode": "thread", "checkpointer": {"kind": "sqlite" | "postgres", "url"},
//    "thread_id", "checkpoint_id"?, "label", "index"?, "newest"?, "step"?}
//
// Without `index` the whole thread is listed and decoded; with it (every checkpoint's [namespace, id, parent
// id], which Python reads without decoding), only the `newest` steps or the one `step` asked for are
// decoded, so a long thread's first view costs what it shows.
//
// The app's saver package (`@langchain/langgraph-checkpoint-sqlite` / `-postgres`, resolved from the app's
// folder as node resolves it) is opened READ-ONLY (better-sqlite3's `readonly`, PostgreSQL sessions with
// `default_transaction_read_only=on`; `setup()`, which creates tables, is never run) and lists the thread's
// checkpoints with their pending writes. For each checkpoint C and its child, the step between them is
// planned again with LangGraph.js's `_prepareNextTasks` on C (task ids derive from the checkpoint, so they
// match the stored writes), each task gets its stored writes, and LangGraph.js's `_applyWrites` folds them
// through the graph's real channels, which the recorder's patches watch (every reducer call, as in a live
// recording). The child's stored values then become the channels (the stored value is the truth from
// there on); a key whose rebuilt value differs is a mismatch. A task that ran a subgraph has its own
// checkpoints under `<node>:<task id>`: rebuilt the same way, nested under the task. The events are the
// recorder's own (reader.py), so Python's one trace writer files them as it files a live run.

import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { describeGraph } from "./describe.mjs";
import { encode, encodeError } from "./codec.mjs";
import { GRAPHS, LoopProbe, OWNERS, currentTask } from "./probe.mjs";
import { sharingDecodes } from "./shared_decode.mjs";

const NULL_TASK_ID = "00000000-0000-0000-0000-000000000000";
const ERROR = "__error__";
const INTERRUPT = "__interrupt__";
const RESUME = "__resume__";
const INPUT = "__input__";
const GRAPH_IDS = { next: 100000 }; // apart from the ids of graphs the patches register while running

export class ThreadRefusal extends Error {}

/** Rebuilds the request's thread and emits its runs; a thread that cannot be read ends in one `fatal` line.
 * Whole (no `index`): every checkpoint listed and decoded in one pass. With `index` (every checkpoint's
 * [namespace, id, parent id], read by Python without decoding) and `newest` or `step`: only the checkpoints
 * that part needs are decoded, one by one (`saved`), as debugger/runtimes/langgraph/threads/reader.py does. */
export async function replayThread({ graph, lg, ctx, request, out, appFile, packageEntry }) {
  const opened = await openSaver(request.checkpointer ?? {}, appFile, packageEntry);
  try {
    const threadId = String(request.thread_id ?? "");
    const label = String(request.label ?? "the checkpointer");
    const replay = new ThreadReplay({ graph, lg, ctx, out, saver: opened.saver, threadId, label });
    if (Array.isArray(request.index)) replay.index(request.index);
    else await replay.listAll();
    const head = request.checkpoint_id ? String(request.checkpoint_id) : replay.newestRoot();
    if (!replay.byNs.get("")?.size)
      throw new ThreadRefusal(
        `no thread ${JSON.stringify(threadId)} in ${label}; \`stepscope threads --checkpointer ${label}\` lists them`,
      );
    if (request.step !== undefined && request.step !== null) await replay.readStep(graph, head, Number(request.step));
    else await replay.readRun([], graph, head, request.newest ?? undefined);
    out.emit({ e: "result", output: null, seconds: 0, cpu_seconds: 0 });
  } finally {
    await opened.close();
  }
}

/** The app's saver package for `kind` ("sqlite" | "postgres"), resolved from the app's folder as node resolves
 * it, and its entry file; refused in one line when the app's folder has no such package. */
export async function saverPackage(kind, appFile, packageEntry) {
  const require = createRequire(appFile);
  const name = `@langchain/langgraph-checkpoint-${kind === "postgres" ? "postgres" : "sqlite"}`;
  const entry = packageEntry(require, name, ".", "import");
  if (entry === null)
    throw new ThreadRefusal(`${name} is not installed for ${appFile}: run \`npm install ${name}\` in the app's folder`);
  return { module: await import(pathToFileURL(entry).href), entry };
}

/** Opens the app's saver read-only; refuses in one line when the app's folder has no such package. */
export async function openSaver({ kind, url }, appFile, packageEntry) {
  const { module, entry } = await saverPackage(kind, appFile, packageEntry);
  const own = createRequire(entry); // its own driver, as the app's saver loads it
  if (kind === "postgres") {
    const { Pool } = own("pg");
    // every transaction of these sessions is read-only: the server refuses any write
    const pool = new Pool({
      connectionString: url,
      options: "-c default_transaction_read_only=on",
      max: 2,
      connectionTimeoutMillis: 10000,
    });
    const saver = new module.PostgresSaver(pool);
    saver.isSetup = true;
    saver.serde = sharingDecodes(saver.serde); // each message of the thread revived once, not once a checkpoint
    return { saver, close: () => pool.end() };
  }
  const Database = own("better-sqlite3");
  let db;
  try {
    db = new Database(url, { readonly: true, fileMustExist: true }); // SQLite itself refuses every write
  } catch (error) {
    throw new ThreadRefusal(`cannot open ${url} read-only: ${firstLine(error)}`);
  }
  const saver = new module.SqliteSaver(db);
  saver.isSetup = true; // never run setup(): it creates tables
  saver.serde = sharingDecodes(saver.serde); // each message of the thread revived once, not once a checkpoint
  return { saver, close: async () => db.close() };
}

class ThreadReplay {
  constructor({ graph, lg, ctx, out, saver, threadId, label }) {
    Object.assign(this, { lg, ctx, out, saver, threadId, label, root: graph });
    this.byNs = new Map(); // namespace -> checkpoint id -> parent id: the thread's shape, nothing decoded
    this.loaded = new Map(); // "namespace|id" -> the decoded checkpoint tuple
    this.sorted = new Map(); // namespace -> its checkpoint ids, oldest first
  }

  /** Every checkpoint listed and decoded through the saver (a whole read). */
  async listAll() {
    try {
      for await (const saved of this.saver.list({ configurable: { thread_id: this.threadId } })) {
        const conf = saved.config.configurable;
        const ns = conf.checkpoint_ns ?? "";
        this.add(ns, conf.checkpoint_id, saved.parentConfig?.configurable?.checkpoint_id);
        this.loaded.set(`${ns}|${conf.checkpoint_id}`, saved);
      }
    } catch (error) {
      throw this.damaged(error);
    }
  }

  /** The thread's shape from Python's read of the saver's table: [namespace, id, parent id] per checkpoint. */
  index(keys) {
    for (const [ns, id, parent] of keys) this.add(String(ns ?? ""), String(id), parent ?? undefined);
  }

  add(ns, id, parent) {
    if (!this.byNs.has(ns)) this.byNs.set(ns, new Map());
    this.byNs.get(ns).set(id, parent ?? undefined);
  }

  newestRoot() {
    return [...(this.byNs.get("")?.keys() ?? [])].sort().at(-1);
  }

  damaged(error) {
    const why = `${error?.name ?? "Error"}: ${firstLine(error)}`;
    return new ThreadRefusal(
      `thread ${JSON.stringify(this.threadId)} in ${this.label} has damaged data (${why}): it cannot be replayed; ` +
        "`stepscope threads` lists the other threads",
    );
  }

  /** The checkpoint tuple, decoded the first time it is asked for. SqliteSaver's `getTuple` needs the
   * statements its `setup()` prepares, and `setup()` creates tables (never run on the app's file), so one
   * checkpoint is read by `list`: the newest of its namespace before the id that follows it (ids sort by time). */
  async saved(ns, id) {
    const where = `${ns}|${id}`;
    if (!this.loaded.has(where)) {
      const ids = this.sortedIds(ns);
      const next = ids[ids.indexOf(id) + 1];
      const config = { configurable: { thread_id: this.threadId, checkpoint_ns: ns } };
      const options = { limit: 1 };
      if (next !== undefined) options.before = { configurable: { checkpoint_id: next } };
      let saved;
      try {
        for await (const found of this.saver.list(config, options)) saved = found;
      } catch (error) {
        throw this.damaged(error);
      }
      if (saved?.config?.configurable?.checkpoint_id !== id)
        throw new ThreadRefusal(`no checkpoint ${JSON.stringify(id)} in thread ${JSON.stringify(this.threadId)}`);
      this.loaded.set(where, saved);
    }
    return this.loaded.get(where);
  }

  sortedIds(ns) {
    if (!this.sorted.has(ns)) this.sorted.set(ns, [...(this.byNs.get(ns)?.keys() ?? [])].sort());
    return this.sorted.get(ns);
  }

  /** The checkpoint `back` parent links before `head`, or undefined when its lineage is shorter. */
  ancestor(ns, head, back) {
    const parents = this.byNs.get(ns) ?? new Map();
    let current = head;
    for (let i = 0; i < back && current !== undefined; i++) current = parents.get(current);
    return current !== undefined && parents.has(current) ? current : undefined;
  }

  /** The checkpoints of `ns` from the first to `head` (default: the newest), following parent links; with
   * `newest`, only the last `newest + 1` of them (the newest steps and the state before them). */
  async lineage(ns, head, newest) {
    const parents = this.byNs.get(ns) ?? new Map();
    if (parents.size === 0) return [];
    const last = head ?? [...parents.keys()].sort().at(-1);
    if (!parents.has(last))
      throw new ThreadRefusal(`no checkpoint ${JSON.stringify(last)} in thread ${JSON.stringify(this.threadId)}`);
    const ids = [];
    for (let id = last; id !== undefined && parents.has(id); id = parents.get(id)) ids.push(id);
    ids.reverse();
    const shown = newest === undefined ? ids : ids.slice(-(newest + 1));
    const chain = [];
    for (const id of shown) chain.push(await this.saved(ns, id));
    return chain;
  }

  /** Root step `step` alone (the checkpoints before and after it), then the thread's ending as a second run
   * from its newest checkpoint `head` (threads.py joins them): the root steps are numbered one per
   * checkpoint along the lineage, so the head's own step says which ancestor is `step`. */
  async readStep(graph, head, step) {
    const last = Number((await this.saved("", head)).metadata?.step ?? -1);
    const at = step < last ? this.ancestor("", head, last - step) : undefined;
    if (at === undefined) return this.readRun([], graph, head, step === last ? 1 : 0);
    await this.readRun([], graph, at, 1);
    await this.readRun([], graph, head, 0);
  }

  async readRun(ns, graph, head, newest) {
    const nsKey = ns.join("|");
    const chain = await this.lineage(nsKey, head, newest);
    if (chain.length === 0) return;
    await this.register(graph);
    const first = chain[0];
    const channels = await this.channelsOf(graph, first);
    const loop = {
      channels,
      checkpoint: first.checkpoint,
      tasks: {},
      step: Number(first.metadata?.step ?? -1),
      config: { configurable: { thread_id: this.threadId, checkpoint_ns: nsKey } },
      checkpointNamespace: ns,
      updatedChannels: undefined,
      startedAt: first.checkpoint.ts,
    };
    const probe = new LoopProbe(this.ctx, loop, {
      nodes: graph.nodes,
      input: first.checkpoint.channel_values?.__start__,
      outputKeys: graph.outputChannels,
    });
    const run = new StoredRun(this, probe, loop, graph, ns);
    run.commit(loop.step, first, channels);
    for (let i = 1; i < chain.length; i++) await run.stepBetween(chain[i - 1], chain[i]);
    const lastId = chain.at(-1).config.configurable.checkpoint_id;
    const later = [...(this.byNs.get(nsKey)?.values() ?? [])].includes(lastId);
    await run.finish(chain.at(-1), later);
  }

  async register(graph) {
    if (GRAPHS.has(graph.nodes)) return;
    const gid = GRAPH_IDS.next++;
    this.out.emit({ e: "graph", gid, graph: await describeGraph(graph) });
    const stateKeys = graph.builder?.channels ? Object.keys(graph.builder.channels) : null;
    GRAPHS.set(graph.nodes, { graph, gid, stateKeys });
  }

  /** The graph's channels as LangGraph.js restores them from `saved` (delta channels replayed by the saver). */
  channelsOf(graph, saved) {
    const options = { saver: this.saver, config: saved.config };
    return this.lg.channelsFromCheckpoint(graph.channels, saved.checkpoint, options);
  }
}

/** One namespace's run: its channels carried from step to step, its probe, its loop stand-in. */
class StoredRun {
  constructor(replay, probe, loop, graph, ns) {
    Object.assign(this, { replay, probe, loop, graph, ns });
    this.subgraphs = new Map();
    for (const [name, sub] of graph.getSubgraphs?.() ?? []) this.subgraphs.set(name, sub);
  }

  /** A resume's or an update's writes (the null task's) first, as LangGraph.js's `_first` applies them. */
  applyNullWrites(saved, checkpoint) {
    const nulls = (saved.pendingWrites ?? []).filter(([task]) => task === NULL_TASK_ID).map(([, c, v]) => [c, v]);
    if (nulls.length === 0) return;
    this.probe.inFirst = true;
    try {
      this.apply(checkpoint, [{ name: INPUT, writes: nulls, triggers: [], path: [] }]);
    } finally {
      this.probe.inFirst = false;
    }
  }

  /** The tasks LangGraph.js plans on `saved` for `step`, each with its stored writes. */
  plan(saved, checkpoint, step) {
    const { nodes } = this.graph;
    const writes = saved.pendingWrites ?? [];
    const planned = this.replay.lg.prepareNextTasks(checkpoint, writes, nodes, this.loop.channels, saved.config, true, {
      step,
    });
    const tasks = Object.values(planned).map((task) => Object.assign(task, { writes: [] }));
    const byId = new Map(tasks.map((task) => [task.id, task]));
    for (const [taskId, channel, value] of saved.pendingWrites ?? []) {
      if (taskId === NULL_TASK_ID) continue;
      let task = byId.get(taskId);
      if (task === undefined) {
        // written by a task this graph does not plan: the graph is not the app's; shown, never guessed
        const name = "(unknown task)";
        task = { id: taskId, name, path: ["__pregel_pull", name], triggers: [], input: null, writes: [] };
        byId.set(taskId, task);
        tasks.push(task);
      }
      task.writes.push([channel, value]);
    }
    return tasks;
  }

  /** Emits the planned tasks, the subgraph runs nested in them, and what each stored task did. */
  async runTasks(step, tasks, checkpoint) {
    this.loop.step = step;
    this.loop.checkpoint = checkpoint;
    this.loop.tasks = Object.fromEntries(tasks.map((task) => [task.id, task]));
    for (const task of tasks) {
      this.probe.emitTask(this.loop, task);
      const sub = this.subgraphs.get(String(task.name));
      const childNs = [...this.ns, `${task.name}:${task.id}`];
      if (sub !== undefined && this.replay.byNs.has(childNs.join("|"))) {
        await currentTask.run({ run: this.probe.run, id: task.id }, () => this.replay.readRun(childNs, sub));
      }
      const { error } = outcome(task.writes);
      if (task.writes.length || error !== undefined) {
        const event = { e: "task_done", run: this.probe.run, step, id: task.id };
        event.writes = task.writes.map(([channel, value]) => [channel, this.probe.encode(value)]);
        if (error !== undefined) event.error = encodeError(error);
        this.replay.out.emit(event);
      }
    }
  }

  /** LangGraph.js's `_applyWrites` on the carried channels: every write to a state key is a recorded call. */
  apply(checkpoint, tasks) {
    this.probe.grouped = null;
    const { lg, saver } = this.replay;
    const nextVersion = saver.getNextVersion.bind(saver);
    return lg.applyWrites(checkpoint, this.loop.channels, tasks, nextVersion, this.graph.triggerToNodes);
  }

  async stepBetween(parent, child) {
    const step = Number(child.metadata?.step ?? Number(parent.metadata?.step ?? -1) + 1);
    const checkpoint = copyCheckpoint(parent.checkpoint);
    this.loop.step = step;
    this.applyNullWrites(parent, checkpoint);
    if (child.metadata?.source === "loop") {
      const tasks = this.plan(parent, checkpoint, step);
      await this.runTasks(step, tasks, checkpoint);
      try {
        this.apply(checkpoint, tasks.filter((task) => task.writes.length));
      } catch {
        // the app's run merged these writes (its child checkpoint exists): the graph given must differ;
        // the commit below records every key whose stored value is not what the calls gave
      }
    }
    // a new input (source "input") or an update (source "update") is a step without tasks, as a live recording has it
    this.commit(step, child, await this.replay.channelsOf(this.graph, child));
  }

  /** The stored checkpoint becomes the channels; the probe reports what no call explains and each key whose
   * last call's value is not the stored one (a mismatch), then the checkpoint itself. */
  commit(step, saved, channels) {
    this.loop.channels = channels;
    for (const key of this.probe.keys) if (key in channels) OWNERS.set(channels[key], { probe: this.probe, key });
    this.loop.checkpoint = saved.checkpoint;
    this.loop.updatedChannels = saved.checkpoint.updated_channels;
    this.probe.commit(this.loop, step);
    this.probe.checkpoint(step, saved.config, saved.parentConfig);
  }

  /** The last checkpoint: a step in progress (its pending writes), or done / paused. With `stopHere` (a
   * checkpoint the thread went on from, chosen as the end) the run stops there. */
  async finish(head, stopHere) {
    const step = Number(head.metadata?.step ?? -1) + 1;
    const checkpoint = copyCheckpoint(head.checkpoint);
    const end = (status, error, interrupts = []) => {
      const event = { e: "end", run: this.probe.run, status, output: encode(this.output()) };
      if (error !== undefined) event.error = encodeError(error);
      if (interrupts.length) event.interrupts = interrupts;
      this.replay.out.emit(event);
      this.replay.out.flush();
    };
    if (stopHere) return end(this.plan(head, checkpoint, step).length ? "running" : "done");
    this.applyNullWrites(head, checkpoint);
    const tasks = this.plan(head, checkpoint, step);
    if (tasks.length === 0) return end("done");
    await this.runTasks(step, tasks, checkpoint);
    const outcomes = tasks.map((task) => ({ task, ...outcome(task.writes) }));
    const failed = outcomes.find((o) => o.error !== undefined && o.interrupts.length === 0);
    if (failed) return end("error", failed.error);
    const asked = outcomes.filter((o) => o.interrupts.length);
    if (asked.length) {
      const interrupts = asked.flatMap(({ task, interrupts }) =>
        interrupts.map((i) => ({
          id: String(i?.id ?? ""),
          value: encode(i?.value),
          node: String(task.name),
          task: task.id,
        })),
      );
      return end("interrupted", undefined, interrupts);
    }
    if (tasks.every((task) => task.writes.length)) {
      try {
        // every task finished but no checkpoint followed: the merge failed, or the process stopped
        this.apply(checkpoint, tasks);
      } catch (error) {
        return end("error", error); // e.g. INVALID_CONCURRENT_GRAPH_UPDATE: what the live run threw
      }
      this.loop.checkpoint = checkpoint;
      this.probe.commit(this.loop, step);
      return end("running");
    }
    return end(this.atBreakpoint(tasks) ? "interrupted" : "running");
  }

  atBreakpoint(tasks) {
    const names = new Set(tasks.map((task) => String(task.name)));
    return [this.graph.interruptBefore, this.graph.interruptAfter].some(
      (nodes) => nodes === "*" || (Array.isArray(nodes) && nodes.some((n) => names.has(n))),
    );
  }

  /** The graph's output channels as they stand (what `invoke` would return). */
  output() {
    const keys = this.graph.outputChannels;
    const read = (key) => {
      try {
        return this.loop.channels[key]?.get();
      } catch {
        return undefined; // an empty channel
      }
    };
    if (typeof keys === "string") return read(keys);
    const values = {};
    for (const key of keys ?? this.probe.keys) {
      const value = read(key);
      if (value !== undefined) values[key] = value;
    }
    return values;
  }
}

/** (error, interrupts) of a stored task: its `__error__` write ({message, name}), or the interrupts of a
 * task that stopped at `interrupt()` without finishing (a task resumed and finished has its writes). */
function outcome(writes) {
  for (const [channel, value] of writes) {
    if (channel === ERROR) {
      const error = new Error(String(value?.message ?? value));
      error.name = String(value?.name ?? "Error");
      return { error, interrupts: [] };
    }
  }
  const interrupts = writes.filter(([c]) => c === INTERRUPT).flatMap(([, value]) => value ?? []);
  if (interrupts.length && writes.every(([c]) => c === INTERRUPT || c === RESUME)) {
    const error = new Error("interrupt");
    error.name = "GraphInterrupt";
    return { error, interrupts };
  }
  return { error: undefined, interrupts: [] };
}

/** What `_applyWrites` changes (versions, versions seen), copied; values are shared, never changed. */
function copyCheckpoint(checkpoint) {
  const versionsSeen = {};
  for (const [name, seen] of Object.entries(checkpoint.versions_seen ?? {})) versionsSeen[name] = { ...seen };
  return { ...checkpoint, channel_versions: { ...checkpoint.channel_versions }, versions_seen: versionsSeen };
}

function firstLine(error) {
  return String(error?.message ?? error).split("\n", 1)[0];
}


