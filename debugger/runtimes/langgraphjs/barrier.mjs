// One channel's `update`, a write at a time: LangGraph.js's own update runs, and each write it folds is
// reported as one reducer call (value before, the write, value after, or the channel's own error), in the
// order the channel folds them. Mirrors debugger/runtimes/langgraph/recorder/superstep.py for Python langgraph.

import { MISSING } from "./codec.mjs";

/** Runs LangGraph.js's own `update(values)` and reports each write as one reducer call to `sink(i, before,
 * after, error)`, in the order the channel folds them; re-throws what `update` throws, after reporting the
 * writes it refused with the channel's own error. */
export function observeChannelUpdate(channel, values, update, sink, lg) {
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
  // LangGraph.js's own test gives `[false, undefined]` for a plain write: the write is then its own value
  const overwrite = (v) => {
    const [isOverwrite, value] = lg.getOverwriteValue ? lg.getOverwriteValue(v) : [false, v];
    return isOverwrite ? [true, value] : [false, v];
  };
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

/** The value a channel holds, or MISSING when it is empty. */
export function channelValue(channel) {
  if (channel === undefined) return MISSING;
  if (channel.lc_graph_name === "BinaryOperatorAggregate") return channel.value === undefined ? MISSING : channel.value;
  if (Array.isArray(channel.value) && channel.lc_graph_name !== "Topic")
    return channel.value.length ? channel.value[0] : MISSING;
  try {
    return channel.get();
  } catch {
    return MISSING;
  }
}
