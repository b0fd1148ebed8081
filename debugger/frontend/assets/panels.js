// A step's tables under the drawing, for a host with none of its own (the HTML file, a notebook): the
// merge replay (every reducer call in the order it ran, with its sentence), the merges inside subgraphs,
// the state with what changed, and the step's findings. In learn mode a call's result and sentence stay
// hidden until guessed, and the findings wait.

import { el, row, table } from "./dom.js";

export function panels(s, data) {
  const L = data.labels;
  const learn = data.learn;
  const mergeRow = (m, where) => {
    const hidden = learn && !m.guessed;
    const cells = [m.index, m.channel, m.reducer, m.writer, m.before, m.write, hidden ? "?" : m.after,
      hidden ? L.guess_below : m.sentence];
    if (where !== undefined) cells.unshift(where);
    return row(cells, m.refused ? "refused" : m.repeated.length && !hidden ? "repeated" : "");
  };
  const mergeHead = [L.col_index, L.col_key, L.col_reducer, L.col_writer, L.col_before, L.col_write, L.col_after,
    L.col_what];
  const out = [el("h4", L.merge_heading)];
  if (s.merge.length) {
    out.push(table(mergeHead, s.merge.map((m) => mergeRow(m))));
    out[out.length - 1].classList.add("merge");
  } else out.push(el("p", L.no_merge, "caption"));
  if (s.inside.length) {
    const box = el("details", undefined, "inside");
    box.open = true;
    box.append(el("summary", L.inside_heading));
    box.append(table([L.col_inside, ...mergeHead], s.inside.flatMap((n) => n.merge.map((m) => mergeRow(m, n.where)))));
    out.push(box);
  }
  out.push(el("h4", L.state_heading));
  out.push(table([L.col_key, L.col_change, L.col_value], s.state.map(([k, kind, v]) => row([k, L["change_" + kind] || kind, v], kind))));
  out[out.length - 1].classList.add("state");
  if (data.findings === null) return out; // a run still going: its findings come once it ends
  out.push(el("h4", L.findings_heading), findings(s, data));
  return out;
}

function findings(s, data) {
  const learn = data.learn;
  const found = learn ? [] : s.findings.map((n) => data.findings[n]).filter(Boolean);
  const box = el("div", undefined, "step-findings");
  for (const f of found) {
    box.append(el("p", f.severity + ": " + f.title + " (" + f.where + ")", "finding"));
    if (f.explanation) box.append(el("p", f.explanation, "caption"));
    if (f.fix) box.append(el("pre", f.fix));
  }
  if (!found.length) box.append(el("p", learn ? data.labels.findings_kept : data.labels.no_findings, "caption"));
  return box;
}
