"""The graphs of the differential suite, each written once against a backend namespace `lg`.

Every `build_<name>(lg)` function returns a `Built`: the graph builder (the harness calls
`compile()` itself, so a compile error is told apart from a build error and from a run error), the
input, an optional config, and an optional `probe`: a callable evaluated after the run that returns
what the nodes saw or did (call counts, reducer calls, router input...). The probe is compared like
the output, so "how many times did `d` run" is part of the contract.

`@case(expect=...)` registers a builder and pins facts about its `invoke()` observation, written
from langgraph 1.2.22's sources and checked against it. They make the langgraph side
of each test meaningful (it fails if the reference stops behaving as documented) and tell the engine
what it must reproduce even before the comparison runs. The format of `expect` is the normalised
observation of `harness.observe`: `result`, `error` as `(class name, str(exc))`, `notes` (exception
notes, uuids as `<id>`), `probe`, `stage` (where an error is raised: "build", "compile" or the
default "run"), and `streams`: `{aspect: {field: value}}` pinned for a stream aspect.

Rules for cases: no network, no sleep longer than 20 ms, state schemas defined inside the builder.
Short sleeps (5-15 ms) are used on purpose to make LangGraph's completion order differ from the
application order in parallel steps, so the harness's per-step multiset comparison is exercised.

One module per section; importing this package registers every case in order.
"""

from . import (  # noqa: F401  (imported to register their cases)
    add_messages_direct,
    basics,
    build_errors,
    command,
    conditional_edges,
    inputs_and_returns,
    joins_defer_recursion,
    messages,
    messages_in_place,
    more,
    node_exceptions,
    reducers_and_channels,
    schemas,
    seeds,
    subgraphs,
)
from ._common import ALL_ASPECTS, BUILD_ONLY, CASES, FUNCTION_CASES, Built, Case, FunctionCase, case, fcase

__all__ = ["ALL_ASPECTS", "BUILD_ONLY", "CASES", "FUNCTION_CASES", "Built", "Case", "FunctionCase", "case", "fcase"]
