"""A run's first record, from raw values: `new_run` (a whole Trace or a subgraph's run) and the config as
a trace keeps it (`plain_config`: never the live objects of one process). Every runtime starts its
`TraceWriter` (`engine.trace_writer`) from one.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from .codec_encode import encode
from .records import RunRecord, Trace

CHECKPOINT_KEYS = ("thread_id", "checkpoint_ns", "checkpoint_id")
"""The `configurable` keys that address a checkpoint (what resumes or forks a run from it)."""
_IN_PROCESS = ("callbacks", "checkpointer")
"""Config keys that hold live objects of one process (callbacks, savers): never kept."""
_SCALARS = (int, str, float, bool, type(None))


def plain_config(config: Any, keep: Sequence[str] | None = None, *, given_only: bool = False) -> Any:
    """A config as a trace keeps it (anything but a mapping is returned as it is). By default every
    key but the live objects of one process (`callbacks`, `checkpointer`): the engine's config holds
    only what the caller gave and the `metadata` the engine adds for a subgraph run, which a trace
    shows. `given_only`, for a runtime that fills the config with its own objects (langgraph): also
    without its `metadata` and empty values, without the `recursion_limit` langgraph filled in (a value
    the user set stays), and with only the `configurable` keys that are scalars and not private
    (`__...`). `keep` (e.g. `CHECKPOINT_KEYS`):
    only `{"configurable": {...}}` with those keys, the address of a checkpoint or a thread."""
    if not isinstance(config, Mapping):
        return config
    configurable = config.get("configurable") or {}
    if keep is not None:
        return {"configurable": {k: configurable[k] for k in keep if k in configurable}}
    if not given_only:
        return {k: v for k, v in config.items() if k not in _IN_PROCESS}
    plain = {
        k: v
        for k, v in config.items()
        if k not in _IN_PROCESS and k not in ("configurable", "metadata") and v not in ([], {}, None)
    }
    limit = plain.get("recursion_limit")
    if isinstance(limit, int) and type(limit) is not int:  # langgraph marks its own default with an int
        del plain["recursion_limit"]  # subclass: the user never set it, so the config shown leaves it out
    own = {k: v for k, v in configurable.items() if not k.startswith("__") and isinstance(v, _SCALARS)}
    if own:
        plain["configurable"] = own
    return plain


def new_run(
    *,
    ns: Sequence[str],
    graph: dict[str, Any],
    input: Any,
    config: Any,
    started_at: str,
    recursion_limit: int = 0,
    trace: bool = False,
    run_id: str = "",
    target: str = "",
    thread_id: str = "",
) -> RunRecord:
    """A new run's record from raw values: a whole `Trace` (with `trace`, its identity too) or a
    subgraph's `RunRecord`. `config` as the trace keeps it (`plain_config`), still to be encoded."""
    common: dict[str, Any] = dict(
        ns=list(ns),
        graph=graph,
        input=encode(input),
        config=encode(config),
        recursion_limit=recursion_limit,
        started_at=started_at,
    )
    if trace:
        return Trace(**common, run_id=run_id, target=target, thread_id=thread_id)
    return RunRecord(**common)
