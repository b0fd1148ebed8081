// interrupt_ask.mjs's graph compiled again without a checkpointer: `stepscope run --checkpointer FILE` gives it
// one (debugger/runtimes/langgraphjs/run_saver.mjs).
import { graph as withSaver } from "./interrupt_ask.mjs";

export const graph = withSaver.builder.compile();
