// StepScope's recorder for LangGraph.js apps: `node recorder.mjs` reads one JSON request line on stdin,
//
//   {"app": "/abs/app.mjs", "export": "graph", "input": ..., "config": {...}, "resume": ..., "events_fd": 3}
//
// (`"example_input": true` in place of `input` runs the app's own `exampleInput`.)
//
// runs the app's graph with the app's own @langchain/langgraph (resolved from the app's folder, as node
// resolves it; the 1.x series) and writes what LangGraph.js's loop did as JSON lines, one event per line,
// to `events_fd` (stdout when absent). A separate fd keeps the app's own console.log out of the stream;
// writes are synchronous and flushed after each planned step and each committed barrier, so a killed node
// process leaves every committed superstep already sent. The events are documented in reader.py.

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import readline from "node:readline";
import { pathToFileURL } from "node:url";
import { encode, encodeError } from "./codec.mjs";
import { describeGraph } from "./describe.mjs";
import { answerForkRequest, withFreshSaver } from "./fork.mjs";
import { runLive } from "./live.mjs";
import { isMemorySaver, restoreThread, saveThread } from "./saved_thread.mjs";
import { openRunSaver } from "./run_saver.mjs";
import { forkThread } from "./thread_fork.mjs";
import { ThreadRefusal, replayThread } from "./thread_replay.mjs";
import { arm, install } from "./patches.mjs";

const CHANNEL_FILES = [
  "binop",
  "last_value",
  "any_value",
  "ephemeral_value",
  "untracked_value",
  "topic",
  "named_barrier_value",
  "dynamic_barrier_value",
  "delta",
];

class Out {
  constructor() {
    this.fd = 1;
    this.lines = [];
    this.size = 0;
  }
  emit(event) {
    const line = JSON.stringify(event);
    this.lines.push(line);
    this.size += line.length;
    if (this.size > 1 << 16) this.flush();
  }
  flush() {
    if (this.lines.length === 0) return;
    let data = Buffer.from(`${this.lines.join("\n")}\n`);
    this.lines = [];
    this.size = 0;
    while (data.length) {
      try {
        const written = fs.writeSync(this.fd, data);
        data = data.subarray(written);
      } catch (error) {
        if (error.code !== "EAGAIN") return; // the reader is gone: nothing left to tell
      }
    }
  }
}

const out = new Out();
let finished = false;

class Refusal extends Error {}

function refuse(message) {
  throw new Refusal(message);
}

/** stdin's lines: the request first; a live run reads its commands from the same lines after it. */
const stdinLines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity })[Symbol.asyncIterator]();

async function readRequest() {
  const { value, done } = await stdinLines.next();
  const text = done ? "" : value;
  try {
    return JSON.parse(text);
  } catch {
    return refuse(`the recorder's request is not JSON: ${text.slice(0, 80)}`);
  }
}

/** The app's @langchain/langgraph: its folder and version, found from the app's folder as node finds it. */
function resolveLangGraph(appFile) {
  const require = createRequire(appFile);
  let entry;
  try {
    entry = require.resolve("@langchain/langgraph");
  } catch {
    refuse(
      `@langchain/langgraph is not installed for ${appFile}: run \`npm install @langchain/langgraph @langchain/core\` in the app's folder`,
    );
  }
  let dir = path.dirname(entry);
  while (dir !== path.dirname(dir)) {
    const file = path.join(dir, "package.json");
    if (fs.existsSync(file)) {
      const pkg = JSON.parse(fs.readFileSync(file, "utf8"));
      if (pkg.name === "@langchain/langgraph") return { dir, version: String(pkg.version) };
    }
    dir = path.dirname(dir);
  }
  return refuse(`cannot find the package.json of @langchain/langgraph (resolved to ${entry})`);
}

/** How node loads the app: "esm" or "cjs" (a .js file by its nearest package.json `type`), and whether it needs tsx. */
function appFlavor(appFile) {
  const ext = path.extname(appFile);
  if ([".mjs", ".mts"].includes(ext)) return { module: "esm", ts: ext === ".mts" };
  if ([".cjs", ".cts"].includes(ext)) return { module: "cjs", ts: ext === ".cts" };
  let dir = path.dirname(appFile);
  while (dir !== path.dirname(dir)) {
    const file = path.join(dir, "package.json");
    if (fs.existsSync(file)) {
      const type = JSON.parse(fs.readFileSync(file, "utf8")).type;
      return { module: type === "module" ? "esm" : "cjs", ts: ext === ".ts" };
    }
    dir = path.dirname(dir);
  }
  return { module: "cjs", ts: ext === ".ts" };
}

/** The classes of the module instance the app uses (ES modules by file URL, or the CommonJS copies). */
async function loadLangGraph(dir, flavor) {
  const ext = flavor === "esm" ? ".js" : ".cjs";
  const require = createRequire(path.join(dir, "package.json"));
  const load = async (rel) => {
    const file = path.join(dir, "dist", `${rel}${ext}`);
    if (!fs.existsSync(file)) return {};
    return flavor === "esm" ? import(pathToFileURL(file).href) : require(file);
  };
  await load("index"); // the package's entry first: its own module order (a dist file first can break CommonJS cycles)
  const [loop, runner, pregel, graph, algo, constants, channelBase] = await Promise.all(
    ["pregel/loop", "pregel/runner", "pregel/index", "graph/graph", "pregel/algo", "constants", "channels/base"].map(
      load,
    ),
  );
  const missing = [
    [loop, "PregelLoop"],
    [runner, "PregelRunner"],
    [pregel, "Pregel"],
  ]
    .filter(([m, name]) => !m[name])
    .map(([, n]) => n);
  if (missing.length)
    refuse(
      `this @langchain/langgraph has no ${missing.join(", ")} where StepScope looks (dist/pregel): StepScope supports the 1.x series`,
    );
  const channelClasses = [];
  for (const file of CHANNEL_FILES) {
    for (const value of Object.values(await load(`channels/${file}`))) {
      if (typeof value === "function" && typeof value.prototype?.update === "function") channelClasses.push(value);
    }
  }
  return {
    PregelLoop: loop.PregelLoop,
    PregelRunner: runner.PregelRunner,
    Pregel: pregel.Pregel,
    Branch: graph.Branch,
    taskPathStr: algo.taskPathStr,
    getOverwriteValue: constants._getOverwriteValue,
    Command: constants.Command,
    MemorySaver: (await load("index")).MemorySaver,
    // what a stored thread is rebuilt with (thread_replay.mjs): LangGraph.js's own planning and barrier
    prepareNextTasks: algo._prepareNextTasks,
    applyWrites: algo._applyWrites,
    channelsFromCheckpoint: channelBase.channelsFromCheckpoint,
    channelClasses,
  };
}

async function importApp(appFile, flavor) {
  const require = createRequire(appFile);
  if (flavor.ts) {
    // tsx registered for the whole process (not tsImport's namespace, which would load a second, unwatched
    // copy of @langchain/langgraph); then the app loads as node would load it
    const esm = packageEntry(require, "tsx", "./esm/api", "import");
    const cjs = packageEntry(require, "tsx", "./cjs/api", "require");
    if (esm === null || cjs === null) {
      refuse(
        `${path.basename(appFile)} is TypeScript and tsx is not installed beside it: run \`npm install -D tsx\` in the app's folder`,
      );
    }
    (await import(pathToFileURL(esm).href)).register();
    createRequire(cjs)(cjs).register();
    return import(pathToFileURL(appFile).href);
  }
  try {
    return flavor.module === "esm" ? await import(pathToFileURL(appFile).href) : require(appFile);
  } catch (error) {
    if (error instanceof SyntaxError) refuse(`${syntaxErrorPlace(appFile, error)}: ${error.message}`);
    const first = String(error?.message ?? error).split("\n", 1)[0];
    return refuse(
      `${path.basename(appFile)} failed while loading (before any run): ${error?.name ?? "Error"}: ${first}`,
    );
  }
}

/** Where a syntax error is: node's own `--check` names the file and line (an ES module's SyntaxError does not). */
function syntaxErrorPlace(appFile, error) {
  const checked = spawnSync(process.execPath, ["--check", appFile], { encoding: "utf8" });
  const where = (checked.stderr ?? "").match(/^(.+):(\d+)$/m);
  if (where === null) return `${path.basename(appFile)} (or a module it imports) has a syntax error`;
  const file = path.resolve(where[1]) === appFile ? path.basename(appFile) : where[1];
  return `${file} has a syntax error at line ${where[2]}`;
}

/** The file a package's `exports[subpath]` names for `condition` (as node resolves it), or null when absent. */
function packageEntry(require, name, subpath, condition) {
  let manifest;
  try {
    manifest = require.resolve(`${name}/package.json`);
  } catch {
    return null;
  }
  const pkg = JSON.parse(fs.readFileSync(manifest, "utf8"));
  let target = pkg.exports?.[subpath];
  while (target && typeof target === "object") target = target[condition] ?? target.node ?? target.default;
  return typeof target === "string" ? path.join(path.dirname(manifest), target) : null;
}

/** The compiled graph `name` names: a compiled graph as it is, a StateGraph compiled here. */
function pickGraph(module, name, appFile) {
  const exports =
    module?.default && typeof module.default === "object" && !(name in module)
      ? { ...module.default, ...module }
      : module;
  const names = Object.keys(exports).filter((k) => k !== "__esModule");
  const graphs = names.filter((k) => isGraph(exports[k]) || isBuilder(exports[k]));
  const which = `its graphs: ${graphs.join(", ") || "(none)"}. Name one with ${path.basename(appFile)}:<export>`;
  if (!(name in exports))
    refuse(
      `${path.basename(appFile)} has no export "${name}"; its exports are: ${names.join(", ") || "(none)"}; ${which}`,
    );
  const value = exports[name];
  if (isGraph(value)) return value;
  if (isBuilder(value)) return value.compile();
  return refuse(
    `export "${name}" of ${path.basename(appFile)} is ${describeType(value)}, not a LangGraph.js graph (a compiled graph or a StateGraph); ${which}`,
  );
}

function isGraph(value) {
  return Boolean(value && typeof value.invoke === "function" && typeof value.stream === "function" && value.nodes);
}

function isBuilder(value) {
  return Boolean(value && typeof value.compile === "function" && value.nodes && !isGraph(value));
}

function describeType(value) {
  if (value === null) return "null";
  if (typeof value !== "object" && typeof value !== "function") return `a ${typeof value}`;
  return `a ${value.constructor?.name ?? typeof value}`;
}

async function main() {
  const request = await readRequest();
  if (Number.isInteger(request.events_fd)) out.fd = request.events_fd;
  const appFile = path.resolve(String(request.app ?? ""));
  if (!fs.existsSync(appFile)) refuse(`no such file: ${appFile}`);
  const { dir, version } = resolveLangGraph(appFile);
  if (!/^1\./.test(version)) {
    refuse(
      `the app uses @langchain/langgraph ${version} (${dir}); StepScope records the 1.x series: run \`npm install @langchain/langgraph@1\` in the app's folder`,
    );
  }
  const flavor = appFlavor(appFile);
  // a TypeScript app's imports become ES imports or require() as tsx compiles it: both instances are watched
  const instances = flavor.ts ? ["esm", "cjs"] : [flavor.module];
  const loaded = await Promise.all(instances.map((kind) => loadLangGraph(dir, kind)));
  out.emit({ e: "hello", langgraph: version, node: process.version, pid: process.pid, module: instances.join("+") });
  const contexts = loaded.map((lg) => install(lg, out));
  const module = await importApp(appFile, flavor);
  const picked = pickGraph(module, String(request.export ?? "graph"), appFile);
  const graph = request.fresh_saver ? withFreshSaver(picked, loaded[0]) : picked; // time travel's own copy
  if (request.mode === "describe") {
    // what the debugger shows before anything runs: the graph as drawn, and the lesson's own exports
    const lesson = {};
    for (const key of ["exampleInput", "exampleConfig", "title", "lesson", "pythonTwin"]) {
      if (module?.[key] !== undefined) lesson[key] = encode(module[key]);
    }
    out.emit({ e: "described", graph: await describeGraph(graph), module: lesson });
    finished = true;
    out.flush();
    process.exit(0);
  }
  if (request.mode === "thread") {
    // a checkpointer thread rebuilt step by step by LangGraph.js's own code (the app's graph never runs), or
    // with `fork`: time travel on a local copy of it (thread_fork.mjs)
    const { prepareNextTasks, applyWrites, channelsFromCheckpoint } = loaded[0];
    if (!prepareNextTasks || !applyWrites || !channelsFromCheckpoint)
      refuse("this @langchain/langgraph has no _prepareNextTasks, _applyWrites or channelsFromCheckpoint in dist/");
    try {
      const job = { graph: picked, lg: loaded[0], ctx: contexts[0], request, out, appFile, packageEntry };
      await (request.fork ? forkThread(job) : replayThread(job));
    } catch (error) {
      if (error instanceof ThreadRefusal) refuse(error.message);
      throw error;
    }
    finished = true;
    out.flush();
    process.exit(0);
  }
  if (request.mode === "history" || request.mode === "update") {
    const threadId = String(request.config?.configurable?.thread_id ?? "");
    if (request.thread_file) restoreThread(graph.checkpointer, threadId, request.thread_file);
    await answerForkRequest({ graph, request, out });
    if (request.thread_file) saveThread(graph.checkpointer, threadId, request.thread_file);
    finished = true;
    out.flush();
    process.exit(0);
  }
  if (request.mode === "live") {
    arm();
    await runLive({ graph, lg: loaded[0], config: request.config ?? {}, lines: stdinLines, out });
    finished = true;
    out.flush();
    process.exit(0);
  }
  const Command = loaded[0].Command;
  // `example_input`: the app's own `exampleInput`, made by its own classes (messages do not survive JSON)
  const given = request.example_input ? module.exampleInput : request.input;
  const input = request.resume !== undefined && request.resume !== null ? new Command({ resume: request.resume }) : given;
  if (request.checkpointer) {
    // `--checkpointer`: an app compiled without a saver runs on that database's (run_saver.mjs)
    try {
      graph.checkpointer = await openRunSaver(request.checkpointer, appFile, packageEntry);
    } catch (error) {
      refuse(`--checkpointer: ${String(error?.message ?? error).split("\n")[0]}`);
    }
  }
  // a MemorySaver thread outlives this process through a file beside the run store (saved_thread.mjs)
  const threadId = request.config?.configurable?.thread_id;
  const threadFile = request.thread_file && threadId && isMemorySaver(graph.checkpointer) ? request.thread_file : null;
  if (threadFile) {
    try {
      restoreThread(graph.checkpointer, String(threadId), threadFile);
    } catch (error) {
      refuse(error.message);
    }
  }
  arm();
  const started = performance.now();
  const cpu = process.cpuUsage();
  const took = () => {
    const used = process.cpuUsage(cpu);
    return { seconds: (performance.now() - started) / 1000, cpu_seconds: (used.user + used.system) / 1e6 };
  };
  try {
    const output = await graph.invoke(input, request.config ?? {});
    out.emit({ e: "result", output: encode(output), ...took() });
  } catch (error) {
    out.emit({ e: "result", error: encodeError(error), ...took() });
  }
  if (threadFile) saveThread(graph.checkpointer, String(threadId), threadFile);
  finished = true;
  out.flush();
  process.exit(0); // the app's timers or open handles must not keep a finished recording waiting
}

process.on("exit", (code) => {
  if (!finished) out.emit({ e: "exit", code });
  out.flush();
});
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    out.emit({ e: "stopped", signal });
    finished = true;
    out.flush();
    process.exit(signal === "SIGINT" ? 130 : 143);
  });
}
for (const kind of ["unhandledRejection", "uncaughtException"]) {
  process.on(kind, (error) => {
    out.emit({ e: "crash", kind, error: encodeError(error) });
    finished = true;
    out.flush();
    process.exit(1);
  });
}

main().catch((error) => {
  const text = error instanceof Refusal ? error.message : `${error?.name ?? "Error"}: ${error?.message ?? error}`;
  out.emit({ e: "fatal", message: text.split("\n", 1)[0], error: encodeError(error) });
  finished = true;
  out.flush();
  process.exit(2); // the app's own timers must not keep a refused recording waiting
});
