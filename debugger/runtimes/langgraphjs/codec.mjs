// JavaScript values as StepScope's recorded values (`engine/codec.py`), and the deltas that keep a trace small.
//
// encode(value) takes a deep, JSON-able snapshot, so a node that later mutates a list in place cannot
// rewrite history. JSON types stay as they are; everything else is a tagged dict `{"$type": ...}`, with the
// tags engine/codec.py decodes:
//
//   undefined                 {"$type": "undefined"}   (null stays null: the two are kept apart)
//   NaN, Infinity, -Infinity  {"$type": "float", "value": "nan" | "inf" | "-inf"}   (Python's repr)
//   BigInt                    {"$type": "int", "hex": "0x..."}                      (decodes to a Python int)
//   Date                      {"$type": "repr", "class": "Date", "repr": ISO text}
//   Map                       {"$type": "dict", "class": "Map", "items": [[k, v], ...]}
//   Set                       {"$type": "set", "class": "Set", "items": [...]}     (insertion order)
//   LangChain messages        {"$type": "message", "message": {"type", "data"}}    (as encode_message)
//   Send / Command / Overwrite  their engine tags
//   Error                     {"$type": "error", "class", "module": "js", "message", "notes", "traceback"}
//   class instances           {"$type": "object", "class": Name, "fields": {own enumerable fields}}
//   functions, symbols, ...   {"$type": "repr", "class", "repr"}; cycles and depth > MAX_DEPTH add "cut"
//
// A plain object with a "$type", "$blob" or "$blobs" key is wrapped as {"$type": "dict", "items": ...}.
//
// DeltaTracker mirrors engine/codec.py's: items are compared by identity against the last recorded
// value, so a list that only grew costs what was added, not its whole length.

import { inspect } from "node:util";

export const TYPE = "$type";
const RESERVED = new Set(["$type", "$blob", "$blobs"]);
export const MAX_DEPTH = 60;
const MAX_REPR = 2000;
export const MISSING = Object.freeze({ [TYPE]: "missing" });
export const SAME = Object.freeze({ same: true });
export const UNDEFINED = Object.freeze({ [TYPE]: "undefined" });
const MESSAGE_TYPES = new Set(["human", "ai", "system", "tool", "remove", "function"]); // the engine's own; others are objects

/** The snapshot of `value` (see the header for the tags). Never throws. */
export function encode(value, memo) {
  try {
    return encodeValue(value, 0, new Set(), memo);
  } catch (error) {
    return asRepr(value, `unencodable: ${error?.name ?? typeof error}`);
  }
}

function encodeValue(value, depth, active, memo) {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      if (Number.isFinite(value)) return value;
      return { [TYPE]: "float", value: Number.isNaN(value) ? "nan" : value > 0 ? "inf" : "-inf" };
    case "undefined":
      return UNDEFINED;
    case "bigint":
      return { [TYPE]: "int", hex: value < 0n ? `-0x${(-value).toString(16)}` : `0x${value.toString(16)}` };
    case "symbol":
      return asRepr(value);
    case "function":
      return { [TYPE]: "repr", class: "Function", repr: `[Function ${value.name || "anonymous"}]` };
  }
  if (value === null) return null;
  if (memo !== undefined) {
    const hit = memo.get(value);
    if (hit !== undefined) return hit;
  }
  if (depth > MAX_DEPTH) return asRepr(value, "depth");
  if (active.has(value)) return asRepr(value, "cycle");
  active.add(value);
  try {
    const encoded = encodeObject(value, depth + 1, active, memo);
    if (memo !== undefined) memo.set(value, encoded);
    return encoded;
  } finally {
    active.delete(value);
  }
}

function encodeObject(value, depth, active, memo) {
  const inner = (item) => encodeValue(item, depth, active, memo);
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = inner(value[i]);
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto === Object.prototype || proto === null) {
    const keys = Object.keys(value);
    if (keys.some((k) => RESERVED.has(k))) return { [TYPE]: "dict", items: keys.map((k) => [k, inner(value[k])]) };
    const out = {};
    for (const k of keys) out[k] = inner(value[k]);
    return out;
  }
  if (isMessage(value)) return { [TYPE]: "message", message: encodeMessage(value, inner) };
  if (value.lg_name === "Send") return { [TYPE]: "Send", node: value.node, arg: inner(value.args) };
  if (value.lg_name === "Overwrite") return { [TYPE]: "Overwrite", value: inner(value.value) };
  if (value.lg_name === "Command") {
    const fields = {};
    for (const k of ["graph", "update", "resume", "goto"]) {
      const v = value[k];
      if (v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0)) fields[k] = inner(v);
    }
    return { [TYPE]: "Command", fields };
  }
  if (value instanceof Error) return encodeError(value);
  if (value instanceof Date) {
    return {
      [TYPE]: "repr",
      class: "Date",
      repr: Number.isNaN(value.getTime()) ? "Invalid Date" : value.toISOString(),
    };
  }
  if (value instanceof Map) {
    return { [TYPE]: "dict", class: "Map", items: Array.from(value, ([k, v]) => [inner(k), inner(v)]) };
  }
  if (value instanceof Set) return { [TYPE]: "set", class: "Set", items: Array.from(value, inner) };
  if (value instanceof Promise || value instanceof WeakMap || value instanceof WeakSet || ArrayBuffer.isView(value)) {
    return asRepr(value);
  }
  if (value instanceof RegExp) return { [TYPE]: "repr", class: "RegExp", repr: String(value) };
  if (value instanceof String || value instanceof Number || value instanceof Boolean) {
    return { [TYPE]: "repr", class: className(value), repr: String(value), value: inner(value.valueOf()) };
  }
  const fields = {};
  for (const k of Object.keys(value)) fields[k] = inner(value[k]);
  return { [TYPE]: "object", class: className(value), fields };
}

function className(value) {
  return value?.constructor?.name || "Object";
}

/** A LangChain JS message (`@langchain/core/messages`), known by its shape, not by importing core. */
export function isMessage(value) {
  const ns = value.lc_namespace;
  return (
    Array.isArray(ns) &&
    ns[ns.length - 1] === "messages" &&
    "content" in value &&
    typeof value.type === "string" &&
    MESSAGE_TYPES.has(value.type)
  );
}

/** `engine.codec.encode_message`'s shape: content (and a tool message's tool_call_id) always, other
 * fields only when they differ from their defaults, so a chat reads the same from JS and Python. */
function encodeMessage(message, inner) {
  const data = { content: message.type === "remove" ? "" : inner(message.content) };
  if (message.type === "tool") data.tool_call_id = inner(message.tool_call_id);
  for (const key of ["additional_kwargs", "response_metadata", "name", "id", "usage_metadata", "artifact"]) {
    const v = message[key];
    if (v === undefined || v === null || v === false || v === "") continue;
    if (typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0) continue;
    data[key] = inner(v);
  }
  if (message.type === "tool" && message.status && message.status !== "success") data.status = message.status;
  for (const key of ["tool_calls", "invalid_tool_calls"]) {
    const calls = message[key];
    if (!Array.isArray(calls) || calls.length === 0) continue;
    data[key] = calls.map((call) => inner(call)); // as LangGraph.js holds them: no "type" added (Python's has one)
  }
  return { type: message.type, data };
}

/** An error (or anything thrown) with its own name, message uncut and stack, as the trace schema's error
 * record: LangGraph.js's `lc_error_code`, an AggregateError's errors and an Error's own extra fields are kept as
 * notes (the record has no fields of its own for them). A thrown non-Error (`throw {code: 42}`) is recorded with
 * its kind as class, its JSON (util.inspect's text where JSON fails: a cycle, a BigInt, a Symbol) as message and
 * the note "a thrown object, not an Error", where String() had made it "[object Object]". */
export function encodeError(error) {
  if (!(error instanceof Error)) return encodeThrown(error);
  const notes = [];
  if (error.lc_error_code !== undefined) notes.push(`lc_error_code: ${error.lc_error_code}`);
  if (Array.isArray(error.errors)) {
    for (const inner of error.errors)
      notes.push(`${inner?.name ?? typeof inner}: ${inner?.message ?? thrownText(inner)}`);
  }
  for (const key of Object.keys(error)) {
    if (!ERROR_OWN.has(key)) notes.push(`${key}: ${thrownText(error[key])}`);
  }
  return {
    [TYPE]: "error",
    class: error.name || className(error),
    module: "js",
    message: String(error.message ?? ""),
    notes,
    traceback: typeof error.stack === "string" ? error.stack : "",
  };
}

// Fields every Error (or LangGraph.js's) has, already in the record or its notes.
const ERROR_OWN = new Set(["name", "message", "stack", "lc_error_code", "errors", "cause", "pregelTaskId"]);

function encodeThrown(value) {
  const kind = thrownKind(value);
  return {
    [TYPE]: "error",
    class: kind,
    module: "js",
    message: typeof value === "string" ? value : thrownText(withoutTaskId(value)),
    notes: [`a thrown ${kind}, not an Error`],
    traceback: "",
  };
}

/** The value as the node threw it: LangGraph.js stamps its own pregelTaskId on a thrown object. */
function withoutTaskId(value) {
  if (value === null || typeof value !== "object" || !Object.hasOwn(value, "pregelTaskId")) return value;
  const { pregelTaskId: _, ...own } = value;
  return own;
}

function thrownKind(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value !== "object") return typeof value;
  const name = className(value);
  return name === "Object" ? "object" : `${name} object`;
}

/** JSON where it says all of the value, else util.inspect's text (cycles, BigInt, Symbol, undefined). */
function thrownText(value) {
  try {
    const json = JSON.stringify(value);
    if (typeof json === "string" && typeof value !== "symbol") return json;
  } catch {
    // a cycle or a BigInt: inspect tells them
  }
  try {
    return inspect(value, { depth: 6, breakLength: Infinity });
  } catch {
    return safeString(value);
  }
}

function safeString(value) {
  try {
    return String(value);
  } catch {
    return `<${typeof value}>`;
  }
}

function asRepr(value, cut) {
  let text;
  try {
    text = typeof value === "symbol" ? value.toString() : Object.prototype.toString.call(value);
    if (typeof value === "object" && value !== null) {
      const name = className(value);
      text = cut ? `<${name} ${cut === "cycle" ? "[Circular]" : "nested too deep"}>` : `<${name}>`;
    }
  } catch {
    text = "<unrepresentable>";
  }
  if (text.length > MAX_REPR) text = `${text.slice(0, MAX_REPR - 1)}…`;
  const out = {
    [TYPE]: "repr",
    class: typeof value === "object" && value !== null ? className(value) : typeof value,
    repr: text,
  };
  if (cut) out.cut = cut;
  return out;
}

const isPlain = (v) =>
  v !== null &&
  typeof v === "object" &&
  (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null);

/** The last recorded value of one channel (engine/codec.py DeltaTracker, in JavaScript). */
export class DeltaTracker {
  constructor() {
    this.raw = MISSING;
    this.items = null;
    this.encoded = MISSING;
  }

  /** How `next` differs from the snapshot; then the snapshot becomes `next`. */
  delta(next, enc) {
    const old = this.items;
    if (Array.isArray(next) && Array.isArray(old)) {
      const common = commonPrefix(old, next);
      let result;
      if (common === old.length && common === next.length) result = SAME;
      else if (common === old.length) {
        const added = next.slice(common);
        result = { extend: added.map(enc) };
        old.push(...added);
      } else {
        const changed = next.slice(common);
        result = { splice: common, items: changed.map(enc) };
        old.length = common;
        old.push(...changed);
      }
      this.raw = next;
      this.encoded = MISSING;
      return result;
    }
    if (isPlain(next) && old instanceof Map && !Object.keys(next).some((k) => RESERVED.has(k))) {
      const merged = {};
      let any = false;
      for (const k of Object.keys(next)) {
        if (!old.has(k) || old.get(k) !== next[k]) {
          merged[k] = enc(next[k]);
          any = true;
        }
      }
      const dropped = [...old.keys()].filter((k) => !Object.prototype.hasOwnProperty.call(next, k));
      this.raw = next;
      this.items = new Map(Object.entries(next));
      if (!any && dropped.length === 0) return SAME;
      return dropped.length ? { merge: merged, drop: dropped } : { merge: merged };
    }
    if (next === this.raw && (next === MISSING || typeof next !== "object" || next === null)) return SAME;
    this.encoded = enc(next);
    this.raw = next;
    this.items = Array.isArray(next)
      ? next.slice()
      : isPlain(next) && !Object.keys(next).some((k) => RESERVED.has(k))
        ? new Map(Object.entries(next))
        : null;
    return { set: this.encoded };
  }
}

function commonPrefix(old, next) {
  const limit = Math.min(old.length, next.length);
  if (limit && old[limit - 1] === next[limit - 1]) {
    let i = 0;
    while (i < limit && old[i] === next[i]) i++;
    if (i === limit) return limit;
    return i;
  }
  for (let i = 0; i < limit; i++) if (old[i] !== next[i]) return i;
  return limit;
}

/** True when two recorded encodings are the same value. */
export function sameEncoding(a, b) {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}
