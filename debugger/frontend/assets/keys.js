// The stepper's keys: ← ↑ a step back, → ↓ a step on, Home the first step, End the last. A key typed into a
// field, pressed on the focused slider (which moves itself) or with a modifier is left to the page.

const MOVES = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
const TYPING = new Set(["INPUT", "TEXTAREA", "SELECT"]);

// the index a key moves to from `index` of `count` steps, or null where the key is not the stepper's
export function keyMove(e, { index, count, slider }) {
  if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return null;
  const target = e.composedPath ? e.composedPath()[0] : e.target;
  if (target === slider) return null;
  if (target && (TYPING.has(target.tagName) || target.isContentEditable)) return null;
  if (e.key in MOVES) return index + MOVES[e.key];
  if (e.key === "Home") return 0;
  if (e.key === "End") return count - 1;
  return null;
}
