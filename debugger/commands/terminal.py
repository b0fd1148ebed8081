"""Text for a terminal: nothing from a trace may steer it, nor start a line of its own.

Trace fields (node names, run ids, error messages, values) come from other people's code and files;
printed raw, an escape sequence in them could recolour, clear or retitle the user's terminal, or hide
text, and a newline could forge a line (an imported trace whose run id held one forged a row of
`stepscope import`'s answer). Every command prints through this module, and `print` in a command is
`safe_print`: what one call prints is one line, every control character in it (newline, carriage return,
tab, ESC, C0, DEL, C1, bidirectional overrides) and every lone surrogate shown as a visible escape.
A block the command lays out in lines itself (a table whose cells went through `one_line`, a report,
indented JSON) is printed with `print_block`, which keeps its newlines and escapes the rest.
"""

from __future__ import annotations

import re
import sys
from typing import Any

from debugger.diagnostics.value_text import escaped, one_line

__all__ = ["one_line", "print_block", "print_error", "safe", "safe_print"]

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def safe(text: str) -> str:
    """`text` with every control character but newline and tab shown as an escape."""
    return _UNSAFE.sub(escaped, text)


def safe_print(*values: Any, sep: str = " ", end: str = "\n", file: Any = None, flush: bool = False) -> None:
    """`print` of one line: a newline (or any control character) inside the values shows as an escape."""
    _write(one_line(sep.join(str(v) for v in values)), end, file, flush)


def print_block(text: str, *, file: Any = None, flush: bool = False) -> None:
    """Lines the command laid out itself (data inside already through `one_line`): newlines and tabs kept."""
    _write(safe(text), "\n", file, flush)


def print_error(error: dict[str, Any], where: str = "", *, file: Any = None) -> None:
    """An error record of a trace as one line, `error{where}: Class: message`. A message of several lines
    (LangGraph's ends with a troubleshooting link) is joined with spaces: its sentences read on, and no
    line of it can pass for one of the command's own."""
    message = " ".join(line.strip() for line in str(error.get("message", "") or "").splitlines() if line.strip())
    safe_print(f"error{where}: {error.get('class', 'Error')}: {message}", file=file)


def _write(text: str, end: str, file: Any, flush: bool) -> None:
    out = file if file is not None else sys.stdout
    try:
        print(text, end=end, file=out, flush=flush)
    except UnicodeEncodeError:  # a terminal that cannot show a character (LANG=C): its escape instead
        encoding = getattr(out, "encoding", None) or "ascii"
        print(text.encode(encoding, "backslashreplace").decode(encoding), end=end, file=out, flush=flush)
