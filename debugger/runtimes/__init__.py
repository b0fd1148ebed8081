"""The runtimes a graph can run on, behind one interface (`runtime.py` says exactly what each provides).

    runtime.py      the `Runtime` protocol, `Recorded`, `RunSetupError`, `TargetError`
    driven.py       the `DrivenRun` protocol: a run the live controller drives one superstep at a time
    segmented_live.py  the `DrivenRun` of a runtime that owns its loop (langgraph, LangGraph.js): one
                    segment a superstep, each runtime giving only its `Segments`
    registry.py     `RUNTIMES`, `runtime_of(graph)`, `runtime_of_trace(trace)`: the only place that
                    tells one runtime's graphs from another's
    targets.py      `load_target(spec)`: imports the user's module, picks the graph and its runtime, once
    engine/         StepScope's own engine
    langgraph/      langgraph itself, recorded by watching its run (`debugger/runtimes/langgraph/recorder/`)
    langgraphjs/    LangGraph.js in node, recorded by watching its run (`recorder.mjs`)

Nothing outside this folder asks which runtime a graph or a trace belongs to.
"""
