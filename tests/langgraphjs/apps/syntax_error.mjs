import { StateGraph } from "@langchain/langgraph";
export const graph = new StateGraph(;
