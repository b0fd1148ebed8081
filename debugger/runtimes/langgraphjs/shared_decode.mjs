// A saver's decoding that revives each distinct serialized LangChain object of a thread once.
//
// A LangGraph.js checkpoint stores the whole state, so a chat's message list is stored again in every
// checkpoint, and the checkpointer's JsonPlusSerializer revives every message of every checkpoint (an
// async walk that builds each message class anew): a window of 20 checkpoints of a 1,000-message chat
// revived 20,000 messages. Here a checkpoint's JSON is parsed once and walked without awaiting; each
// serialized object (`{"lc": ..., "type": ...}`: a message, a constructor record, `undefined`) is revived by
// the saver's own serializer from its JSON text, the first time that text is met, and the same decoded value
// is handed out for that text after. The reviver is context-free (an object decodes the same wherever it
// sits), so the decoded checkpoint is the one the saver's own decoding gives; the values are only read.

/** `serde` (the saver's serializer), decoding JSON through one cache for every checkpoint it reads. */
export function sharingDecodes(serde) {
  const revived = new Map(); // a serialized object's JSON text -> its decoded value
  return {
    dumpsTyped: (value) => serde.dumpsTyped(value),
    async loadsTyped(type, data) {
      if (type !== "json") return serde.loadsTyped(type, data);
      const text = typeof data === "string" ? data : new TextDecoder().decode(data);
      const missing = new Map(); // JSON text -> the places waiting for its decoded value
      const root = { value: JSON.parse(text) };
      walk(root, "value", revived, missing);
      for (const [key, places] of missing) {
        const value = await serde.loadsTyped("json", key);
        revived.set(key, value);
        for (const [holder, slot] of places) holder[slot] = value;
      }
      return root.value;
    },
  };
}

function walk(holder, slot, revived, missing) {
  const value = holder[slot];
  if (value === null || typeof value !== "object") return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) walk(value, i, revived, missing);
    return;
  }
  if (typeof value.lc === "number" && typeof value.type === "string") {
    const key = JSON.stringify(value);
    if (revived.has(key)) holder[slot] = revived.get(key);
    else if (missing.has(key)) missing.get(key).push([holder, slot]);
    else missing.set(key, [[holder, slot]]);
    return;
  }
  for (const key of Object.keys(value)) walk(value, key, revived, missing);
}
