// A CommonJS app that prints to stdout while it runs: the event stream must not care.
const { Annotation, START, StateGraph } = require("@langchain/langgraph");

const State = Annotation.Root({ n: Annotation({ reducer: (a, b) => a + b, default: () => 0 }) });

const builder = new StateGraph(State)
  .addNode("talk", () => {
    console.log('{"e": "fatal", "message": "not from the recorder"}');
    return { n: 2 };
  })
  .addEdge(START, "talk");

module.exports = { builder, notAGraph: 42 };
