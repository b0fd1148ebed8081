"""Fix snippets in the app's own language: a finding about a LangGraph.js run shows JavaScript.

The checks write their fixes once, in Python (`key: Annotated[list, operator.add]`, `return {"key": [...]}`);
`in_javascript(finding)` rewrites them with one small table of idioms, line by line, as the seed articles
write LangGraph.js:

    key: Annotated[list, operator.add]   # why
        ->  key: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),   // why
    return {"key": [...]}                  ->  return { key: [...] };
    def node(state):  (an indented block)  ->  function node(state) { ... }
    state["key"], state.get("key") or []   ->  state.key, state.key ?? []
    builder.add_edge("a", "b")             ->  builder.addEdge("a", "b");
    graph.invoke(x, {"recursion_limit": 9})  ->  await graph.invoke(x, { recursionLimit: 9 });

Only the snippets change; the explanations already speak of nodes, keys and values.
"""

from __future__ import annotations

import dataclasses
import re

from .findings import Finding

REDUCERS = {
    ("operator.add", "list"): "(a, b) => a.concat(b)",
    ("operator.add", "number"): "(a, b) => a + b",
    ("operator.or_", "dict"): "(a, b) => ({ ...a, ...b })",
    ("operator.or_", "set"): "(a, b) => new Set([...a, ...b])",
    ("add_messages", "list"): "messagesStateReducer",
    ("max", "number"): "Math.max",
}
"""(Python reducer, kind of value) -> the LangGraph.js reducer that does the same."""

DEFAULTS = {"list": "[]", "dict": "({})", "set": "new Set()", "number": "0", "str": '""'}
"""A kind of value -> its `default` (the start value a Python type's constructor gives)."""

KINDS = {"list": "list", "dict": "dict", "set": "set", "int": "number", "float": "number", "str": "str"}
"""A Python type annotation (its outer name) -> the kind of value it holds."""

METHODS = {"add_edge": "addEdge", "add_node": "addNode", "add_conditional_edges": "addConditionalEdges"}
"""Builder methods, snake_case -> LangGraph.js's camelCase."""

CONFIG_KEYS = {"recursion_limit": "recursionLimit"}
"""Run config keys, snake_case -> LangGraph.js's camelCase (it ignores the snake_case one)."""

_DECLARATION = re.compile(r"^(\w+): Annotated\[(\w+|<[^>]+>)(?:\[[^\]]*\])?, (.+)\]$")
_COMMENT = re.compile(r"\s{2,}#\s?|^#\s?")
_WORDS = {"True": "true", "False": "false", "None": "null", "new": "next", "old": "prev"}
"""Python words -> JavaScript (`new` is reserved there: a reducer's arguments are `prev, next`)."""


def in_javascript(finding: Finding) -> Finding:
    """`finding` with its fix snippets in JavaScript."""
    return dataclasses.replace(
        finding,
        language="javascript",
        fix=javascript(finding.fix),
        other_fixes=tuple((label, javascript(code)) for label, code in finding.other_fixes),
    )


def javascript(snippet: str) -> str:
    """A Python fix snippet as LangGraph.js code (see the module docstring); indented blocks get braces."""
    lines: list[str] = []
    open_blocks: list[int] = []  # the Python indentation of each block opened by a `def`/`if` line
    async_body = ".invoke(" in snippet
    lists = "Annotated[list" in snippet  # its reducers fold lists: `old + new` is a concatenation
    for raw in snippet.splitlines():
        indent = len(raw) - len(raw.lstrip())
        if raw.strip():
            while open_blocks and indent <= open_blocks[-1]:
                _close(lines, open_blocks.pop())
        code, comment = _split_comment(raw.strip())
        if code.endswith(":") and code.startswith(("def ", "if ")):
            open_blocks.append(indent)
        text = " " * (indent // 2) + _line(
            code, async_body=async_body, lists=lists
        )  # Python's 4 spaces, JavaScript's 2
        lines.append((text + (f"   // {_comment(comment)}" if comment else "")).rstrip())
    while open_blocks:
        _close(lines, open_blocks.pop())
    return "\n".join(lines)


def _close(lines: list[str], indent: int) -> None:
    """Ends a block opened at Python indentation `indent`: its brace follows its last line, not a blank one."""
    at = len(lines)
    while at > 0 and not lines[at - 1]:
        at -= 1
    lines.insert(at, " " * (indent // 2) + "}")


def _split_comment(line: str) -> tuple[str, str]:
    """The code of a line and its `#` comment (a comment follows two spaces, or starts the line)."""
    match = _COMMENT.search(line)
    return (line[: match.start()], line[match.end() :]) if match else (line, "")


def _comment(text: str) -> str:
    """A comment's text with the code it quotes in JavaScript."""
    text = re.sub(r"\*\*(\w+)", r"...\1", re.sub(r'state\["(\w+)"\]', r"state.\1", text))
    for word in ("True", "False", "None"):
        text = re.sub(rf"\b{word}\b", _WORDS[word], text)
    return _objects(text)


def _line(code: str, *, async_body: bool, lists: bool = False) -> str:
    """One line of code in JavaScript (`lists`: `a + b` of two names concatenates lists)."""
    if not code:
        return ""
    declared = _DECLARATION.match(code)
    if declared:
        return _declaration(*declared.groups())
    for word, replacement in _WORDS.items():
        code = re.sub(rf"\b{word}\b(?!\()", replacement, code)
    code = re.sub(r"\b(\w+)\['(\w+)'\]", r"\1.\2", code)  # item['id'] -> item.id
    code = re.sub(r'state\.get\("(\w+)"\) or ', r"state.\1 ?? ", code)
    code = re.sub(r'state\["(\w+)"\]', r"state.\1", code)
    code = re.sub(r"\blist\((state\.\w+)\)", r"[...\1]", code)
    code = re.sub(r"\[\*", "[...", code)
    code = re.sub(r"\{([^{}]+) for (\w+) in (\w+)\}", r"new Set(\3.map((\2) => \1))", code)
    code = re.sub(r"\[(\w+) for \1 in (\w+) if (.+)\]", r"\2.filter((\1) => \3)", code)
    code = re.sub(r"(\S+) not in (\w+)", r"!\2.has(\1)", code)
    code = re.sub(r"^return (\w+) \+ (\w+\.filter\(.*\))$", r"return [...\1, ...\2]", code)
    code = re.sub(r"lambda (\w+), (\w+): (\{.*\})", r"(\1, \2) => (\3)", code)
    code = re.sub(r"\*\*(\w+)", r"...\1", code)
    code = re.sub(r"\bOverwrite\(", "new Overwrite(", code)
    code = re.sub(r"\bis not null\b", "!== null", re.sub(r"\bis null\b", "=== null", code))
    code = re.sub(r"^return (.+) if (.+) else (.+)$", r"return \2 ? \1 : \3", code)
    if lists:
        code = re.sub(r"\b(prev|next) \+ (prev|next)\b", r"\1.concat(\2)", code)
    for snake, camel in METHODS.items():
        code = code.replace(f".{snake}(", f".{camel}(")
    code = _objects(code)
    for snake, camel in CONFIG_KEYS.items():
        code = re.sub(rf"\b{snake}: ", f"{camel}: ", code)
    if code.startswith("def ") and code.endswith(":"):
        return ("async function " if async_body else "function ") + code[4:-1] + " {"
    if code.startswith("if not ") and code.endswith(":"):
        return f"if (!{code[7:-1]}) {{"
    if code.startswith("if ") and code.endswith(":"):
        return f"if ({code[3:-1]}) {{"
    if re.match(r"^\w+ = ", code):
        code = "const " + code
    if async_body and ".invoke(" in code:
        code = re.sub(r"(\w+\.invoke\()", r"await \1", code)
    if code.startswith(("return", "const ", "builder.", "graph.", "await ")) or code.endswith(")"):
        code += ";"
    return code


def _declaration(key: str, python_type: str, reducer: str) -> str:
    """`key: Annotated[type, reducer]` as an `Annotation` with the reducer and the type's start value."""
    kind = KINDS.get(python_type, python_type)
    js_reducer = REDUCERS.get((reducer, kind))
    if js_reducer is None:
        js_reducer = _line(reducer, async_body=False).rstrip(";") if reducer.startswith("lambda") else reducer
    default = DEFAULTS.get(kind) or (f"<a start value {reducer} accepts>" if kind.startswith("<") else None)
    start = f", default: () => {default}" if default else ""
    return f"{key}: Annotation({{ reducer: {js_reducer}{start} }}),"


def _objects(code: str) -> str:
    """Python dict literals with string keys as JavaScript objects: `{"key": v}` -> `{ key: v }`."""
    code = re.sub(r'"(\w+)": ', r"\1: ", code)
    out: list[str] = []
    padded: list[bool] = []  # per open brace: whether it opens an object literal (so it gets spaces)
    for i, char in enumerate(code):
        if char == "{":
            rest = code[i + 1 :]
            padded.append(bool(re.match(r"(\w+|<[^>]+>): |\.\.\.", rest)))
            out.append("{ " if padded[-1] else "{")
        elif char == "}" and padded:
            out.append(" }" if padded.pop() else "}")
        else:
            out.append(char)
    return "".join(out)
