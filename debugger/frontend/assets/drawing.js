// The run's drawing, laid out once by graphviz (drawing.py gives every node and edge an id and a
// stepscope-node / stepscope-edge class), then painted per step: each node's state and marker, each
// edge taken or not. Nothing is laid out again between steps, so the drawing never moves.

import { parseSvg } from "./dom.js";

// a state's look, as the server's drawings had it (drawing.py's _NODE_STATES), applied in this order so
// that a later state wins; set as the shapes' own attributes, so every host draws a state the same
const LOOKS = {
  visited: { fill: "#d6ecff" },
  next: { "stroke-width": "2.5", "stroke-dasharray": "5,2" },
  ran: { fill: "#ffd45e", "stroke-width": "3" },
  stopped: { fill: "#e4e4e4", stroke: "#555555", "stroke-width": "2.5", "stroke-dasharray": "5,2" },
  running: { fill: "#c9f2c7", stroke: "#1a7f37", "stroke-width": "3", "stroke-dasharray": "5,2" },
  paused: { fill: "#ffefbf", stroke: "#b07d00", "stroke-width": "3" },
  failed: { fill: "#ffd6d6", stroke: "#cc0000", "stroke-width": "3" },
};
const LOOKED = ["fill", "stroke", "stroke-width", "stroke-dasharray"];
const TAKEN = { path: { stroke: "#b36b00", "stroke-width": "3" }, polygon: { stroke: "#b36b00", fill: "#b36b00" } };
const SVG_NS = "http://www.w3.org/2000/svg";

// each shape remembers its look as laid out, which a step's look overrides attribute by attribute
function laidOut(g, selector) {
  g.stepscopeShapes = [...g.querySelectorAll(selector)];
  for (const shape of g.stepscopeShapes) {
    shape.stepscopeLaidOut = Object.fromEntries(LOOKED.map((name) => [name, shape.getAttribute(name)]));
  }
}

function setLook(shape, look) {
  for (const name of LOOKED) {
    const value = look[name] !== undefined ? look[name] : shape.stepscopeLaidOut[name];
    if (value === null) shape.removeAttribute(name);
    else shape.setAttribute(name, value);
  }
}

// the marker sits in the empty cell graphviz left at the left of each node's name (drawing.py), a
// step's note (the Sends a node ran) under the node: both SVG text, set with textContent
function markPlaces(g) {
  const shape = g.stepscopeShapes[g.stepscopeShapes.length - 1];
  const box = shape ? shape.getBBox() : { x: 0, y: 0, width: 0, height: 0 };
  const text = (cls, x, y) => {
    const t = document.createElementNS(SVG_NS, "text");
    t.setAttribute("class", cls);
    t.setAttribute("x", String(x));
    t.setAttribute("y", String(y));
    t.setAttribute("text-anchor", "middle");
    // the node's first text, as laid out before (graphviz may nest its texts in a link or a group)
    const first = g.querySelector("text");
    (first ? first.parentNode : g).insertBefore(t, first);
    return t;
  };
  // the note goes right of the node, from its top: below it, it crossed the edge out and reached the
  // next node; the layout keeps no room for it, and the drawing shows what reaches past its box
  g.stepscopeNote = text("note", box.x + box.width + 6, box.y + 10);
  g.stepscopeNote.setAttribute("text-anchor", "start");
  g.stepscopeMarker = text("marker", box.x + 14, box.y + box.height / 2 + 5);
}

const NOTE_LINE = 40; // characters a note's line shows; the whole note is in its title (hover)

// a note of several lines (one per Send), one tspan a line, each cut to NOTE_LINE characters
function setNote(note, text) {
  note.replaceChildren();
  if (!text) return;
  const lines = text.split("\n");
  let cut = false;
  lines.forEach((line, i) => {
    const span = document.createElementNS(SVG_NS, "tspan");
    span.setAttribute("x", note.getAttribute("x"));
    if (i) span.setAttribute("dy", "1.2em");
    const chars = [...line]; // by code point: a cut never splits a character
    cut = cut || chars.length > NOTE_LINE;
    span.textContent = chars.length > NOTE_LINE ? chars.slice(0, NOTE_LINE - 1).join("") + "…" : line;
    note.append(span);
  });
  if (cut) {
    const title = document.createElementNS(SVG_NS, "title");
    title.textContent = text;
    note.append(title);
  }
}

export class Drawing {
  // `svg`: graphviz's text, put in `canvas` (it must be in the page: the marks are placed by its boxes)
  constructor(canvas, svg) {
    canvas.replaceChildren();
    this.svg = svg ? parseSvg(svg) : null;
    if (this.svg) canvas.append(this.svg);
    if (this.svg) this.svg.style.overflow = "visible"; // a node's note may reach past graphviz's box
    this.nodes = this.svg ? [...this.svg.querySelectorAll("g.stepscope-node")] : [];
    this.edges = this.svg ? [...this.svg.querySelectorAll("g.stepscope-edge")] : [];
    for (const g of this.nodes) {
      laidOut(g, "path, polygon, ellipse"); // an END node is two ellipses, each keeping its own look
      markPlaces(g);
    }
    this.edges.forEach((g) => laidOut(g, "path, polygon"));
  }

  // one step's look: `step.nodes` (id -> state), `step.labels` (id -> note), `step.edges` (the ids taken)
  paint(step, markers) {
    for (const g of this.nodes) {
      const state = step.nodes[g.id] || "idle";
      g.dataset.state = state;
      g.setAttribute("class", "node stepscope-node " + state); // as the server's drawings name a state
      const look = LOOKS[state] || {};
      g.stepscopeShapes.forEach((shape) => setLook(shape, look));
      g.stepscopeMarker.textContent = markers[state] || "";
      setNote(g.stepscopeNote, step.labels[g.id] || "");
    }
    const taken = new Set(step.edges);
    for (const g of this.edges) {
      const on = taken.has(g.id);
      g.toggleAttribute("data-taken", on);
      g.setAttribute("class", "edge stepscope-edge " + (on ? "taken" : "idle"));
      g.stepscopeShapes.forEach((shape) => setLook(shape, on ? TAKEN[shape.tagName] || {} : {}));
    }
  }

  // the nodes a big drawing centres on: those that ran (or failed) in the step, else those it triggers
  focused() {
    const marked = this.nodes.filter((n) => n.dataset.state === "ran" || n.dataset.state === "failed");
    return marked.length ? marked : this.nodes.filter((n) => n.dataset.state === "next");
  }
}
