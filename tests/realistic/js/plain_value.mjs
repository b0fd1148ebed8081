// A LangGraph.js value read as plain JSON in plain_state.py's shape, without StepScope's codec: a message as
// its type and own fields, a Set as {set}, a Date as {repr}, an interrupt (an item of __interrupt__) as its value.
export function plain(value, key) {
  if (Array.isArray(value)) return value.map((item) => (key === "__interrupt__" ? { interrupt: plain(item.value) } : plain(item)));
  if (value instanceof Set) return { set: Array.from(value, (item) => plain(item)) };
  if (value instanceof Date) return { repr: value.toISOString() };
  if (value && typeof value === "object" && typeof value._getType === "function") {
    const message = { type: value._getType(), content: value.content };
    for (const name of ["id", "name", "tool_call_id"]) if (value[name]) message[name] = value[name];
    if (Array.isArray(value.tool_calls) && value.tool_calls.length) message.tool_calls = plain(value.tool_calls);
    return message;
  }
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v, k)]));
  return value;
}
