// The app's own conversation, without StepScope: `node turns_plain.mjs app export config-json turns-json` runs
// graph.invoke once a turn on one thread and prints, a turn each, its return and the thread's getState() (its
// values and its pending interrupts, in its tasks' order), read by plain_value.mjs (not StepScope's codec).
// Turn 0 is the input; a later turn is a resume value, null to go on from a breakpoint, or
// {"by": FIELD, "answers": {NAME: ANSWER}}: Command({resume: {[id]: ANSWER}}) for each pending interrupt whose
// value's FIELD is a NAME, its id read from getState as a user reads it.
import { pathToFileURL } from "node:url";
import { Command } from "@langchain/langgraph";
import { plain } from "../realistic/js/plain_value.mjs";

const [app, name, config, turns] = process.argv.slice(2);
const graph = (await import(pathToFileURL(app).href))[name];
const thread = JSON.parse(config);

/** The questions getState says are pending: its unfinished tasks' interrupts, in its tasks' order (a task
 * answered and finished keeps its interrupt beside its `result`). */
function asked(state) {
  return state.tasks.filter((task) => task.result === undefined).flatMap((task) => task.interrupts ?? []);
}

async function given(turn, first) {
  if (first) return turn;
  if (turn === null) return null;
  if (typeof turn !== "object" || !("by" in turn)) return new Command({ resume: turn });
  const pending = asked(await graph.getState(thread)).filter((i) => i.value?.[turn.by] in turn.answers);
  return new Command({ resume: Object.fromEntries(pending.map((i) => [i.id, turn.answers[i.value[turn.by]]])) });
}

const outputs = [];
const states = [];
for (const [i, turn] of JSON.parse(turns).entries()) {
  outputs.push(plain(await graph.invoke(await given(turn, i === 0), thread)));
  const state = await graph.getState(thread);
  states.push({ values: plain(state.values), asked: asked(state).map((i) => plain(i.value)) });
}
console.log(JSON.stringify({ outputs, states }));
