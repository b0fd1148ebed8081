"""`engine.trace_values.unchanged_list`: whether a state list is still the one recorded, so its delta can
say `same` without encoding it again (compared with `==`, which skips identical items at C speed)."""

from engine.messages import AIMessage
from engine.trace_values import unchanged_list


class NoAnswer:
    """An item whose `==` raises, as a numpy array's does in a truth test."""

    def __eq__(self, other):
        raise ValueError("The truth value of an array with more than one element is ambiguous")

    __hash__ = object.__hash__


def test_the_same_items_are_unchanged_and_an_appended_or_replaced_one_is_not() -> None:
    first, second = AIMessage(content="a", id="1"), AIMessage(content="b", id="2")
    recorded = [first, second]
    assert unchanged_list([first, second], recorded)
    assert not unchanged_list([first], recorded)
    assert not unchanged_list([first, second, second], recorded)
    assert not unchanged_list([first, AIMessage(content="changed", id="2")], recorded)
    assert not unchanged_list((first, second), recorded)  # a tuple is not the recorded list


def test_an_item_whose_equality_raises_is_taken_as_changed_not_as_an_error() -> None:
    item = NoAnswer()
    assert unchanged_list([item], [item])  # identical: == is not asked
    assert not unchanged_list([NoAnswer()], [item])
