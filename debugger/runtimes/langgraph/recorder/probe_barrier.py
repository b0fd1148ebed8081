"""The probe's barrier (`probe.LoopProbe`): langgraph's own `apply_writes`, every write to a state key
recorded (each key's `update` observed, `superstep.observe_update`, or, in the usual step of one plain
write per key, read around the barrier with nothing in its way), then the committed state checked
against the recorded calls.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, Mapping

from engine.codec import MISSING as ENGINE_MISSING
from engine.trace import TaskRecord, TraceWriter

from .calls import Appends, add_call, lg_missing
from .probe_tasks import TaskWatch
from .superstep import (
    _get,
    call_sink,
    observe_update,
    reducer_name_of,
    single_plain_write,
    version_number,
    writes_by_channel,
)
from .watched import ObservedProc

_INT = frozenset((int,))


class BarrierWatch(TaskWatch):
    """The barrier role of a loop's probe: what it reads of the probe is declared here."""

    run: TraceWriter
    keys: list[str]
    key_set: frozenset[str]
    reducers: dict[str, tuple[Any, str]]
    folds: dict[str, Any]
    appends: list[tuple[str, Appends]]
    task_records: dict[str, TaskRecord]
    task_probes: dict[str, ObservedProc]

    def barrier(
        self,
        apply: Callable[..., set[str]],
        checkpoint: Any,
        channels: Mapping[str, Any],
        tasks: Any,
        get_next_version: Any,
        trigger_to_nodes: Any,
        step: int,
    ) -> set[str]:
        """The step's barrier: langgraph's own `apply_writes`, every write to a state key recorded, then the commit."""
        tasks = list(tasks)
        args = (checkpoint, channels, tasks, get_next_version, trigger_to_nodes)
        if len(tasks) == 1:
            calls = self._lone_task(tasks[0], channels, step)
            if calls is not None:
                updated = self._single_writes(apply, args, calls, step)
                self.commit(step, channels, checkpoint["channel_versions"], updated)
                return updated
        self.settle(tasks, committed=True)
        grouped = writes_by_channel(tasks, self.key_set)
        single = True  # one plain write per key (a loop, not a generator: this runs every step)
        for key, pairs in grouped.items():
            if len(pairs) != 1 or not single_plain_write(channels[key], pairs[0][0]):
                single = False
                break
        if not grouped:
            self.run.open_step(step)
            updated = apply(*args)
        elif single:
            self.run.open_step(step)
            calls = [(key, channels[key], write, task, channels[key].value) for key, [(write, task)] in grouped.items()]
            updated = self._single_writes(apply, args, calls, step)
        else:
            observed = ObservedChannels(channels, grouped, call_sink(self.run, step, self.folds))
            updated = apply(checkpoint, observed, tasks, get_next_version, trigger_to_nodes)
        self.commit(step, channels, checkpoint["channel_versions"], updated)
        return updated

    def commit(self, step: int, channels: Mapping[str, Any], versions: Mapping[str, Any], updated: Any) -> None:
        """The state keys' values langgraph committed after `step`, checked against the recorded calls
        (`superstep.commit`, with a plain key's value read from its channel without a `get()`)."""
        missing = lg_missing()
        values = {}
        for key in self.keys:
            channel = channels[key]
            if type(channel) in _PLAIN_CHANNELS or _is_plain_channel(channel):
                value = channel.value
                values[key] = ENGINE_MISSING if value is missing else value
            else:
                values[key] = _get(channel)
        for key, fold in self.appends:
            fold.committed(values[key])
        numbers = dict(versions)
        if not _INT.issuperset(map(type, numbers.values())):  # a saver's "0000…0042.0.123" strings
            numbers = {k: v if type(v) is int else version_number(v) for k, v in versions.items()}
        self.run.commit(step, values, numbers, frozenset(updated) if updated else ())
        self.last_committed = step

    def _lone_task(self, task: Any, channels: Mapping[str, Any], step: int) -> list[tuple[Any, ...]] | None:
        """The usual step of a loop, settled at once: one task, which returned at its first attempt, and
        wrote each state key at most once, plainly (`single_plain_write`). Its `_single_writes` calls
        (`(key, channel, write, task, value before)`, in the order of its writes, as `writes_by_channel` gives them),
        or None for any other step (`settle` and the rest of `barrier` then take it)."""
        task_id = getattr(task, "id", None)
        probe = self.task_probes.get(task_id) if task_id else None
        if probe is None or probe.error is not None or not probe.has_result or probe.attempts:
            return None
        key_set = self.key_set
        calls = []
        for key, write in task.writes:
            if key in key_set:
                channel = channels[key]
                if not single_plain_write(channel, write):
                    return None
                calls.append((key, channel, write, task, channel.value))
        if len(calls) > 1 and len({call[0] for call in calls}) != len(calls):
            return None  # a key written twice: its writes meet in one `update`
        record = self.task_records.pop(task_id, None)
        if record is None:
            return None
        del self.task_probes[task_id]
        self._returned(record, task.writes, probe)
        self.run.open_step(step)
        return calls

    def _single_writes(
        self, apply: Callable[..., set[str]], args: tuple[Any, ...], calls: list[tuple[Any, ...]], step: int
    ) -> set[str]:
        """The usual step: one plain write per key (`calls`: `(key, channel, write, task, value
        before)`), so each key's reducer runs once, on the value before and giving the value after;
        read around langgraph's own barrier, with no wrapper in its way. A reducer that raises is
        found in the traceback (the `update` frame of its channel)."""
        run, folds, reducers = self.run, self.folds, self.reducers
        try:
            updated = apply(*args)
        except Exception as exc:  # noqa: BLE001 - recorded, then raised again
            failed = _failed_channel(exc, {id(channel): key for key, channel, _, _, _ in calls})
            for key, channel, write, task, before in calls:
                refused = key == failed or failed is None
                writer = getattr(task, "id", None) or task.name
                after = ENGINE_MISSING if refused else channel.value
                add_call(
                    run, step, folds, key, reducer_name_of(channel), writer, task.name, before, write, after,
                    exc if refused else None,
                )  # fmt: skip
                if refused and failed is not None:
                    break
            raise
        for key, channel, write, task, before in calls:
            reducer = reducers.get(key)
            if reducer is None or reducer[0] is not channel:
                reducer = reducers[key] = (channel, reducer_name_of(channel))
            writer = getattr(task, "id", None) or task.name
            add_call(run, step, folds, key, reducer[1], writer, task.name, before, write, channel.value, None)
        return updated


class ObservedChannels(Mapping):
    """`loop.channels` as `apply_writes` sees it: the state keys that receive writes are watched."""

    def __init__(self, channels: Mapping[str, Any], grouped: dict[str, list[tuple[Any, Any]]], sink: Any) -> None:
        self.channels = channels
        self.grouped = grouped
        self.sink = sink

    def __getitem__(self, key: str) -> Any:
        channel = self.channels[key]
        return _ChannelProbe(channel, key, self) if key in self.grouped else channel

    def __iter__(self) -> Iterator[str]:
        return iter(self.channels)

    def __len__(self) -> int:
        return len(self.channels)

    def __contains__(self, key: object) -> bool:
        return key in self.channels


class _ChannelProbe:
    __slots__ = ("channel", "key", "owner")

    def __init__(self, channel: Any, key: str, owner: ObservedChannels) -> None:
        self.channel = channel
        self.key = key
        self.owner = owner

    def update(self, values: Any) -> bool:
        pairs = self.owner.grouped.get(self.key)
        if not values or pairs is None or len(pairs) != len(values):
            return self.channel.update(values)
        writers = [(getattr(t, "id", None) or t.name, t.name) for _, t in pairs]
        return observe_update(self.channel, self.key, values, writers, self.owner.sink)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.channel, name)


_PLAIN_CHANNELS: set[type] = set()
"""Channel classes whose `get()` is their `value`, or langgraph's empty marker raised as EmptyChannelError."""


def _is_plain_channel(channel: Any) -> bool:
    if type(channel).__name__ in ("LastValue", "BinaryOperatorAggregate") and type(channel).__module__.startswith(
        "langgraph.channels."
    ):
        _PLAIN_CHANNELS.add(type(channel))
        return True
    return False


def _failed_channel(error: BaseException, watched: dict[int, str]) -> str | None:
    """The state key whose channel's `update` raised `error` (from the traceback's frames)."""
    tb = error.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code.co_name == "update":
            key = watched.get(id(frame.f_locals.get("self")))
            if key is not None:
                return key
        tb = tb.tb_next
    return None
