"""Each channel's contract on its own: update -> get -> checkpoint -> restore -> equal."""

import operator

import pytest

from engine.channels import MISSING, AnyValue, BinaryOperatorAggregate, EphemeralValue, LastValue
from engine.control_channels import LastValueAfterFinish, NamedBarrierValue, NamedBarrierValueAfterFinish, Topic
from engine.errors import EmptyChannelError, InvalidUpdateError
from engine.types import Overwrite


def roundtrip(channel):
    return channel.restore(channel.checkpoint())


def test_last_value_starts_empty_and_raises_on_get():
    channel = LastValue("a").fresh()
    assert not channel.is_available()
    with pytest.raises(EmptyChannelError):
        channel.get()


def test_last_value_keeps_value_across_empty_updates():
    channel = LastValue("a").fresh()
    assert channel.update([1])
    assert not channel.update([])
    assert channel.get() == 1
    assert roundtrip(channel).get() == 1


def test_last_value_rejects_two_writes_even_if_equal():
    channel = LastValue("v").fresh()
    with pytest.raises(InvalidUpdateError) as err:
        channel.update([1, 1])
    assert str(err.value).startswith("At key 'v': Can receive only one value per step.")


def test_binop_folds_left_one_call_per_write():
    calls = []

    def logging_add(a, b):
        calls.append((list(a), b))
        return a + b

    channel = BinaryOperatorAggregate("log", logging_add, list).fresh()
    channel.update([["in"]])
    channel.update([["a"], ["b"], ["c1", "c2"]])
    assert calls == [([], ["in"]), (["in"], ["a"]), (["in", "a"], ["b"]), (["in", "a", "b"], ["c1", "c2"])]
    assert roundtrip(channel).get() == ["in", "a", "b", "c1", "c2"]


def test_binop_without_constructor_stores_first_write_without_reducer():
    channel = BinaryOperatorAggregate("x", lambda a, b: pytest.fail("reducer called"), None).fresh()
    assert not channel.is_available()
    channel.update([["first"]])
    assert channel.get() == ["first"]


def test_binop_fresh_instances_do_not_share_the_start_value():
    spec = BinaryOperatorAggregate("log", operator.add, list)
    one, two = spec.fresh(), spec.fresh()
    one.get().append("mutated")
    assert two.get() == []


def test_overwrite_replaces_and_ignores_later_plain_writes():
    channel = BinaryOperatorAggregate("log", operator.add, list).fresh()
    channel.update([["in"]])
    channel.update([["p"], Overwrite(["ow"]), ["q"]])
    assert channel.get() == ["ow"]


def test_overwrite_dict_spellings():
    channel = BinaryOperatorAggregate("log", operator.add, list).fresh()
    channel.update([{"__overwrite__": [1]}])
    assert channel.get() == [1]
    channel.update([{"type": "__overwrite__", "value": [2]}])
    assert channel.get() == [2]


def test_second_overwrite_in_one_step_is_an_error():
    channel = BinaryOperatorAggregate("log", operator.add, list).fresh()
    with pytest.raises(InvalidUpdateError, match="only one Overwrite value per super-step"):
        channel.update([Overwrite([1]), Overwrite([2])])


def test_binop_observe_reports_each_call():
    seen = []
    channel = BinaryOperatorAggregate("n", operator.add, int).fresh()
    channel.update([1, 2], lambda i, before, write, after: seen.append((i, before, write, after)))
    assert seen == [(0, 0, 1, 1), (1, 1, 2, 3)]


def test_any_value_clears_when_not_written():
    channel = AnyValue("a").fresh()
    channel.update([1, 2])
    assert channel.get() == 2
    assert channel.update([]) is True
    assert not channel.is_available()


def test_ephemeral_lasts_one_step_and_guard_rejects_two_writes():
    channel = EphemeralValue("e", guard=True).fresh()
    channel.update(["x"])
    assert channel.get() == "x"
    assert channel.update([]) is True
    assert not channel.is_available()
    with pytest.raises(InvalidUpdateError, match="EphemeralValue\\(guard=True\\)"):
        channel.update([1, 2])
    unguarded = EphemeralValue("e", guard=False).fresh()
    unguarded.update([1, 2])
    assert unguarded.get() == 2


def test_topic_flattens_and_clears_unless_accumulating():
    topic = Topic("t").fresh()
    topic.update([1, [2, 3]])
    assert topic.get() == [1, 2, 3]
    assert roundtrip(topic).get() == [1, 2, 3]
    assert topic.update([]) is True
    assert not topic.is_available()
    accumulating = Topic("t", accumulate=True).fresh()
    accumulating.update([1])
    accumulating.update([2])
    assert accumulating.get() == [1, 2]


def test_named_barrier_available_once_all_names_arrived_then_consumed():
    barrier = NamedBarrierValue("join:a+b:c", {"a", "b"}).fresh()
    barrier.update(["a"])
    assert not barrier.is_available()
    assert roundtrip(barrier).seen == {"a"}
    barrier.update(["b"])
    assert barrier.is_available()
    assert barrier.consume()
    assert not barrier.is_available()
    with pytest.raises(InvalidUpdateError, match="not in"):
        barrier.update(["zz"])


def test_barrier_after_finish_needs_finish():
    barrier = NamedBarrierValueAfterFinish("j", {"a"}).fresh()
    barrier.update(["a"])
    assert not barrier.is_available()
    assert barrier.finish()
    assert barrier.is_available()
    assert barrier.consume()
    assert not barrier.is_available()


def test_last_value_after_finish():
    channel = LastValueAfterFinish("branch:to:d").fresh()
    channel.update([None])
    assert not channel.is_available()
    assert channel.finish()
    assert channel.is_available()
    assert roundtrip(channel).is_available()
    assert channel.consume()
    assert not channel.is_available()


def test_copy_is_independent_of_the_original():
    topic = Topic("t").fresh()
    topic.update([1])
    clone = topic.copy()
    clone.update([2])
    assert topic.get() == [1]
    barrier = NamedBarrierValue("j", {"a", "b"}).fresh()
    clone = barrier.copy()
    clone.update(["a"])
    assert barrier.seen == set()


def test_missing_is_not_none():
    assert MISSING is not None
    assert repr(MISSING) == "MISSING"
