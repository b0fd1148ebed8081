"""DOT written by hand, so that nothing from a run becomes markup in a drawing.

`graphviz.Digraph` quotes what it is given, but passes a string that starts with `<` and ends with `>`
through as an HTML-like label (a node named `<x>, URL="//evil.example/dot", tooltip=<y>` became a link and
a red fill), lets a final backslash escape the closing quote (a syntax error), and hands graphviz's
escape sequences on to be expanded (`\\N` drew the node's DOT id). Here a drawing is a `DotGraph`, and
every value it writes goes through `dot_text` unless it is `Markup`: an HTML-like label StepScope built,
where each piece of run text went through `html_text`. Names of attributes are StepScope's own.

How graphviz reads what it is given (checked with `dot` 2.43 and graphviz's lib/common/emit.c):
- a double-quoted string keeps its backslashes, except `\\"` for a quote;
- a label, HTML-like or not, then expands `\\N \\G \\E \\T \\H \\L` and line breaks `\\n \\l \\r`, drops
  the backslash of any other escape and reads `\\\\` as one backslash: a backslash is written twice;
- a tooltip is read twice (`interpretCRNL`, then the same expansion): a backslash is written four times;
- entities (`&#92;`, `&amp;`) are decoded before either, so `&` is written `&amp;`.
Control characters, lone surrogates, the characters XML forbids and bidirectional overrides become
visible escapes (`\\x1b`, `\\ud800`, `\\u202e`), as in the terminal, so the SVG holds them as text
and stays valid XML.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from debugger.diagnostics.value_text import escaped

__all__ = ["DotGraph", "Markup", "dot_text", "html_text"]

_BARE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|-?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)")
"""A DOT ID that needs no quotes: a plain identifier or a number (what graphviz's library leaves bare)."""
_KEYWORDS = frozenset({"node", "edge", "graph", "digraph", "subgraph", "strict"})
_INVISIBLE = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]"
)
"""Every character that is not text to show, newline apart (a line break in a tooltip or a label)."""
_HTML_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "]": "&#93;", "\\": "\\\\", "\n": "<br/>"}
_HTML_SPECIAL = re.compile('[&<>"\\]\\\\\n]')


class Markup(str):
    """An HTML-like label StepScope built (without its outer `<>`): written as `<...>`. Run text inside
    it must have gone through `html_text`."""


def visible(text: Any) -> str:
    """`text` with every character that is not text to show written as its escape (`\\x1b`)."""
    return _INVISIBLE.sub(escaped, str(text))


def dot_text(value: Any, *, read_twice: bool = False) -> str:
    """The DOT ID graphviz reads back as exactly `value`: bare if a plain identifier or number, else
    double-quoted with every `&`, backslash and quote escaped. `read_twice` for tooltips, which graphviz
    unescapes once more."""
    text = str(value)
    if _BARE.fullmatch(text) and text.lower() not in _KEYWORDS:
        return text
    text = visible(text).replace("&", "&amp;").replace("\\", "\\\\\\\\" if read_twice else "\\\\")
    return '"' + text.replace('"', '\\"') + '"'


def html_text(value: Any) -> str:
    """Run text as the literal text of an HTML-like label: the markup characters (and `]`, which may end
    a CDATA section) as entities, backslashes doubled, a newline a line break."""
    return _HTML_SPECIAL.sub(lambda m: _HTML_ENTITIES[m.group()], visible(value))


def _value(name: str, value: Any) -> str:
    if isinstance(value, Markup):
        return f"<{value}>"
    return dot_text(value, read_twice=name.endswith("tooltip"))


def _attributes(attributes: dict[str, Any], *, label_first: bool = True) -> str:
    """`name=value ...` sorted by name (a node's or edge's label first), as graphviz's library wrote them."""
    ordered = sorted(attributes.items(), key=lambda item: (label_first and item[0] != "label", item[0]))
    return " ".join(f"{dot_text(k)}={_value(k, v)}" for k, v in ordered if v is not None)


class DotGraph:
    """A DOT digraph (or subgraph) being written, statement by statement, with `graphviz.Digraph`'s
    calls (`attr`, `node`, `edge`, `subgraph`, `source`) and its layout of the text."""

    def __init__(self, name: str, *, keyword: str = "digraph", depth: int = 0) -> None:
        self._head = f"{keyword} {dot_text(name)} {{"
        self._depth = depth
        self._body: list[str] = []

    def _add(self, statement: str) -> None:
        self._body.append("\t" * (self._depth + 1) + statement)

    def attr(self, kind: str | None = None, **attributes: Any) -> None:
        """Defaults for `kind` (`graph`, `node`, `edge`), or with no kind this (sub)graph's own attributes."""
        self._add(_attributes(attributes, label_first=False) if kind is None else f"{kind} [{_attributes(attributes)}]")

    def node(self, name: str, **attributes: Any) -> None:
        self._add(f"{dot_text(name)} [{_attributes(attributes)}]" if attributes else dot_text(name))

    def edge(self, tail: str, head: str, **attributes: Any) -> None:
        line = f"{dot_text(tail)} -> {dot_text(head)}"
        self._add(f"{line} [{_attributes(attributes)}]" if attributes else line)

    @contextmanager
    def subgraph(self, name: str) -> Iterator[DotGraph]:
        """A subgraph written into this graph where the `with` block ends."""
        inner = DotGraph(name, keyword="subgraph", depth=self._depth + 1)
        yield inner
        self._body.extend(inner._lines())

    def _lines(self) -> list[str]:
        indent = "\t" * self._depth
        return [indent + self._head, *self._body, indent + "}"]

    @property
    def source(self) -> str:
        return "\n".join(self._lines()) + "\n"
