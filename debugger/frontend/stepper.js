// The StepScope stepper: one front-end for every host (the Streamlit page, the one-file HTML export, a
// notebook widget). It takes a run's view model as data (built once in Python, debugger/model/stepper_data.py)
// and steps in the browser: buttons, slider, arrow keys, Home/End, pan and zoom of the drawing.
//
// Data is text, never markup: every value, name and sentence is put in the page with textContent. The one
// piece of markup is the drawing, graphviz's SVG of escaped DOT, parsed as SVG (scripts and links dropped).
//
// Hosts call `mount(root, data, {onStep})`; the returned handle's `update(data)` gives new data (another
// window of a long run's steps, a step moved by the host). `onStep(step, index)` reports each move.

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
const KEYS = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
const TYPING = new Set(["INPUT", "TEXTAREA", "SELECT"]);

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

function table(head, rows) {
  const t = el("table");
  const tr = el("tr");
  head.forEach((h) => tr.append(el("th", h)));
  t.append(tr);
  rows.forEach((r) => t.append(r));
  return t;
}

function row(cells, cls) {
  const tr = el("tr", undefined, cls);
  cells.forEach((c) => tr.append(el("td", c)));
  return tr;
}

// graphviz's SVG as a node tree; anything active a drawing never needs is dropped on the way in
function parseSvg(text) {
  const doc = new DOMParser().parseFromString(text, "image/svg+xml");
  const svg = doc.documentElement;
  if (!svg || svg.nodeName !== "svg") return null;
  svg.querySelectorAll("script, foreignObject").forEach((n) => n.remove());
  svg.querySelectorAll("*").forEach((n) => {
    for (const a of [...n.attributes]) {
      if (/^on/i.test(a.name) || /href$/i.test(a.name)) n.removeAttribute(a.name);
    }
  });
  return document.importNode(svg, true);
}

class Stepper {
  constructor(root, data, options) {
    this.root = root;
    this.onStep = options.onStep || (() => {});
    this.index = 0;
    this.reported = [];
    this.view = { scale: 1, x: 0, y: 0, chosen: undefined };
    this.build();
    this.update(data, true);
    this.keys = (e) => this.key(e);
    // a page with one stepper steps on keys anywhere in it; a notebook, with many widgets between cells
    // that the notebook's own arrow keys move through, steps only the widget that has the focus (clicked)
    this.keyTarget = options.focusKeys ? root : root.ownerDocument || document;
    if (options.focusKeys) {
      root.tabIndex = 0;
      root.dataset.lmSuppressShortcuts = "true"; // JupyterLab (Lumino) leaves keys inside this element alone
    }
    this.keyTarget.addEventListener("keydown", this.keys);
  }

  build() {
    this.root.replaceChildren();
    const frame = el("div", undefined, "stepscope-stepper");
    this.bar = el("div", undefined, "bar");
    this.buttons = {};
    const button = (name, act) => {
      const b = el("button", "", "move");
      b.dataset.move = name;
      b.addEventListener("click", act);
      this.buttons[name] = b;
      return b;
    };
    this.slider = el("input");
    this.slider.type = "range";
    this.slider.min = "0";
    this.slider.className = "slider";
    this.slider.addEventListener("input", () => this.go(Number(this.slider.value)));
    // the steps with findings, as ticks on the slider (and 🔎 beside the step's number)
    this.ticks = el("datalist");
    this.ticks.id = "stepscope-ticks-" + Math.random().toString(36).slice(2);
    this.slider.setAttribute("list", this.ticks.id);
    this.at = el("span", "", "at");
    this.bar.append(
      button("first", () => this.go(0)),
      button("prev", () => this.go(this.index - 1)),
      this.slider,
      button("next", () => this.go(this.index + 1)),
      button("last", () => this.go(this.count() - 1)),
      this.at,
      this.ticks,
    );
    this.status = el("p", "", "status");
    const top = el("div", undefined, "top");
    this.graph = el("div", undefined, "graph stepscope-graph");
    this.zoomBar = el("div", undefined, "zoom stepscope-zoom");
    this.zoomButtons = {};
    for (const [name, factor] of [["in", 1.25], ["out", 0.8], ["fit", 0]]) {
      const b = el("button", name === "in" ? "+" : name === "out" ? "−" : "");  // "fit": the page's word (update)
      b.dataset.zoom = name;
      this.zoomButtons[name] = b;
      b.addEventListener("click", () => (factor ? this.zoom(factor) : this.fit(true)));
      this.zoomBar.append(b);
    }
    this.canvas = el("div", undefined, "canvas stepscope-canvas");
    this.graph.append(this.zoomBar, this.canvas);
    this.side = el("div", undefined, "side");
    this.summary = el("div", undefined, "summary");
    this.aside = el("div", undefined, "aside");
    this.side.append(this.summary, this.aside);
    top.append(this.graph, this.side);
    this.legend = el("p", "", "legend");
    this.panels = el("div", undefined, "panels");
    frame.append(this.status, this.bar, top, this.legend, this.panels);
    this.root.append(frame);
    this.panZoom();
  }

  update(data, first) {
    const drawingChanged = first || !this.data || data.drawing_id !== this.data.drawing_id;
    const previous = this.data;
    // a live run's host (data.live) sends the steps recorded so far, more as they arrive: the place is the
    // user's, at the newest step it follows them, and the host's step counts only on a new drawing
    const place = data.live && previous && previous.count && !drawingChanged
      ? { step: this.stepNumber(this.index), newest: this.index >= previous.count - 1 } : null;
    this.data = data;
    const L = data.labels;
    this.buttons.first.textContent = L.first;
    this.buttons.prev.textContent = L.prev;
    this.buttons.next.textContent = L.next;
    this.buttons.last.textContent = L.last;
    this.slider.setAttribute("aria-label", L.superstep);
    this.zoomButtons.fit.textContent = L.fit;
    this.zoomButtons.fit.title = L.fit_help;
    this.zoomButtons.in.title = L.zoom_in;
    this.zoomButtons.out.title = L.zoom_out;
    this.slider.max = String(Math.max(0, this.count() - 1));
    this.marked = new Set(data.marked || []);
    this.ticks.replaceChildren(...[...this.marked].map((step) => {
      const o = el("option");
      o.value = String(this.indexOf(step));
      return o;
    }));
    this.legend.textContent = L.legend;
    this.status.textContent = data.status_line || "";
    this.status.className = "status " + (data.status_kind || "");
    this.root.dataset.learn = data.learn ? "1" : "";
    // what the host shows beside every step (the page's lesson): folded boxes of text
    this.aside.replaceChildren(...(data.aside || []).map((item) => {
      const box = el("details", undefined, "lesson");
      box.open = true;
      box.append(el("summary", item.title));
      item.text.split(/\n\s*\n/).forEach((paragraph) => box.append(el("p", paragraph)));
      if (item.caption) box.append(el("p", item.caption, "caption"));
      return box;
    }));
    if (drawingChanged) {
      this.canvas.replaceChildren();
      const svg = data.svg ? parseSvg(data.svg) : null;
      if (svg) this.canvas.append(svg);
      this.svg = svg;
      this.nodes = svg ? [...svg.querySelectorAll("g.stepscope-node")] : [];
      this.nodes.forEach((g) => this.markPlaces(g));
      this.edges = svg ? [...svg.querySelectorAll("g.stepscope-edge")] : [];
      for (const g of this.edges) {
        g.stepscopeShapes = [...g.querySelectorAll("path, polygon")];
        for (const shape of g.stepscopeShapes) {
          shape.stepscopeLaidOut = Object.fromEntries(LOOKED.map((name) => [name, shape.getAttribute(name)]));
        }
      }
      this.graph.dataset.fit = data.large ? "fit" : "natural";
      this.graph.style.height = data.height + "px";
      this.view.chosen = undefined;
    }
    // the host moved the step (a link, another tab): follow it; data that only answers a move this stepper
    // reported (the page's rerun after it; quick presses can be several reruns behind) leaves it where it is
    if (place) {
      this.follow(place);
      return;
    }
    const answered = this.reported.indexOf(data.at_step);
    if (answered >= 0) this.reported.splice(0, answered + 1);
    const hostMoved = first || drawingChanged || (answered < 0 && data.at_step !== this.stepNumber(this.index));
    const index = hostMoved ? data.at : this.index;
    if (hostMoved) this.reported = [];
    this.show(Math.max(0, Math.min(this.count() - 1, index)), drawingChanged);
  }

  count() {
    return this.data ? this.data.count : 0;
  }

  // a live run's new data: stay at the step shown, or at the newest one when that is where the user was; a
  // move of its own (following) is reported, so the host's step (the page's URL) follows too
  follow(place) {
    const found = this.indexOf(place.step);
    const index = place.newest ? this.count() - 1 : found >= 0 ? found : this.data.at;
    this.show(Math.max(0, Math.min(this.count() - 1, index)), false);
    const step = this.stepNumber(this.index);
    if (step !== this.data.at_step && step !== place.step) {
      this.reported.push(step);
      this.onStep(step, this.index);
    }
  }

  stepAt(index) {
    const w = this.data.window;
    return index >= w.offset && index < w.offset + w.steps.length ? w.steps[index - w.offset] : null;
  }

  stepNumber(index) {
    const n = this.data.numbers;
    return Array.isArray(n) ? n[index] : n.first + index;
  }

  go(index) {
    if (!this.count()) return;
    index = Math.max(0, Math.min(this.count() - 1, index));
    if (index === this.index && this.stepAt(index)) return;
    this.show(index, false);
    this.reported.push(this.stepNumber(index));
    this.onStep(this.stepNumber(index), index);
  }

  key(e) {
    if (!this.root.isConnected || e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
    const target = e.composedPath ? e.composedPath()[0] : e.target;
    if (target === this.slider) return; // the focused slider moves itself on the arrow keys
    if (target && (TYPING.has(target.tagName) || target.isContentEditable)) return;
    let i = this.index;
    if (e.key in KEYS) i += KEYS[e.key];
    else if (e.key === "Home") i = 0;
    else if (e.key === "End") i = this.count() - 1;
    else return;
    e.preventDefault();
    this.go(i);
  }

  show(index, refit) {
    const L = this.data.labels;
    this.index = index;
    this.slider.value = String(index);
    const count = this.count();
    this.buttons.first.disabled = this.buttons.prev.disabled = index <= 0;
    this.buttons.next.disabled = this.buttons.last.disabled = index >= count - 1;
    // a focused button just disabled (Prev at the first step) drops the focus to the page: where keys are
    // the widget's own (a notebook), they would then step the notebook instead, so the widget keeps it
    const active = this.root.ownerDocument.activeElement;
    if (this.keyTarget === this.root && active && active.disabled && this.root.contains(active)) {
      this.root.focus({ preventScroll: true });
    }
    this.root.dataset.step = count ? String(this.stepNumber(index)) : "";
    if (!count) {
      this.at.textContent = L.no_steps;
      return;
    }
    this.at.textContent = L.at
      .replace("{step}", this.stepName(this.stepNumber(index)))
      .replace("{index}", String(index + 1))
      .replace("{count}", String(count)) + (this.marked.has(this.stepNumber(index)) ? " 🔎" : "");
    const s = this.stepAt(index);
    this.root.dataset.ready = s ? "1" : "";
    if (!s) {
      // a long run's step outside the window this host holds: the host sends its window
      this.summary.replaceChildren(el("p", L.loading, "caption"));
      this.panels.replaceChildren();
      return;
    }
    for (const g of this.nodes) {
      const state = s.nodes[g.id] || "idle";
      g.dataset.state = state;
      g.setAttribute("class", "node stepscope-node " + state); // as the server's drawings name a state
      this.restyle(g, state);
      g.stepscopeMarker.textContent = this.data.markers[state] || "";
      g.stepscopeNote.textContent = s.labels[g.id] || "";
    }
    const taken = new Set(s.edges);
    for (const g of this.edges) {
      const on = taken.has(g.id);
      g.toggleAttribute("data-taken", on);
      g.setAttribute("class", "edge stepscope-edge " + (on ? "taken" : "idle"));
      for (const shape of g.stepscopeShapes) {
        const look = on ? TAKEN[shape.tagName] || {} : {};
        for (const name of LOOKED) {
          const value = look[name] !== undefined ? look[name] : shape.stepscopeLaidOut[name];
          if (value === null) shape.removeAttribute(name);
          else shape.setAttribute(name, value);
        }
      }
    }
    this.summary.replaceChildren(...s.summary.map(([kind, text]) => el(kind === "heading" ? "h3" : "p", text, kind)));
    // a host with tables of its own (the page's tabs) shows the drawing, the bar and the summary only, and
    // so does a step with none yet (a live run's step running now)
    this.panels.replaceChildren(...(this.data.panels === false || s.panels === false ? [] : this.panelsOf(s)));
    if (refit) this.fit(false);
    else this.focus();
  }

  restyle(g, state) {
    const look = LOOKS[state] || {};
    for (const shape of g.stepscopeShapes) {
      for (const name of LOOKED) {
        const value = look[name] !== undefined ? look[name] : shape.stepscopeLaidOut[name];
        if (value === null) shape.removeAttribute(name);
        else shape.setAttribute(name, value);
      }
    }
  }

  // the marker sits in the empty cell graphviz left at the left of each node's name (drawing.py), a
  // step's note (the Sends a node ran) under the node: both SVG text, set with textContent
  markPlaces(g) {
    // an END node is two ellipses: the inner one is filled, both keep their own look as laid out
    g.stepscopeShapes = [...g.querySelectorAll("path, polygon, ellipse")];
    for (const shape of g.stepscopeShapes) {
      shape.stepscopeLaidOut = Object.fromEntries(LOOKED.map((name) => [name, shape.getAttribute(name)]));
    }
    const shape = g.stepscopeShapes[g.stepscopeShapes.length - 1];
    const box = shape ? shape.getBBox() : { x: 0, y: 0, width: 0, height: 0 };
    const text = (cls, x, y, anchor) => {
      const t = document.createElementNS("http://www.w3.org/2000/svg", "text");
      t.setAttribute("class", cls);
      t.setAttribute("x", String(x));
      t.setAttribute("y", String(y));
      t.setAttribute("text-anchor", anchor);
      // the node's first text, as laid out before (graphviz may nest its texts in a link or a group)
      const first = g.querySelector("text");
      (first ? first.parentNode : g).insertBefore(t, first);
      return t;
    };
    g.stepscopeNote = text("note", box.x + box.width / 2, box.y + box.height + 12, "middle");
    g.stepscopeMarker = text("marker", box.x + 14, box.y + box.height / 2 + 5, "middle");
  }

  stepName(number) {
    return number < 0 ? this.data.labels.input : String(number);
  }

  panelsOf(s) {
    const L = this.data.labels;
    const out = [];
    const learn = this.data.learn;
    const mergeRow = (m, where) => {
      const hidden = learn && !m.guessed;
      const cells = [m.index, m.channel, m.reducer, m.writer, m.before, m.write, hidden ? "?" : m.after,
        hidden ? L.guess_below : m.sentence];
      if (where !== undefined) cells.unshift(where);
      return row(cells, m.refused ? "refused" : m.repeated.length && !hidden ? "repeated" : "");
    };
    out.push(el("h4", L.merge_heading));
    if (s.merge.length) {
      out.push(table([L.col_index, L.col_key, L.col_reducer, L.col_writer, L.col_before, L.col_write, L.col_after,
        L.col_what], s.merge.map((m) => mergeRow(m))));
      out[out.length - 1].classList.add("merge");
    } else out.push(el("p", L.no_merge, "caption"));
    if (s.inside.length) {
      const box = el("details", undefined, "inside");
      box.open = true;
      box.append(el("summary", L.inside_heading));
      box.append(table([L.col_inside, L.col_index, L.col_key, L.col_reducer, L.col_writer, L.col_before, L.col_write,
        L.col_after, L.col_what], s.inside.flatMap((n) => n.merge.map((m) => mergeRow(m, n.where)))));
      out.push(box);
    }
    out.push(el("h4", L.state_heading));
    out.push(table([L.col_key, L.col_change, L.col_value], s.state.map(([k, kind, v]) => row([k, L["change_" + kind] || kind, v], kind))));
    out[out.length - 1].classList.add("state");
    if (this.data.findings === null) return out; // a run still going: its findings come once it ends
    const found = learn ? [] : s.findings.map((n) => this.data.findings[n]).filter(Boolean);
    out.push(el("h4", L.findings_heading));
    const box = el("div", undefined, "step-findings");
    if (found.length) {
      for (const f of found) {
        box.append(el("p", f.severity + ": " + f.title + " (" + f.where + ")", "finding"));
        if (f.explanation) box.append(el("p", f.explanation, "caption"));
        if (f.fix) box.append(el("pre", f.fix));
      }
    } else box.append(el("p", learn ? L.findings_kept : L.no_findings, "caption"));
    out.push(box);
    return out;
  }

  // pan (drag), zoom (buttons, Ctrl+wheel), fit (double-click); a big graph is shown at a readable size,
  // centred on the step's nodes, and keeps the zoom the user chose from step to step
  panZoom() {
    const g = this.graph;
    let drag = null;
    g.addEventListener("wheel", (e) => {
      if (!e.ctrlKey && !e.metaKey) return;
      e.preventDefault();
      const r = g.getBoundingClientRect();
      this.zoom(e.deltaY < 0 ? 1.15 : 1 / 1.15, e.clientX - r.left, e.clientY - r.top);
    }, { passive: false });
    g.addEventListener("pointerdown", (e) => {
      if (e.target.closest && e.target.closest(".zoom")) return;
      drag = { px: e.clientX, py: e.clientY, x: this.view.x, y: this.view.y };
      g.classList.add("dragging");
    });
    window.addEventListener("pointermove", (e) => {
      if (!drag) return;
      this.view.x = drag.x + e.clientX - drag.px;
      this.view.y = drag.y + e.clientY - drag.py;
      this.apply();
    });
    window.addEventListener("pointerup", () => {
      drag = null;
      g.classList.remove("dragging");
    });
    g.addEventListener("dblclick", () => this.fit(true));
  }

  apply() {
    const v = this.view;
    this.canvas.style.transform = `translate(${v.x}px, ${v.y}px) scale(${v.scale})`;
  }

  size() {
    const box = this.svg.getBoundingClientRect();
    return [box.width / this.view.scale, box.height / this.view.scale];
  }

  fit(forget) {
    if (!this.svg) return;
    if (forget) this.view.chosen = undefined;
    const top = this.zoomBar.offsetHeight;
    const [w, h] = this.size();
    const fw = this.graph.clientWidth, fh = this.graph.clientHeight - top;
    if (!w || !h || !fw) return;
    let scale = Math.min(1.2, fw / w, fh / h);
    if (this.graph.dataset.fit === "natural") scale = Math.min(1, scale);
    Object.assign(this.view, { scale, x: (fw - w * scale) / 2, y: top + Math.max(0, (fh - h * scale) / 2) });
    this.apply();
    if (!forget) this.focus();
  }

  focus() {
    if (!this.svg || this.graph.dataset.fit !== "fit") return;
    const readable = this.view.chosen || this.data.readable_zoom || 0.8;
    const [w, h] = this.size();
    const top = this.zoomBar.offsetHeight;
    if (Math.min(this.graph.clientWidth / w, (this.graph.clientHeight - top) / h) >= readable) return;
    const marked = this.nodes.filter((n) => n.dataset.state === "ran" || n.dataset.state === "failed");
    const targets = marked.length ? marked : this.nodes.filter((n) => n.dataset.state === "next");
    if (!targets.length) return;
    const base = this.canvas.getBoundingClientRect();
    const boxes = targets.map((t) => t.getBoundingClientRect());
    const s = this.view.scale;
    const ux = ((Math.min(...boxes.map((b) => b.left)) + Math.max(...boxes.map((b) => b.right))) / 2 - base.left) / s;
    const uy = ((Math.min(...boxes.map((b) => b.top)) + Math.max(...boxes.map((b) => b.bottom))) / 2 - base.top) / s;
    this.view.scale = readable;
    this.view.x = this.graph.clientWidth / 2 - ux * readable;
    this.view.y = top + (this.graph.clientHeight - top) / 2 - uy * readable;
    this.apply();
  }

  zoom(factor, cx, cy) {
    const v = this.view;
    if (cx === undefined) [cx, cy] = [this.graph.clientWidth / 2, this.graph.clientHeight / 2];
    const next = Math.max(0.1, Math.min(6, v.scale * factor));
    v.x = cx - ((cx - v.x) * next) / v.scale;
    v.y = cy - ((cy - v.y) * next) / v.scale;
    v.scale = next;
    v.chosen = next;
    this.apply();
  }

  indexOf(step) {
    const n = this.data.numbers;
    return Array.isArray(n) ? n.indexOf(step) : step - n.first;
  }

  // the host sets a step by its number (a notebook's `w.step = 3`)
  moveTo(step) {
    const index = this.indexOf(step);
    if (index >= 0 && index < this.count() && index !== this.index) this.show(index, false);
  }

  destroy() {
    this.keyTarget.removeEventListener("keydown", this.keys);
  }
}

export function mount(root, data, options = {}) {
  return new Stepper(root, data, options);
}

// The Streamlit host (st.components.v2): called on every rerun with that rerun's data, in the same
// parent element; the stepper is kept between calls, so a rerun never redraws what the browser shows.
const mounted = new WeakMap();
let moves = Date.now() * 1000; // each reported move is new to the page, even the same step again

function streamlitHost(component) {
  const { data, parentElement, setStateValue } = component;
  let stepper = mounted.get(parentElement);
  if (!stepper) {
    const root = document.createElement("div");
    root.className = "stepscope-host";
    parentElement.append(root);
    stepper = mount(root, data, { onStep: (step) => setStateValue("move", { step, seq: ++moves }) });
    mounted.set(parentElement, stepper);
  } else {
    stepper.update(data, false);
  }
  // until the rest of the page has come, its root says so (a browser test waits for the whole page)
  stepper.root.toggleAttribute("data-first-paint", Boolean(data.report_drawn));
  if (data.report_drawn && !stepper.drawnSaid) {
    // a new session's page waits for its graph to be on screen before it sends the rest: said once the
    // browser has painted the frame that draws it (the task after that frame's)
    stepper.drawnSaid = true;
    requestAnimationFrame(() => setTimeout(() => setStateValue("drawn", true), 0));
  }
  return undefined; // nothing to clean up between reruns: the same stepper serves the next one
}

// anywidget (notebooks) calls the default export without arguments and takes {render} from it;
// Streamlit calls it with its component arguments.
export default function stepscope(component) {
  if (component && component.parentElement) return streamlitHost(component);
  return {
    render({ model, el: root }) {
      const stepper = mount(root, model.get("data"), {
        focusKeys: true,
        onStep: (step) => {
          model.set("step", step);
          model.save_changes();
        },
      });
      model.on("change:data", () => stepper.update(model.get("data"), false));
      model.on("change:step", () => stepper.moveTo(model.get("step")));
      return () => stepper.destroy();
    },
  };
}
