// A flaky node that a RetryPolicy retries: it fails twice, then answers.
import { Annotation, START, StateGraph } from "@langchain/langgraph";

let calls = 0;
const State = Annotation.Root({ answer: Annotation() });

export const graph = new StateGraph(State)
  .addNode(
    "flaky",
    () => {
      calls += 1;
      if (calls < 3) throw new Error(`attempt ${calls} failed`);
      return { answer: `ok after ${calls}` };
    },
    { retryPolicy: { maxAttempts: 3, initialInterval: 1, jitter: false, logWarning: false } },
  )
  .addEdge(START, "flaky")
  .compile();
