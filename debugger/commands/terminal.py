"""Text for a terminal: nothing from a trace may steer it.

Trace fields (node names, error messages, values) come from other people's code and files; printed
raw, an escape sequence in them could recolour, clear or retitle the user's terminal, or hide text.
`safe` shows every control character (C0, DEL, C1, bidirectional overrides) and every lone surrogate
as a visible escape, keeping newlines and tabs. `safe_print` is `print` through that filter.
`one_line` is for a piece of data inside a line (a run id, a node name, a table cell): it escapes
newlines, carriage returns and tabs too, so data can never start a line of its own (an imported
trace whose run id holds a newline could otherwise forge a row of `stepscope runs`).
"""

from __future__ import annotations

import re
import sys
from typing import Any

from debugger.diagnostics.value_text import escaped, one_line

__all__ = ["one_line", "safe", "safe_print"]

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def safe(text: str) -> str:
    """`text` with every control character but newline and tab shown as an escape."""
    return _UNSAFE.sub(escaped, text)


def safe_print(*values: Any, sep: str = " ", end: str = "\n", file: Any = None, flush: bool = False) -> None:
    print(safe(sep.join(str(v) for v in values)), end=end, file=file if file is not None else sys.stdout, flush=flush)
