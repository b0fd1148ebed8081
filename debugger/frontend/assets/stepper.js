// The StepScope stepper: one front-end for every host (the Streamlit page, the one-file HTML export, a
// notebook widget). It takes a run's view model as data (built once in Python, debugger/model/stepper_data.py)
// and steps in the browser: buttons, slider, arrow keys, Home/End, pan and zoom of the drawing.
//
// Its modules, by role: dom.js (elements from text), drawing.js (the laid-out drawing, painted per step),
// panzoom.js (the drawing's frame), panels.js (a step's tables), steps.js (windows of steps), keys.js.
// The page loads them as they are (its component's asset folder); the HTML file and the notebook get them
// joined into one module (debugger/frontend/__init__.py). Nothing to build, no CDN.
//
// Hosts call `mount(root, data, {onStep})`; the returned handle's `update(data)` gives new data (another
// window of a long run's steps, a step moved by the host). `onStep(step, index)` reports each move.

import { el } from "./dom.js";
import { Drawing } from "./drawing.js";
import { keyMove } from "./keys.js";
import { panels } from "./panels.js";
import { PanZoom } from "./panzoom.js";
import { clamp, count, indexOf, stepAt, stepNumber } from "./steps.js";

class Stepper {
  constructor(root, data, options) {
    this.root = root;
    this.onStep = options.onStep || (() => {});
    this.index = 0;
    this.reported = [];
    this.build();
    this.update(data, true);
    this.keys = (e) => this.key(e);
    // a page with one stepper steps on keys anywhere in it; a notebook, with many widgets between cells
    // that the notebook's own arrow keys move through, steps only the widget that has the focus (clicked)
    this.keyTarget = options.focusKeys ? root : root.ownerDocument || document;
    if (options.focusKeys) {
      root.tabIndex = 0;
      root.classList.add("stepscope-keys"); // its focus ring: stepper.css
      root.dataset.lmSuppressShortcuts = "true"; // JupyterLab (Lumino) leaves keys inside this element alone
    }
    this.keyTarget.addEventListener("keydown", this.keys);
  }

  build() {
    this.root.replaceChildren();
    const frame = el("div", undefined, "stepscope-stepper");
    this.status = el("p", "", "status");
    const top = el("div", undefined, "top");
    const graph = el("div", undefined, "graph stepscope-graph");
    this.frame = new PanZoom(graph);
    this.side = el("div", undefined, "side");
    this.summary = el("div", undefined, "summary");
    this.aside = el("div", undefined, "aside");
    this.side.append(this.summary, this.aside);
    top.append(graph, this.side);
    this.legend = el("p", "", "legend");
    this.panels = el("div", undefined, "panels");
    frame.append(this.status, this.buildBar(), top, this.legend, this.panels);
    this.root.append(frame);
  }

  buildBar() {
    const bar = el("div", undefined, "bar");
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
    bar.append(
      button("first", () => this.go(0)),
      button("prev", () => this.go(this.index - 1)),
      this.slider,
      button("next", () => this.go(this.index + 1)),
      button("last", () => this.go(count(this.data) - 1)),
      this.at,
      this.ticks,
    );
    return bar;
  }

  update(data, first) {
    const drawingChanged = first || !this.data || data.drawing_id !== this.data.drawing_id;
    const previous = this.data;
    // a live run's host (data.live) sends the steps recorded so far, more as they arrive: the place is the
    // user's, at the newest step it follows them, and the host's step counts only on a new drawing
    const place = data.live && previous && previous.count && !drawingChanged
      ? { step: stepNumber(previous, this.index), newest: this.index >= previous.count - 1 } : null;
    this.data = data;
    this.label(data);
    if (drawingChanged) {
      this.drawing = new Drawing(this.frame.canvas, data.svg);
      this.frame.reset(this.drawing, { large: data.large, height: data.height, readable: data.readable_zoom });
    }
    // the host moved the step (a link, another tab): follow it; data that only answers a move this stepper
    // reported (the page's rerun after it; quick presses can be several reruns behind) leaves it where it is
    if (place) {
      this.follow(place);
      return;
    }
    const answered = this.reported.indexOf(data.at_step);
    if (answered >= 0) this.reported.splice(0, answered + 1);
    const hostMoved = first || drawingChanged || (answered < 0 && data.at_step !== stepNumber(data, this.index));
    if (hostMoved) this.reported = [];
    this.show(clamp(data, hostMoved ? data.at : this.index), drawingChanged);
  }

  // the words, the slider's range and ticks, the status line and the host's boxes beside every step
  label(data) {
    const L = data.labels;
    for (const name of ["first", "prev", "next", "last"]) this.buttons[name].textContent = L[name];
    this.slider.setAttribute("aria-label", L.superstep);
    this.frame.labels(L);
    this.slider.max = String(Math.max(0, count(data) - 1));
    this.marked = new Set(data.marked || []);
    this.ticks.replaceChildren(...[...this.marked].map((step) => {
      const o = el("option");
      o.value = String(indexOf(data, step));
      return o;
    }));
    this.legend.textContent = L.legend;
    this.status.textContent = data.status_line || "";
    this.status.className = "status " + (data.status_kind || "");
    this.root.dataset.learn = data.learn ? "1" : "";
    this.aside.replaceChildren(...(data.aside || []).map((item) => {
      const box = el("details", undefined, "lesson");
      box.open = true;
      box.append(el("summary", item.title));
      item.text.split(/\n\s*\n/).forEach((paragraph) => box.append(el("p", paragraph)));
      if (item.caption) box.append(el("p", item.caption, "caption"));
      return box;
    }));
  }

  // a live run's new data: stay at the step shown, or at the newest one when that is where the user was; a
  // move of its own (following) is reported, so the host's step (the page's URL) follows too
  follow(place) {
    const found = indexOf(this.data, place.step);
    this.show(clamp(this.data, place.newest ? count(this.data) - 1 : found >= 0 ? found : this.data.at), false);
    const step = stepNumber(this.data, this.index);
    if (step !== this.data.at_step && step !== place.step) {
      this.reported.push(step);
      this.onStep(step, this.index);
    }
  }

  go(index) {
    if (!count(this.data)) return;
    index = clamp(this.data, index);
    if (index === this.index && stepAt(this.data, index)) return;
    this.show(index, false);
    this.reported.push(stepNumber(this.data, index));
    this.onStep(stepNumber(this.data, index), index);
  }

  key(e) {
    if (!this.root.isConnected) return;
    const index = keyMove(e, { index: this.index, count: count(this.data), slider: this.slider });
    if (index === null) return;
    e.preventDefault();
    this.go(index);
  }

  show(index, refit) {
    const L = this.data.labels;
    const total = count(this.data);
    this.index = index;
    this.slider.value = String(index);
    this.buttons.first.disabled = this.buttons.prev.disabled = index <= 0;
    this.buttons.next.disabled = this.buttons.last.disabled = index >= total - 1;
    // a focused button just disabled (Prev at the first step) drops the focus to the page: where keys are
    // the widget's own (a notebook), they would then step the notebook instead, so the widget keeps it
    const active = this.root.ownerDocument.activeElement;
    if (this.keyTarget === this.root && active && active.disabled && this.root.contains(active)) {
      this.root.focus({ preventScroll: true });
    }
    const number = stepNumber(this.data, index);
    this.root.dataset.step = total ? String(number) : "";
    if (!total) {
      this.at.textContent = L.no_steps;
      return;
    }
    this.at.textContent = L.at
      .replace("{step}", number < 0 ? L.input : String(number))
      .replace("{index}", String(index + 1))
      .replace("{count}", String(total)) + (this.marked.has(number) ? " 🔎" : "");
    const s = stepAt(this.data, index);
    this.root.dataset.ready = s ? "1" : "";
    if (!s) {
      // a long run's step outside the window this host holds: the host sends its window
      this.summary.replaceChildren(el("p", L.loading, "caption"));
      this.panels.replaceChildren();
      return;
    }
    this.drawing.paint(s, this.data.markers);
    this.summary.replaceChildren(...s.summary.map(([kind, text]) => el(kind === "heading" ? "h3" : "p", text, kind)));
    // a host with tables of its own (the page's tabs) shows the drawing, the bar and the summary only, and
    // so does a step with none yet (a live run's step running now)
    this.panels.replaceChildren(...(this.data.panels === false || s.panels === false ? [] : panels(s, this.data)));
    if (refit) this.frame.fit(false);
    else this.frame.focus();
  }

  // the host sets a step by its number (a notebook's `w.step = 3`)
  moveTo(step) {
    const index = indexOf(this.data, step);
    if (index >= 0 && index < count(this.data) && index !== this.index) this.show(index, false);
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
