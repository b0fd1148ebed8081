"""Scanning a trace file's JSON in chunks: where each top-level value and each step starts and ends, read
by the C JSON decoder (`JSONDecoder.raw_decode`) one value at a time, and how deep a value nests, without
building the file as Python objects (`trace_stream.py` keeps the offsets and decodes a step when asked).
"""

from __future__ import annotations

import codecs
import json
import re
from array import array
from itertools import accumulate
from typing import Any, Callable

from engine.tracefile import TraceFileError

CHUNK = 1 << 20
"""Bytes read at a time; a value longer than what is buffered doubles the next read, so a huge value
costs linear time too."""

MAX_NESTING = 400
"""Deepest JSON nesting a trace may have; recorded values are cut far earlier (engine.codec.MAX_DEPTH)."""

_STRINGS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_STEP = str.maketrans({"[": "\x01", "{": "\x01", "]": "\xff", "}": "\xff"})


def nesting_depth(text: str, limit: int) -> int:
    """How deep `text`'s arrays and objects nest, counted without recursion and at C speed: strings
    removed, brackets turned into +1/-1 steps, the deepest running sum taken. Capped at `limit + 1`."""
    brackets = _NOT_BRACKETS.sub("", _STRINGS.sub("", text)).translate(_STEP)
    if not brackets:
        return 0
    steps = array("b", brackets.encode("latin-1"))
    return min(max(accumulate(steps)), limit + 1)


READ_AHEAD = 16
"""Steps `LazySteps` decodes from where it is asked for when it does not hold that step (one read)."""

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_LITERAL_TAIL = 8
"""An error this close to the end of what is buffered may be a literal or number cut by the chunk."""


class Scanner:
    """A JSON text read in chunks, walked one value at a time with the C decoder, knowing the byte
    offset of where it is (the text is UTF-8; offsets are counted on the bytes, so a step can be read
    back with one seek)."""

    def __init__(self, read: Callable[[int], bytes], source: str) -> None:
        self.read = read
        self.source = source
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.text = ""
        self.pos = 0
        self.byte = 0
        """The byte offset of `text[pos]` in the file."""
        self.eof = False

    def _fill(self) -> bool:
        """Reads more (at least as much as is buffered); False at the end of the file."""
        if self.eof:
            return False
        data = self.read(max(CHUNK, len(self.text) - self.pos))
        try:
            added = self.decoder.decode(data, final=not data)
        except UnicodeDecodeError as exc:
            raise TraceFileError(
                f"{self.source} is not text (byte {self.byte + len(self.text) - self.pos + exc.start}: "
                f"{exc.reason}); a trace file is UTF-8 JSON."
            ) from None
        self.eof = not data
        self.text = self.text[self.pos :] + added
        self.pos = 0
        return bool(data)

    def _advance(self, to: int) -> None:
        piece = self.text[self.pos : to]
        self.byte += len(piece) if piece.isascii() else len(piece.encode("utf-8"))
        self.pos = to

    def peek(self) -> str:
        """The next character that is not whitespace ('' at the end of the file), not consumed."""
        while True:
            end = _WHITESPACE.match(self.text, self.pos).end()
            self._advance(end)
            if end < len(self.text):
                return self.text[end]
            if not self._fill():
                return ""

    def expect(self, char: str, what: str) -> None:
        found = self.peek()
        if found != char:
            raise self._error(
                f"expected {what} at byte {self.byte}, found {found!r}" if found else f"ended before {what}"
            )
        self._advance(self.pos + 1)

    def value(self, decoder: json.JSONDecoder, depth: int) -> tuple[Any, int, int]:
        """The next value, decoded, with its start and end byte offsets; `depth` is how deep it sits."""
        self.peek()
        while True:
            try:
                found, end = decoder.raw_decode(self.text, self.pos)
            except json.JSONDecodeError as exc:
                cut = exc.msg.startswith("Unterminated string") or exc.pos >= len(self.text) - _LITERAL_TAIL
                where = f"byte {self.byte + len(self.text[self.pos : exc.pos].encode())}"  # before a fill moves text
                if cut and self._fill():
                    continue
                kind = "is truncated" if cut else "is not valid JSON"
                # json's "Unterminated string starting at" names the place it means: the byte goes there
                raise self._error(
                    f"{kind}: {exc.msg} {where}" if exc.msg.endswith(" at") else f"{kind} at {where}: {exc.msg}"
                )
            except RecursionError:
                raise TraceFileError(self._too_deep()) from None
            # a number may go on in the next chunk: "12" of "1234", or "0" of "0." + "5" (the decoder stops at
            # the "." it cannot end on, one character before the end of what is buffered)
            number = type(found) in (int, float)
            if (end == len(self.text) or number and end > len(self.text) - _LITERAL_TAIL) and not self.eof:
                self._fill()  # decoded again: filling moves the buffer, so `end` is of the text before it
                continue
            break
        if nesting_depth(self.text[self.pos : end], MAX_NESTING) + depth > MAX_NESTING:
            raise TraceFileError(self._too_deep())
        start = self.byte
        self._advance(end)
        return found, start, self.byte

    def _too_deep(self) -> str:
        return (
            f"{self.source} is nested more than {MAX_NESTING} levels deep; StepScope never writes such "
            "a file, so it is refused unread."
        )

    def _error(self, problem: str) -> TraceFileError:
        return TraceFileError(f"{self.source} {problem}. Re-export the run, or open a complete .json trace file.")
