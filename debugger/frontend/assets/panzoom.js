// The drawing's frame: pan (drag), zoom (buttons, Ctrl+wheel), fit (the button, double-click). A big
// graph is shown at a readable size, centred on the step's nodes, and keeps the zoom the user chose from
// step to step. A frame that changes size (the stylesheet arriving after the drawing, a resized window)
// fits again, unless the user has moved the drawing since.

import { el } from "./dom.js";

export class PanZoom {
  // builds the zoom buttons and the canvas the drawing goes in, inside `graph`
  constructor(graph) {
    this.graph = graph;
    this.view = { scale: 1, x: 0, y: 0, chosen: undefined };
    this.bar = el("div", undefined, "zoom stepscope-zoom");
    this.buttons = {};
    for (const [name, factor] of [["in", 1.25], ["out", 0.8], ["fit", 0]]) {
      const b = el("button", name === "in" ? "+" : name === "out" ? "−" : ""); // "fit": the page's word (labels)
      b.dataset.zoom = name;
      this.buttons[name] = b;
      b.addEventListener("click", () => (factor ? this.zoom(factor) : this.fit(true)));
      this.bar.append(b);
    }
    this.canvas = el("div", undefined, "canvas stepscope-canvas");
    graph.append(this.bar, this.canvas);
    this.listen();
    if (typeof ResizeObserver !== "undefined") new ResizeObserver(() => this.resized()).observe(graph);
  }

  labels(L) {
    this.buttons.fit.textContent = L.fit;
    this.buttons.fit.title = L.fit_help;
    this.buttons.in.title = L.zoom_in;
    this.buttons.out.title = L.zoom_out;
  }

  // a new drawing: `large` ones are fitted and focused, the others shown at their natural size at most
  reset(drawing, { large, height, readable }) {
    this.drawing = drawing;
    this.readable = readable || 0.8;
    this.graph.dataset.fit = large ? "fit" : "natural";
    this.graph.style.height = height + "px";
    this.view.chosen = undefined;
  }

  listen() {
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
      this.fitted = null;
      this.apply();
    });
    window.addEventListener("pointerup", () => {
      drag = null;
      g.classList.remove("dragging");
    });
    g.addEventListener("dblclick", () => this.fit(true));
  }

  resized() {
    const f = this.fitted;
    if (f && (f.width !== this.graph.clientWidth || f.height !== this.graph.clientHeight)) this.fit(false);
  }

  apply() {
    const v = this.view;
    this.canvas.style.transform = `translate(${v.x}px, ${v.y}px) scale(${v.scale})`;
  }

  size() {
    const box = this.drawing.svg.getBoundingClientRect();
    return [box.width / this.view.scale, box.height / this.view.scale];
  }

  fit(forget) {
    if (!this.drawing || !this.drawing.svg) return;
    if (forget) this.view.chosen = undefined;
    const top = this.bar.offsetHeight;
    const [w, h] = this.size();
    const fw = this.graph.clientWidth, fh = this.graph.clientHeight - top;
    if (!w || !h || !fw) return;
    let scale = Math.min(1.2, fw / w, fh / h);
    if (this.graph.dataset.fit === "natural") scale = Math.min(1, scale);
    Object.assign(this.view, { scale, x: (fw - w * scale) / 2, y: top + Math.max(0, (fh - h * scale) / 2) });
    this.fitted = { width: this.graph.clientWidth, height: this.graph.clientHeight };
    this.apply();
    if (!forget) this.focus();
  }

  // a big graph too small to read when fitted: its step's nodes at a readable zoom, in the middle
  focus() {
    if (!this.drawing || !this.drawing.svg || this.graph.dataset.fit !== "fit") return;
    const readable = this.view.chosen || this.readable;
    const [w, h] = this.size();
    const top = this.bar.offsetHeight;
    if (Math.min(this.graph.clientWidth / w, (this.graph.clientHeight - top) / h) >= readable) return;
    const targets = this.drawing.focused();
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
    this.fitted = null;
    this.apply();
  }
}
