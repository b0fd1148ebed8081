// The stepper's elements, built from run data that is text, never markup: every value, name and sentence
// goes in with textContent. The one piece of markup is the drawing, graphviz's SVG of escaped DOT, parsed
// as SVG with anything active dropped on the way in.

export function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

export function table(head, rows) {
  const t = el("table");
  const tr = el("tr");
  head.forEach((h) => tr.append(el("th", h)));
  t.append(tr);
  rows.forEach((r) => t.append(r));
  return t;
}

export function row(cells, cls) {
  const tr = el("tr", undefined, cls);
  cells.forEach((c) => tr.append(el("td", c)));
  return tr;
}

// graphviz's SVG as a node tree; scripts, foreign objects, event handlers and links never reach the page
export function parseSvg(text) {
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
