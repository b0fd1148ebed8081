"""The live page's words: pure functions from a `LiveSnapshot` to its status line, the hint of an edit at a
pause and the values typed in its boxes. The drawing and the steps are the stepper's (`live_stepper.py`).
No Streamlit here; `debugger/views/live.py` renders these.
"""

from __future__ import annotations

import json
from typing import Any

from debugger import i18n
from debugger.i18n import N_, _
from debugger.live.status import ASKED_STATES, LiveSnapshot
from debugger.model.present import code

STATUS_WORDS = {
    "starting": N_("⏳ starting"),
    "running": N_("▶ running"),
    "paused": N_("⏸ paused"),
    "stopping": N_("⏹ stopping"),
    "done": N_("✅ done"),
    "error": N_("✖ failed"),
    "interrupted": N_("⏸ interrupted"),
    "recursion_limit": N_("✖ recursion limit"),
    "cancelled": N_("⏹ stopped"),
    "timeout": N_("⏱ timed out"),
}
"""A live run's state as its status line and the sidebar say it (translated where shown)."""


def status_word(status: str) -> str:
    """A live run's state in the page's language: '▶ running', '✅ done'."""
    return _(STATUS_WORDS[status]) if status in STATUS_WORDS else status


def status_line(snap: LiveSnapshot) -> str:
    words = status_word(snap.status)
    if snap.step is not None and snap.running:
        parts = []
        for task in snap.running:
            took = f" {task.duration:.1f} s" if task.duration is not None else ""
            if task.state in ("running", "waiting"):
                parts.append(f"{task.name} ⏳")
            elif task.state in ASKED_STATES:
                parts.append(_("{node} ⏸ asked").format(node=task.name))
            else:
                parts.append(f"{task.name} {'✓' if task.state == 'done' else '✖'}{took}")
        return _("{status}: step {step}: {tasks}").format(status=words, step=snap.step, tasks=i18n.join_names(parts))
    if snap.pause is not None:
        return _("{status} before step {step}: {reasons}").format(
            status=words, step=snap.pause.step, reasons=i18n.say(list(snap.pause.reasons))
        )
    return _("{status}: {message}").format(status=words, message=i18n.say(snap.message)) if snap.message else words


def edit_hint(key: str, reducer: str, as_node: str) -> str:
    """What an edit of `key` will do, in words (Markdown: names in code spans)."""
    if reducer in ("LastValue", "AnyValue", "EphemeralValue"):
        return _("`{key}` is a plain key: your value replaces it, as if `{node}` had returned it.").format(
            key=code(key), node=code(as_node)
        )
    return _(
        "`{key}` has the reducer `{reducer}`: your value is folded in through it as `{node}`'s write "
        "(for `operator.add` on a list, give a list: it is appended)."
    ).format(key=code(key), reducer=code(reducer), node=code(as_node))


def value_text(encoded: Any) -> str:
    return json.dumps(encoded, ensure_ascii=False, indent=1, default=str)


def parse_value(text: str) -> Any:
    """The value a user typed: JSON, or (when it is not JSON) the text itself as a string."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text
