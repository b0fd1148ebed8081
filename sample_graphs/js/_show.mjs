/**
 * Printing helpers for the JavaScript lessons' `node sample_graphs/js/NAME.mjs` output: the twin of
 * ../_show.py. Not a lesson (the leading underscore keeps it out of the gallery's list).
 *
 * A lesson prints each run as `label: final state` (messages shortened to `type/content/id`) or
 * `label: ErrorName: message`; tests/js/lesson_outcomes.mjs reads the same outcomes as JSON records.
 */
import { realpathSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { isBaseMessage } from "@langchain/core/messages";

/** A LangChain JS message as the record the Python side uses: type, content, id, and its tool calls. */
export function messageRecord(message) {
  const record = { type: message.type ?? message._getType(), content: message.content, id: message.id ?? null };
  if (message.tool_calls?.length) {
    record.tool_calls = message.tool_calls.map(({ name, args, id }) => ({ name, args, id }));
  }
  if (message.tool_call_id) record.tool_call_id = message.tool_call_id;
  return record;
}

/** `value` with every message replaced by its record (JSON-ready, for comparing with Python). */
export function plain(value) {
  if (isBaseMessage(value)) return messageRecord(value);
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}

/** A message shortened to `type/content/id`: printed without quotes inside an array or object. */
class Brief {
  constructor(text) {
    this.text = text;
  }
}

/** `value` with every message shortened to `type/content/id` (plus its tool calls or the call it answers). */
export function brief(value) {
  if (isBaseMessage(value)) {
    const record = messageRecord(value);
    let text = `${record.type}/${record.content}/${record.id}`;
    if (record.tool_calls) {
      text += " calls " + record.tool_calls.map((c) => `${c.name}(${JSON.stringify(c.args)})#${c.id}`).join(", ");
    }
    if (record.tool_call_id) text += ` answers #${record.tool_call_id}`;
    return new Brief(text);
  }
  if (Array.isArray(value)) return value.map(brief);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, brief(v)]));
  return value;
}

/** `value` as one line of JSON-like text, with shortened messages unquoted (as ../_show.py prints them). */
export function format(value) {
  if (value instanceof Brief) return value.text;
  if (Array.isArray(value)) return `[${value.map(format).join(", ")}]`;
  if (value && typeof value === "object") {
    return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${format(v)}`).join(", ")}}`;
  }
  return JSON.stringify(value) ?? String(value);
}

/** `{ state }` from `graph.invoke`, or `{ error }` when it threw (the lesson may be the error itself). */
export async function outcome(graph, input, config) {
  try {
    return { state: await graph.invoke(input, config) };
  } catch (error) {
    return { error };
  }
}

/** An error as a JSON record: its class name, LangGraph's error code and its whole message. */
export function errorRecord(error) {
  return { name: error?.name ?? typeof error, code: error?.lc_error_code ?? null, message: String(error?.message ?? error) };
}

/** One readable line (or an indented block, for a multi-line error text), as ../_show.py's `describe`. */
export function describe(result) {
  if ("error" in result) {
    const { name, message } = errorRecord(result.error);
    return `${name}: ${message.trimEnd()}`.replaceAll("\n", "\n        ");
  }
  return format(brief(result.state));
}

/** Run `graph` on `input`, print `label: final state` (or the error) and return the outcome. */
export async function show(label, graph, input, config) {
  const result = await outcome(graph, input, config);
  console.log(`${label}: ${describe(result)}`);
  return result;
}

/** True when the module of `meta` is the script node was started with (not imported by another). */
export function isMain(meta) {
  return Boolean(process.argv[1]) && meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
}
