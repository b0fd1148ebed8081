// Values JSON cannot say: undefined vs null, Date, Map, Set, BigInt, NaN, Infinity, a class instance, a cycle.
import { Annotation, START, StateGraph } from "@langchain/langgraph";

class Ticket {
  constructor(id, tags) {
    this.id = id;
    this.tags = tags;
  }
}
const cyclic = { name: "loop" };
cyclic.self = cyclic;
const State = Annotation.Root({ bag: Annotation() });

export const graph = new StateGraph(State)
  .addNode("make", () => ({
    bag: {
      nothing: undefined,
      empty: null,
      when: new Date("2024-05-01T12:00:00Z"),
      byId: new Map([
        ["a", 1],
        [2, "b"],
      ]),
      tags: new Set(["x", "y"]),
      big: 12345678901234567890n,
      nan: NaN,
      inf: -Infinity,
      ticket: new Ticket(7, ["vip"]),
      cyclic,
      list: [undefined, null, 1.5],
    },
  }))
  .addEdge(START, "make")
  .compile();
