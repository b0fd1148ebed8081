"""Pure presenters: recorded values and merges in plain words. No Streamlit, no I/O.

Every function takes encoded values (`engine.codec`) or trace records and returns text, so the CLI,
the app and the tests say exactly the same thing.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable

from debugger.diagnostics.replay import repeated_items
from debugger.diagnostics.value_text import MESSAGE_REDUCERS, escaped, one_line, short
from debugger.i18n import _, join_sentences, ngettext
from engine.codec import MISSING_ENCODED, TYPE
from engine.trace import ReducerCallRecord

MISSING = MISSING_ENCODED
# CommonMark lets a backslash escape any ASCII punctuation and shows it literally; escaping all of it
# (not a list of "special" characters) also breaks `://`, `www.` and `@`, so GFM autolinks cannot fire,
# and `:red[...]`, `$...$`, `<img>`, `![..](..)` and block starts (`#`, `-`, `1.`, `>`) are plain text
_ASCII_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


_AUTOLINK = re.compile(r"(?i)(?<=[a-z0-9])(?=://)|(?<=www)(?=\.)|(?=@)")
"""Where GFM would start an autolink (`scheme://`, `www.`, `user@host`): Streamlit's Markdown links them
even when every character is backslash-escaped, so a word joiner (U+2060, invisible) goes in between."""


_TYPOGRAPHY = re.compile(r"(?m)(?:^|(?<=\s))(?:<->|->|<-|--|>=|<=|~=)(?=\s|$)")
"""The tokens Streamlit's Markdown turns into symbols when they stand between spaces (`a -> b` shows as
`a → b`, `--` as a dash, `>=` as `≥`), escaped or not: a word joiner (U+2060) between their characters
keeps a value's own `->` as written."""


def md(text: Any) -> str:
    """Trace data (or a sentence holding it) as literal text for anything that reads Markdown (markdown,
    captions, alerts, headers, labels): `__start__` stays `__start__`, a link stays its characters, a URL
    is not made a link. Newlines stay; other control characters show as escapes. Not inside backticks."""
    text = _AUTOLINK.sub("\u2060", _CONTROL.sub(escaped, str(text)))
    text = _TYPOGRAPHY.sub(lambda token: "\u2060".join(token.group()), text)
    return _ASCII_PUNCTUATION.sub(r"\\\1", text)


def code(text: Any) -> str:
    """Trace data for inside a code span (`` `...` ``), where Markdown is inert: a backtick would end the
    span and a blank line the paragraph, so backticks become quotes and newlines (every control
    character) visible escapes."""
    return one_line(text).replace("`", "'")


"""LangGraph's message reducer, by its Python name and by LangGraph.js's: both merge by message id."""


def readable(value: Any) -> Any:
    """An encoded value as people read it, still JSON: a message is `{"type": "human", "content": ...,
    ...its other fields}` instead of the trace's `{"$type": "message", "message": {"type", "data"}}`,
    a tuple a list, an empty key `"(empty)"`. Objects and reprs keep their tags: the class is news."""
    if isinstance(value, list):
        return [readable(v) for v in value]
    if not isinstance(value, dict):
        return value
    kind = value.get(TYPE)
    if kind == "message" and isinstance(value.get("message"), dict):
        message = value["message"]
        data = message.get("data") if isinstance(message.get("data"), dict) else {}
        return {"type": message.get("type"), **{k: readable(v) for k, v in data.items()}}
    if kind == "tuple" and isinstance(value.get("items"), list):
        return readable(value["items"])
    if value == MISSING:
        return "(empty)"
    return {k: readable(v) for k, v in value.items()}


def is_message_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, dict) and v.get(TYPE) == "message" for v in value)


def explain_call(
    call: ReducerCallRecord, before: Any, after: Any, *, applied: bool = True, appends: bool = False
) -> str:
    """One sentence on what a reducer call did, e.g. "operator.add appended ['b'] to ['a']". With
    `applied=False` (a step that failed) it says what was computed and that it never reached the state.
    `appends`: the reducer appended its write to a value elsewhere (`appending_channels`), so a call on an
    empty start that returned its write appended it too."""
    if call.error is not None:
        first = call.error["message"].splitlines()[0]
        if call.reducer == "LastValue":
            return _(
                "{writer} wrote {write} to {channel}, a key without a reducer, which takes one write per step; "
                "another task wrote it in the same step, so the barrier refused the writes and the step failed: {error}"
            ).format(writer=call.writer_name, write=short(call.write, 40), channel=repr(call.channel), error=first)
        return _("{reducer} refused {write} from {writer}: {error}").format(
            reducer=call.reducer, write=short(call.write, 40), writer=call.writer_name, error=first
        )
    sentence = _explain_applied(call, before, after, appends)
    if applied:
        return sentence
    return _("would have {sentence}, but the step failed, so nothing was applied").format(
        sentence=sentence[0].lower() + sentence[1:]
    )


def _explain_applied(call: ReducerCallRecord, before: Any, after: Any, appends: bool = False) -> str:
    # the first sentence that fits, most particular first: an Overwrite, a first value, a plain key, then
    # what the reducer's result says about its write
    appended = _appended(call, before, after)
    return (
        _set_directly(call, before, after)
        or _merged_messages(call, before, after, appended)
        or _filled_empty_start(call, before, after, appends)
        or _replaced_or_kept(call, before, after)
        or _grew(call, before, after, appended)
        or _computed(call, before, after)
    )


def _set_directly(call: ReducerCallRecord, before: Any, after: Any) -> str | None:
    """An Overwrite, a channel's first value or a plain key's write: the reducer combined nothing."""
    channel, write = call.channel, call.write
    if isinstance(write, dict) and write.get(TYPE) == "Overwrite":
        return _("Overwrite replaced {channel} with {value}, bypassing {reducer}").format(
            channel=repr(channel), value=short(after, 60), reducer=call.reducer
        )
    if before == MISSING:
        if call.reducer in ("LastValue", "AnyValue"):
            return _("set {channel} to {value} (it was empty)").format(channel=repr(channel), value=short(after, 60))
        return _(
            "stored {write} as {channel}'s first value: the channel starts empty, so {reducer} was not called"
        ).format(write=short(write, 60), channel=repr(channel), reducer=call.reducer)
    if call.reducer in ("LastValue", "AnyValue"):
        return _("replaced {channel}: {before} → {after} (a plain key keeps the last write)").format(
            channel=repr(channel), before=short(before, 40), after=short(after, 40)
        )
    return None


def _merged_messages(call: ReducerCallRecord, before: Any, after: Any, appended: list[Any] | None) -> str | None:
    """A message reducer's merge: appended by the recorded delta, else compared message by message."""
    if call.reducer not in MESSAGE_REDUCERS:
        return None
    if (
        appended
        and is_message_list(appended)
        and all(m["message"]["data"].get("id") for m in appended)
        and before
        and is_message_list(before[:1])
    ):
        # the recorded delta says these were appended, nothing replaced: no need to compare whole lists
        return ngettext(
            "{reducer} appended {count} message ({messages})",
            "{reducer} appended {count} messages ({messages})",
            len(appended),
        ).format(reducer=call.reducer, count=len(appended), messages=short(appended, 50))
    if is_message_list(before) and is_message_list(after):
        return _("{reducer} {changes}").format(reducer=call.reducer, changes=_message_changes(before, after))
    return None


def _filled_empty_start(call: ReducerCallRecord, before: Any, after: Any, appends: bool) -> str | None:
    """A reducer that returned its write from an empty list or string."""
    from debugger.diagnostics.facts import APPENDING  # the run's analysis: not loaded by a command that shows no merge

    write = call.write
    if (
        after != write
        or before not in ([], "")
        or write in ([], "")
        or call.reducer in APPENDING
        or call.reducer in MESSAGE_REDUCERS
    ):
        return None
    if appends:
        return _("{reducer} appended {write} to the empty {before}: {channel} is now {after}").format(
            reducer=call.reducer,
            write=short(write, 50),
            before=short(before, 10),
            channel=repr(call.channel),
            after=short(after, 50),
        )
    # one call on an empty start cannot tell an append from a replacement: both give the write
    return _(
        "{reducer} turned the empty {before} into its write, {write}: on an empty start, appending and "
        "replacing give the same"
    ).format(reducer=call.reducer, before=short(before, 10), write=short(write, 50))


def _replaced_or_kept(call: ReducerCallRecord, before: Any, after: Any) -> str | None:
    """A keep-the-last reducer (the result is the write) or a keep-the-first one (the write left no trace)."""
    channel, write = call.channel, call.write
    if _took_the_write(before, write, after):
        # what was there is dropped, even when the write happens to start with it
        gone = [item for item in before if item not in after] if isinstance(before, list) else []
        sentence = _("{reducer} returned the write itself, {write}, as the new value of {channel} in place of {before}")
        gone_words = ngettext(": {gone} is gone", ": {gone} are gone", len(gone)).format(gone=short(gone, 40))
        return sentence.format(
            reducer=call.reducer, write=short(write, 50), channel=repr(channel), before=short(before, 40)
        ) + (gone_words if gone else "")
    if after == before and write not in ([], "", {}, None, 0):
        # a keep-the-first reducer (or one that ignores this write): the write left no trace, silently
        return _("{reducer} kept {channel} as it was, {before}: the write {write} was dropped").format(
            reducer=call.reducer, channel=repr(channel), before=short(before, 40), write=short(write, 40)
        )
    return None


def _grew(call: ReducerCallRecord, before: Any, after: Any, appended: list[Any] | None) -> str | None:
    """A list appended to, a number combined, a string extended."""
    write = call.write
    if isinstance(before, list) and isinstance(after, list):
        if isinstance(write, list) and write == [] and after == before:
            if not before:  # e.g. the input `{"log": []}`: a normal start, nothing to clear
                return _("{reducer} appended nothing: the write [] adds no items, so {channel} stays []").format(
                    reducer=call.reducer, channel=repr(call.channel)
                )
            return _("{reducer} appended nothing: [] cannot clear {channel}, it adds no items").format(
                reducer=call.reducer, channel=repr(call.channel)
            )
        if appended is not None or after[: len(before)] == before:
            added = after[len(before) :]
            duplicates = repeated_items(before, after)
            note = _(" ({count} of them already there: duplicated)").format(count=len(duplicates)) if duplicates else ""
            return _("{reducer} appended {added} to {before}{note}").format(
                reducer=call.reducer, added=short(added, 50), before=short(before, 40), note=note
            )
    if isinstance(before, (int, float)) and isinstance(after, (int, float)) and not isinstance(before, bool):
        return _("{reducer} combined {before} with {write} → {after}").format(
            reducer=call.reducer, before=short(before), write=short(write), after=short(after)
        )
    if (
        isinstance(before, str)
        and isinstance(after, str)
        and after == before + (write if isinstance(write, str) else "")
    ):
        return _("{reducer} appended {write} to {before} → {after}").format(
            reducer=call.reducer, write=repr(write), before=repr(before), after=repr(after)
        )
    return None


def _computed(call: ReducerCallRecord, before: Any, after: Any) -> str:
    """Any other reducer call: its arguments and what it returned."""
    if after == before:
        return _("{reducer}({before}, {write}) left {channel} unchanged").format(
            reducer=call.reducer, before=short(before, 30), write=short(call.write, 30), channel=repr(call.channel)
        )
    return _("{reducer}({before}, {write}) returned {after}").format(
        reducer=call.reducer, before=short(before, 30), write=short(call.write, 30), after=short(after, 40)
    )


def appending_channels(calls: Iterable[tuple[ReducerCallRecord, Any, Any]]) -> set[str]:
    """The channels whose reducer, in these (call, before, after), appended its write to a value that was not
    empty: after == before + write. Its call on an empty start appended too, though it returned its write."""
    return {
        call.channel
        for call, before, after in calls
        if call.error is None
        and before not in ([], "", None, MISSING)
        and isinstance(before, (list, str))
        and type(before) is type(call.write)
        and after == before + call.write
    }


def _took_the_write(before: Any, write: Any, after: Any) -> bool:
    """The reducer's result is its write, not a combination with what was there: `after == write`, while
    appending or adding the write to a non-empty value would have given something else."""
    if after != write or after == before or before in ([], "", 0, None):
        return False
    if isinstance(before, list) and isinstance(write, list):
        return after != before + write
    if isinstance(before, str) and isinstance(write, str):
        return after != before + write
    if isinstance(before, (int, float)) and isinstance(write, (int, float)) and not isinstance(before, bool):
        return after != before + write
    return isinstance(before, type(write)) or isinstance(write, type(before))


def _appended(call: ReducerCallRecord, before: Any, after: Any) -> list[Any] | None:
    """The items a call appended, read from its recorded delta (`{"extend": [...]}`) when it has one."""
    added = call.after.get("extend") if isinstance(call.after, dict) else None
    if (
        isinstance(added, list)
        and isinstance(before, list)
        and isinstance(after, list)
        and len(after) == len(before) + len(added)
    ):
        return added
    return None


def _message_changes(before: list[Any], after: list[Any]) -> str:
    def ident(m: Any) -> str | None:
        return m["message"]["data"].get("id")

    old = {ident(m): m for m in before}
    new = {ident(m): m for m in after}
    appended = [m for m in after if ident(m) not in old]
    replaced = [m for m in after if ident(m) in old and old[ident(m)] != m]
    removed = [i for i in old if i not in new]
    parts = []
    if appended:
        parts.append(
            ngettext(
                "appended {count} message ({messages})", "appended {count} messages ({messages})", len(appended)
            ).format(count=len(appended), messages=short(appended, 50))
        )
    if replaced:
        parts.append(_("replaced by id {ids} in place").format(ids=", ".join(str(ident(m)) for m in replaced)))
    if removed:
        parts.append(_("removed id {ids}").format(ids=", ".join(str(i) for i in removed)))
    return join_sentences(parts) if parts else _("changed nothing (every message was already there, unchanged)")


def interrupt_line(item: dict[str, Any], *, with_id: bool = False) -> str:
    """One `interrupt()` that stopped a run (`Trace.interrupts`), its question as JSON: `interrupted
    (node ask): {"question": ...}`; `with_id` adds the id an answer by id names (several questions)."""
    node, ident = item.get("node"), item.get("id") if with_id else None
    if node and ident:
        where = _(" (node {node}, id {id})").format(node=node, id=ident)
    elif node or ident:
        where = _(" (node {node})").format(node=node) if node else _(" (id {id})").format(id=ident)
    else:
        where = ""
    return _("interrupted{where}: {value}").format(where=where, value=json.dumps(item["value"], ensure_ascii=False))
