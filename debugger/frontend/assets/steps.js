// A run's steps as the stepper holds them: `count` steps in all, numbered by `numbers` (a list, or the
// first number of a run of consecutive ones; -1 is the input), of which one window (`window.offset`,
// `window.steps`) is here. A long run arrives in windows, so a first paint never grows with the run; a
// step outside the window is asked of the host.

export function count(data) {
  return data ? data.count : 0;
}

// the step at `index` when the window holds it, else null
export function stepAt(data, index) {
  const w = data.window;
  return index >= w.offset && index < w.offset + w.steps.length ? w.steps[index - w.offset] : null;
}

export function stepNumber(data, index) {
  const n = data.numbers;
  return Array.isArray(n) ? n[index] : n.first + index;
}

export function indexOf(data, step) {
  const n = data.numbers;
  return Array.isArray(n) ? n.indexOf(step) : step - n.first;
}

export function clamp(data, index) {
  return Math.max(0, Math.min(count(data) - 1, index));
}
