"""Babel extractors for the lessons: a sample's texts are plain module attributes (`title = "..."`), not
`_()` calls, so the lesson files stay free of the debugger's imports and every sentence is found.

    extract_lessons(fileobj, ...)     a Python sample: every top-level `NAME = "..."` of `LESSON_TEXTS`
    extract_js_lessons(fileobj, ...)  a LangGraph.js lesson: every `export const NAME = "..." + "...";`

Both follow Babel's extractor protocol (`babel.messages.extract`): they yield (line, function, message,
comments). Standard library only, so importing this module needs no Babel.
"""

from __future__ import annotations

import ast
import json
import re
from typing import IO, Any, Iterator

LESSON_TEXTS = ("title", "summary", "lesson", "learn_prompt", "task", "hint", "solved", "exercise")
"""The module attributes of a sample that a learner reads (the later ones are for the exercises)."""

EXERCISE_TEXTS = ("task", "hint", "expected")
"""The keyword arguments of an `Exercise(...)` (sample_graphs/exercises.py) that a learner reads."""

JS_LESSON_TEXTS = ("title", "summary", "lesson", "learnPrompt", "task", "hint")
"""The exports of a LangGraph.js lesson that a learner reads."""

_JS_STRING = r'"(?:[^"\\\n]|\\.)*"'
_JS_EXPORT = re.compile(
    rf"^export const (?P<name>\w+)\s*=\s*(?P<value>{_JS_STRING}(?:\s*\+\s*{_JS_STRING})*)\s*;", re.MULTILINE
)

Extracted = Iterator[tuple[int, str | None, str, list[str]]]


def lesson_texts(source: str) -> Iterator[tuple[int, str, str]]:
    """(line, attribute, text) of each lesson text a Python sample assigns at its top level, and of each
    text an exercise is given (`Exercise(..., task="...", hint="...")`)."""
    tree = ast.parse(source)
    for statement in tree.body:
        if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
            continue
        target, value = statement.targets[0], statement.value
        if isinstance(target, ast.Name) and target.id in LESSON_TEXTS and _is_text(value):
            yield statement.lineno, target.id, value.value
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Exercise":
            for keyword in node.keywords:
                if keyword.arg in EXERCISE_TEXTS and _is_text(keyword.value):
                    yield keyword.value.lineno, keyword.arg, keyword.value.value


def _is_text(value: ast.expr) -> bool:
    return isinstance(value, ast.Constant) and isinstance(value.value, str) and bool(value.value)


def js_lesson_texts(source: str) -> Iterator[tuple[int, str, str]]:
    """(line, export, text) of each lesson text a LangGraph.js lesson exports as a string literal."""
    for match in _JS_EXPORT.finditer(source):
        if match.group("name") in JS_LESSON_TEXTS:
            parts = re.findall(_JS_STRING, match.group("value"))
            line = source.count("\n", 0, match.start()) + 1
            yield line, match.group("name"), "".join(json.loads(part) for part in parts)


def extract_lessons(fileobj: IO[bytes], keywords: Any, comment_tags: Any, options: Any) -> Extracted:
    """Babel's extractor for `sample_graphs/*.py`."""
    for line, name, text in lesson_texts(fileobj.read().decode("utf-8")):
        yield line, None, text, [f"lesson {name}"]


def extract_js_lessons(fileobj: IO[bytes], keywords: Any, comment_tags: Any, options: Any) -> Extracted:
    """Babel's extractor for `sample_graphs/js/*.mjs`."""
    for line, name, text in js_lesson_texts(fileobj.read().decode("utf-8")):
        yield line, None, text, [f"lesson {name}"]
