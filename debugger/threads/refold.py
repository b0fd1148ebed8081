"""Re-folding one stored superstep: langgraph's own `apply_writes`, with every reducer call observed.

A checkpointer keeps each task's writes, not the reducer calls they caused. To show a stored step merge
by merge, the step's writes are applied again with the app's graph: its channels (restored from the
checkpoint the step started from), its reducers, and langgraph's `apply_writes`
(langgraph/pregel/_algo.py), so the order is langgraph's own: tasks sorted by path (PULL tasks by node
name, then Sends in order), each task's writes in the order it made them, one `update` per channel.

Only the state keys are observed: `ObservedChannel` stands in for each of them during the call and
reports one `Fold` per write (before, write, after, writer, error). For `BinaryOperatorAggregate` (a key
with a reducer) the per-write fold is langgraph's `update` written out one write at a time, with the
same `Overwrite` rules; any other channel runs its own `update` and its writes are reported around it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from engine.channels import MISSING as ENGINE_MISSING, reducer_display_name


@dataclass(slots=True)
class Fold:
    """One write folded into one state key."""

    channel: str
    reducer: str
    before: Any
    write: Any
    after: Any
    writer_id: str
    writer_name: str
    error: BaseException | None = None


def reducer_name(channel: Any) -> str:
    operator = getattr(channel, "operator", None)
    if operator is not None:
        return reducer_display_name(operator)
    return type(channel).__name__


def channel_value(channel: Any) -> Any:
    """The channel's value, or the engine's MISSING (what the trace records use) when it is empty."""
    from langgraph.errors import EmptyChannelError

    try:
        return channel.get()
    except EmptyChannelError:
        return ENGINE_MISSING


class ObservedChannel:
    """Stands in for one state channel during `apply_writes`; reports each write it folds."""

    def __init__(self, key: str, channel: Any, writers: list[tuple[str, str]], report: Callable[[Fold], None]) -> None:
        self._key = key
        self._channel = channel
        self._writers = writers
        self._report = report
        self._name = reducer_name(channel)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._channel, name)

    def update(self, values: Sequence[Any]) -> bool:
        from langgraph.channels.binop import BinaryOperatorAggregate

        if not values:
            return self._channel.update(values)
        reported: set[int] = set()
        try:
            if type(self._channel).update is BinaryOperatorAggregate.update:
                return self._fold_binop(values, reported)
            return self._update_generic(values, reported)
        except Exception as exc:
            before = channel_value(self._channel)
            for index, write in enumerate(values):
                if index not in reported:
                    self._emit(index, before, write, ENGINE_MISSING, reported, exc)
            raise

    def _emit(self, index: int, before: Any, write: Any, after: Any, reported: set[int],
              error: BaseException | None = None) -> None:
        writer_id, writer_name = self._writers[index] if index < len(self._writers) else ("", "?")
        reported.add(index)
        self._report(Fold(self._key, self._name, before, write, after, writer_id, writer_name, error))

    def _fold_binop(self, values: Sequence[Any], reported: set[int]) -> bool:
        """`BinaryOperatorAggregate.update`, one write at a time (langgraph/channels/binop.py)."""
        from langgraph.channels.binop import _get_overwrite
        from langgraph._internal._typing import MISSING

        channel = self._channel
        start = 0
        if channel.value is MISSING:
            channel.value = values[0]
            self._emit(0, ENGINE_MISSING, values[0], values[0], reported)
            start = 1
        seen_overwrite = False
        for index in range(start, len(values)):
            write = values[index]
            is_overwrite, overwrite_value = _get_overwrite(write)
            before = channel.value
            if is_overwrite:
                if seen_overwrite:
                    from langgraph.errors import ErrorCode, InvalidUpdateError, create_error_message

                    raise InvalidUpdateError(create_error_message(
                        message="Can receive only one Overwrite value per super-step.",
                        error_code=ErrorCode.INVALID_CONCURRENT_GRAPH_UPDATE))
                channel.value = overwrite_value
                seen_overwrite = True
                self._emit(index, before, write, overwrite_value, reported)
            elif not seen_overwrite:
                channel.value = channel.operator(before, write)
                self._emit(index, before, write, channel.value, reported)
            else:
                self._emit(index, before, write, before, reported)  # ignored after an Overwrite, as langgraph does
        return True

    def _update_generic(self, values: Sequence[Any], reported: set[int]) -> bool:
        before = channel_value(self._channel)
        changed = self._channel.update(values)
        after = channel_value(self._channel)
        last = len(values) - 1
        previous = before
        for index, write in enumerate(values):
            value = after if index == last else write
            self._emit(index, previous, write, value, reported)
            previous = value
        return changed


def writers_by_channel(tasks: Sequence[Any], channels: Mapping[str, Any]) -> dict[str, list[tuple[str, str]]]:
    """For each channel, the (task id, node name) of each write, in the order `apply_writes` passes them."""
    from langgraph.checkpoint.base import writes_sort_key
    from langgraph.pregel._algo import task_path_str

    out: dict[str, list[tuple[str, str]]] = {}
    for task in sorted(tasks, key=lambda t: writes_sort_key(task_path_str(t.path))):
        for channel, _ in task.writes:
            if channel in channels:
                out.setdefault(channel, []).append((getattr(task, "id", ""), task.name))
    return out


def apply_observed(checkpoint: dict[str, Any], channels: Mapping[str, Any], tasks: Sequence[Any],
                   state_keys: Sequence[str], get_next_version: Any, trigger_to_nodes: Mapping[str, Any],
                   report: Callable[[Fold], None]) -> set[str]:
    """langgraph's `apply_writes` on `channels` (changed in place) and `checkpoint` (its versions), with
    each write to a state key reported. Raises what `apply_writes` raises (e.g. a plain key written twice)."""
    from langgraph.pregel._algo import apply_writes

    writers = writers_by_channel(tasks, channels)
    observed = dict(channels)
    for key in state_keys:
        if key in writers and key in channels:
            observed[key] = ObservedChannel(key, channels[key], writers[key], report)
    return apply_writes(checkpoint, observed, tasks, get_next_version, trigger_to_nodes)
