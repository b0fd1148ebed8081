"""Every lesson's exercise: a task on the lesson's own code, how to tell it is solved, a hint and the
reference answer. Not a sample (the gallery leaves this module out).

A lesson that shows a bug (its module also ships `fixed_graph`) starts from its own code, and its answer is
that code with `edits` applied; a lesson that shows something working starts from its code with `breaks`
applied, and its answer is the lesson as written. An exercise is solved when the edited module's `graph`
runs to `status`, none of the finding kinds in `gone` is left (as `stepscope diagnose` finds them) and
`expect` holds of the final state; `expected` says in words what a right result is.

    EXERCISES["subgraph_trap"].starter()   -> the code the learner edits
    EXERCISES["subgraph_trap"].answer()    -> the reference answer (checked by tests/test_exercises.py)
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Callable

from sample_graphs.gallery import SAMPLES, load_sample

Edits = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Exercise:
    """One lesson's task (see the module docstring)."""

    lesson: str
    task: str
    hint: str
    expected: str
    """What a right final state is, in words (said when the result is wrong)."""
    expect: Callable[[dict[str, Any]], bool]
    gone: tuple[str, ...] = ()
    """Finding kinds that must not be left."""
    edits: Edits = ()
    breaks: Edits = ()
    status: str = "done"

    def lesson_source(self) -> str:
        return inspect.getsource(load_sample(self.lesson))

    def starter(self) -> str:
        """The code the learner starts from."""
        return _apply(self.lesson_source(), self.breaks)

    def answer(self) -> str:
        """The reference answer."""
        return _apply(self.lesson_source(), self.edits)


def _apply(source: str, edits: Edits) -> str:
    """`source` with each (old, new) replaced once; an `old` that is not there exactly once is a bug here."""
    for old, new in edits:
        if source.count(old) != 1:
            raise ValueError(f"exercise edit {old[:50]!r} matches {source.count(old)} places, not one")
        source = source.replace(old, new)
    return source


def _messages(state: dict[str, Any]) -> list[Any]:
    return list(state.get("messages") or [])


_LIST = [
    Exercise(
        "parallel_append_race",
        task="Both parallel nodes must get their message into `messages`: make the run end with "
        "'hi', 'from A' and 'from B', and no lost update.",
        hint="Each node reads the whole list and writes it back; keep_last keeps one of those lists. Return only "
        "the new message, and give `messages` a reducer that appends (operator.add).",
        expected="`messages` holds 'hi', 'from A' and 'from B', each once",
        expect=lambda s: sorted(s.get("messages", [])) == ["from A", "from B", "hi"],
        gone=("read_modify_write",),
        edits=(
            ("messages: Annotated[list[str], keep_last]", "messages: Annotated[list[str], operator.add]"),
            (
                'return {"messages": state["messages"] + ["from A"]}  # read all, add one, write all',
                'return {"messages": ["from A"]}',
            ),
            ('return {"messages": state["messages"] + ["from B"]}', 'return {"messages": ["from B"]}'),
        ),
    ),
    Exercise(
        "retries_counter",
        task="`retries` must count the attempts: three attempts, `retries` == 3 and the last draft 'draft 3'.",
        hint="`retries` adds what a node sends (operator.add). Sending the new total adds the old count again.",
        expected="`retries` is 3 and `answer` is 'draft 3'",
        expect=lambda s: s.get("retries") == 3 and s.get("answer") == "draft 3",
        gone=("read_modify_write",),
        edits=(('increment = state["retries"] + 1 if send_total else 1', "increment = 1"),),
    ),
    Exercise(
        "refund_concurrent_update",
        task="Let both lookups write `v` in the same superstep without the INVALID_CONCURRENT_GRAPH_UPDATE error, "
        "keeping both values.",
        hint="A key without a reducer takes one write per superstep. Declare how parallel writes merge: "
        "Annotated[list[int], operator.add], and have each node return a list.",
        expected="`v` holds 1 and 2",
        expect=lambda s: sorted(s.get("v") or []) == [1, 2],
        gone=("concurrent_update",),
        edits=(
            ("    v: int  # no reducer: one value, one write per step", "    v: Annotated[list[int], operator.add]"),
            (
                'builder.add_node("lookup_order", lambda state: {"v": 1})',
                'builder.add_node("lookup_order", lambda state: {"v": [1]})',
            ),
            ('lambda state: {"v": 2})', 'lambda state: {"v": [2]})'),
            ('example_input = {"v": 0}', 'example_input = {"v": []}'),
        ),
    ),
    Exercise(
        "annotation_state",
        task="The run fails because node_a and node_b both write `answer` in one superstep. Keep both messages and "
        "end with exactly one answer.",
        hint="`answer` has no reducer: only one node may write it per superstep. Let one node write it, or add a "
        "node after both that writes it.",
        expected="`messages` holds 'hi', 'from A' and 'from B' and `answer` is set",
        expect=lambda s: sorted(s.get("messages", [])) == ["from A", "from B", "hi"] and bool(s.get("answer")),
        gone=("concurrent_update",),
        edits=(('{"messages": ["from B"], "answer": "B\'s answer"}', '{"messages": ["from B"]}'),),
    ),
    Exercise(
        "reducer_table",
        task="A and B both write `v` in one superstep and the run fails. Make `v` add both writes (1 + 2).",
        hint="Give `v` a reducer: Annotated[int, operator.add].",
        expected="`v` is 3 and `steps` holds 'a' and 'b'",
        expect=lambda s: s.get("v") == 3 and sorted(s.get("steps", [])) == ["a", "b"],
        gone=("concurrent_update",),
        edits=(("    v: int  # no reducer: overwrite", "    v: Annotated[int, operator.add]"),),
    ),
    Exercise(
        "add_messages_basics",
        task="`rewrite` should correct the AI's message ('hello', id '2') in place, but it appends a new message. "
        "Make it replace the message, so the run ends with two messages, ids '2' and '3'.",
        hint="add_messages replaces the message whose id is the new message's id; a new id is appended.",
        expected="two messages, ids '2' ('改写了') and '3'",
        expect=lambda s: [m.id for m in _messages(s)] == ["2", "3"] and _messages(s)[0].content == "改写了",
        breaks=(('AIMessage("改写了", id="2")]})  # known id', 'AIMessage("改写了", id="4")]})  # known id'),),
    ),
    Exercise(
        "subgraph_trap",
        task="Stop the subgraph re-appending `log`: the run must end with log == ['parent', 'sub-1'].",
        hint="A compiled subgraph added as a node returns its whole final state, which goes through the parent's "
        "reducer again. Call the subgraph from a plain node that returns only what the subgraph added.",
        expected="`log` is ['parent', 'sub-1']",
        expect=lambda s: s.get("log") == ["parent", "sub-1"],
        gone=("subgraph_duplication",),
        edits=(
            (
                '    parent.add_node("child", sub.compile())',
                "    subapp = sub.compile()\n"
                '    parent.add_node("child", lambda state: {"log": subapp.invoke({"log": []})["log"]})',
            ),
        ),
    ),
    Exercise(
        "single_node_agent",
        task="The reply replaces the conversation: the user's message is gone. Make the reply be appended, so the "
        "run ends with the user's message, then the AI's.",
        hint="A key without a reducer keeps the last write. Messages need add_messages (MessagesState has it).",
        expected="two messages: the user's, then the AI's",
        expect=lambda s: [m.type for m in _messages(s)] == ["human", "ai"],
        breaks=(
            (
                "from engine import END, START, AIMessage, MessagesState, StateGraph",
                "from typing import TypedDict\n\nfrom engine import END, START, AIMessage, MessagesState, StateGraph",
            ),
            (
                "def call_llm(state: MessagesState) -> dict:",
                "class ChatState(TypedDict):\n    messages: list  # no reducer: the last write wins\n\n\n"
                "def call_llm(state: ChatState) -> dict:",
            ),
            ("    builder = StateGraph(MessagesState)", "    builder = StateGraph(ChatState)"),
        ),
    ),
    Exercise(
        "reducer_forms",
        task="`callCount` should count the node calls: 2 after plan and act. Make it count.",
        hint="Without a reducer a key keeps the last write (1). A counter needs a reducer that adds.",
        expected="`callCount` is 2",
        expect=lambda s: s.get("callCount") == 2,
        breaks=(
            (
                "    callCount: Annotated[int, operator.add]  # form 3: count, from 0 (the article's key name)",
                "    callCount: int  # form 3: count, from 0 (the article's key name)",
            ),
        ),
    ),
    Exercise(
        "react_agent",
        task="After the tools run, the graph ends and the model never answers. Make the model see the tool results "
        "and answer: the last message must be '12 x 7 + 5 = 89'.",
        hint="The loop is an edge from the tools node back to the model node.",
        expected="the last message is '12 x 7 + 5 = 89'",
        expect=lambda s: bool(_messages(s)) and _messages(s)[-1].content == "12 x 7 + 5 = 89",
        breaks=(
            (
                'builder.add_edge("tools", "llm")  # after the tools, back to the model',
                'builder.add_edge("tools", END)  # after the tools, back to the model',
            ),
        ),
    ),
    Exercise(
        "fan_out_search",
        task="Make the two searches stop losing results: both run in one superstep, and `results` must hold both.",
        hint="Two writes to a key without a reducer in one superstep are an error. Declare `results` with a reducer "
        "that appends.",
        expected="`results` holds both searches' results",
        expect=lambda s: len(s.get("results") or []) == 2,
        gone=("concurrent_update",),
        breaks=(
            (
                "    results: Annotated[list[str], operator.add]  # both searches append here",
                "    results: list[str]  # both searches write here",
            ),
        ),
    ),
    Exercise(
        "stream_updates",
        task="The model asks for the weather tool, but the graph ends instead. Route a tool call to the tools node, "
        "so the answer gives Paris's forecast.",
        hint="The router after the model decides: 'tools' when the last message has tool_calls, else END.",
        expected="the last message starts 'In Paris it is'",
        expect=lambda s: bool(_messages(s)) and str(_messages(s)[-1].content).startswith("In Paris it is"),
        breaks=(
            (
                'return "tools" if getattr(state["messages"][-1], "tool_calls", None) else END',
                "return END",
            ),
        ),
    ),
    Exercise(
        "order_dependent_reducer",
        task="The answer depends on which node's name sorts first, not on which quote is newer. Make the answer "
        "the newest quote ($120, live) whatever the nodes are called.",
        hint="A keep-first reducer picks a winner by application order (node names). Collect every quote under its "
        "own key, then let one node choose the newest.",
        expected="`answer` is the live quote, '$120 (live, 2025-06-01)'",
        expect=lambda s: str(s.get("answer", "")).startswith("$120"),
        gone=("order_sensitive",),
        edits=(("graph = build_broken()", "graph = build_fixed()"),),
    ),
    Exercise(
        "uneven_join",
        task="`join` runs twice, once after each branch. Make it run once, after both `clean` and `quick`.",
        hint="Two plain edges into a node schedule it after each; add_edge([a, b], node) waits for both.",
        expected="`log` has exactly one 'join' entry, which saw the 3 entries before it",
        expect=lambda s: [e for e in s.get("log", []) if e.startswith("join")] == ["join (saw 3 entries)"],
        edits=(("graph = build(waiting_edge=False)", "graph = build(waiting_edge=True)"),),
    ),
    Exercise(
        "map_reduce_send",
        task="Every Send task writes `jokes` in the same superstep and the run fails. Collect all three jokes.",
        hint="The Send tasks run in parallel: `jokes` needs a reducer that appends.",
        expected="`jokes` holds three jokes",
        expect=lambda s: len(s.get("jokes") or []) == 3,
        gone=("concurrent_update",),
        breaks=(
            (
                "    jokes: Annotated[list[str], operator.add]  # every mapped task appends here",
                "    jokes: list[str]  # every mapped task writes here",
            ),
        ),
    ),
    Exercise(
        "command_goto",
        task="A refund question is answered by billing and by general. Make it go to billing only.",
        hint="triage's Command(goto=...) already routes; a plain edge out of triage runs its target as well.",
        expected="`log` has 'billing' and no 'general'",
        expect=lambda s: "billing" in s.get("log", []) and "general" not in s.get("log", []),
        edits=(("graph = build(leftover_edge=True)", "graph = build(leftover_edge=False)"),),
    ),
    Exercise(
        "endless_loop",
        task="The loop never reaches MAX_ATTEMPTS and hits the recursion limit. Make it stop after 3 attempts.",
        hint="`attempts` has no reducer, so each {'attempts': 1} replaces the count with 1. Make the key add.",
        expected="the run ends (status done) with `attempts` == 3",
        expect=lambda s: s.get("attempts") == 3,
        edits=(("graph = build(OverwrittenCounter)", "graph = build(AddingCounter)"),),
    ),
    Exercise(
        "in_place_mutation",
        task="`notes` ends doubled. Make add_note add 'checked' once: notes == ['intro', 'checked'].",
        hint="The node appends to the state's own list and returns the whole list to operator.add. Return only the "
        "new item, and leave the state's list alone.",
        expected="`notes` is ['intro', 'checked']",
        expect=lambda s: s.get("notes") == ["intro", "checked"],
        gone=("in_place_mutation", "read_modify_write"),
        edits=(("graph = build(append_and_return)", "graph = build(return_delta)"),),
    ),
    Exercise(
        "clear_with_empty_list",
        task="`reset` should empty `items` before `refill`, but the stale items stay. Make the run end with "
        "items == ['fresh'].",
        hint="operator.add appends [] as nothing. Overwrite([]) replaces the value, bypassing the reducer.",
        expected="`items` is ['fresh']",
        expect=lambda s: s.get("items") == ["fresh"],
        gone=("empty_list_clear",),
        edits=(('graph = build(lambda: [])  # "clear" = add nothing', "graph = build(lambda: Overwrite([]))"),),
    ),
    Exercise(
        "slow_research",
        task="The two searches run in one superstep and both write `notes`, which has no reducer. Keep every note.",
        hint="Give `notes` a reducer that appends: Annotated[list[str], operator.add].",
        expected="`notes` holds the plan, both searches, the draft and the review (5 notes)",
        expect=lambda s: len(s.get("notes") or []) == 5,
        gone=("concurrent_update",),
        breaks=(("    notes: Annotated[list[str], operator.add]", "    notes: list[str]"),),
    ),
]

EXERCISES: dict[str, Exercise] = {exercise.lesson: exercise for exercise in _LIST}
"""Lesson name -> its exercise; every lesson of the gallery has one (tests/test_exercises.py)."""

MISSING_EXERCISES = tuple(name for name in SAMPLES if name not in EXERCISES)
