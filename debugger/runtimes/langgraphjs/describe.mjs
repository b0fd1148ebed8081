// A LangGraph.js compiled graph as `engine.records.describe()` describes a Python one: name, nodes, edges,
// waiting edges, branches, channels (kind, reducer), control channels, input/output keys and LangGraph.js's
// own drawing (`getGraphAsync({xray})`) in `engine.draw.DrawableGraph.to_dict()`'s shape.

import { encode } from "./codec.mjs";

/** The description of `graph` (a compiled StateGraph, or any Pregel: then only what it says of itself). */
export async function describeGraph(graph) {
  const builder = graph.builder;
  const stateGraph = builder && builder.channels && builder.nodes && builder.branches;
  const description = {
    name: graph.name || "LangGraph",
    nodes: [],
    edges: [],
    waiting_edges: [],
    branches: [],
    channels: {},
    managed: {},
    input_keys: [],
    output_keys: typeof graph.outputChannels === "string" ? graph.outputChannels : [...(graph.outputChannels ?? [])],
    source: "langgraphjs",
  };
  if (stateGraph) {
    for (const [name, spec] of Object.entries(builder.nodes)) {
      description.nodes.push({
        name,
        subgraph: isPregel(spec.runnable) || (spec.subgraphs?.length ?? 0) > 0,
        defer: Boolean(spec.defer),
        metadata: encode(spec.metadata ?? {}),
      });
    }
    description.edges = [...builder.edges].map(([start, end]) => [start, end]).sort(compareLists);
    description.waiting_edges = [...(builder.waitingEdges ?? [])]
      .map(([starts, end]) => [[...starts], end])
      .sort(compareLists);
    for (const [source, byName] of Object.entries(builder.branches)) {
      for (const [name, branch] of Object.entries(byName)) {
        const targets = branch.ends
          ? Object.fromEntries(Object.entries(branch.ends).map(([k, v]) => [String(k), v]))
          : null;
        const described = { source, name, targets };
        const own = branch.path?.func?.name; // LangGraph.js names a plain function's branch "condition"
        if (own && own !== name) described.function = own;
        description.branches.push(described);
      }
    }
    for (const [key, channel] of Object.entries(builder.channels)) {
      description.channels[key] = {
        kind: channel.lc_graph_name ?? channel.constructor?.name ?? "channel",
        reducer: reducerName(channel),
      };
    }
    description.control_channels = controlChannels(Object.keys(builder.nodes), description.waiting_edges);
    description.input_keys = inputKeys(builder);
  } else {
    description.nodes = Object.keys(graph.nodes ?? {}).map((name) => ({
      name,
      subgraph: false,
      defer: false,
      metadata: {},
    }));
  }
  // the breakpoints the graph was compiled with (`compile({interruptBefore, interruptAfter})`), as node names
  const compiledNodes = Object.keys(graph.nodes ?? {}).filter((name) => name !== "__start__");
  const breakpoints = (nodes) => (nodes === "*" ? compiledNodes : Array.isArray(nodes) ? nodes.map(String) : []);
  // the class of the saver the app compiled its graph with (MemorySaver, SqliteSaver), null for none: what the
  // debugger says about the app's checkpointer is what it found here
  const saver = graph.checkpointer;
  description.checkpointer = saver && typeof saver === "object" ? (saver.constructor?.name ?? "checkpointer") : null;
  description.interrupt_before = breakpoints(graph.interruptBefore);
  description.interrupt_after = breakpoints(graph.interruptAfter);
  description.drawing = await drawing(graph, true);
  description.drawing_flat = await drawing(graph, false);
  return description;
}

function isPregel(value) {
  return Boolean(
    value && (value.lg_is_pregel || (typeof value.getGraphAsync === "function" && value.nodes && value.channels)),
  );
}

function compareLists(a, b) {
  const x = JSON.stringify(a);
  const y = JSON.stringify(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** LangGraph.js names its control channels as Python's does (`branch:to:x`, `join:a+b:x`). */
function controlChannels(nodes, waitingEdges) {
  const roles = { __start__: { role: "input" }, __pregel_tasks: { role: "sends" } };
  for (const node of nodes) roles[`branch:to:${node}`] = { role: "edge", target: node };
  for (const [starts, end] of waitingEdges) {
    if (end !== "__end__")
      roles[`join:${starts.join("+")}:${end}`] = { role: "waiting_edge", sources: [...starts], target: end };
  }
  return roles;
}

function inputKeys(builder) {
  const definition = builder._inputDefinition;
  if (definition && typeof definition === "object" && !Array.isArray(definition)) {
    const keys = Object.keys(definition.spec ?? definition).filter((k) => !k.startsWith("__") && !k.startsWith("lc_"));
    if (keys.length) return keys.filter((k) => k in builder.channels);
  }
  return Object.keys(builder.channels);
}

async function drawing(graph, xray) {
  try {
    const drawn =
      typeof graph.getGraphAsync === "function" ? await graph.getGraphAsync({ xray }) : graph.getGraph({ xray });
    return {
      nodes: Object.values(drawn.nodes).map((n) => ({
        id: n.id,
        name: n.name ?? n.id,
        metadata: n.metadata && Object.keys(n.metadata).length ? encode(n.metadata) : null,
      })),
      edges: drawn.edges.map((e) => ({
        source: e.source,
        target: e.target,
        data: e.data == null ? null : String(e.data),
        conditional: Boolean(e.conditional),
      })),
    };
  } catch {
    return { nodes: [], edges: [] }; // a graph LangGraph.js cannot draw is still recorded, undrawn
  }
}

const REDUCER_NAMES = new WeakMap();

/** A channel's reducer as the debugger shows it: the function's own name, else its (short) source. */
export function reducerName(channel) {
  const operator = channel.operator;
  if (typeof operator !== "function") return channel.lc_graph_name ?? channel.constructor?.name ?? "channel";
  let name = REDUCER_NAMES.get(operator);
  if (name === undefined) {
    name =
      operator.name && !["reducer", "anonymous", "operator"].includes(operator.name)
        ? operator.name
        : shortSource(operator);
    REDUCER_NAMES.set(operator, name);
  }
  return name;
}

function shortSource(fn) {
  const text = String(fn).replace(/\s+/g, " ").trim();
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}
