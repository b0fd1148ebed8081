"""Finding the graph a user names: a sample, `path/to/file.py[:attribute]` or `package.module[:attribute]`.

Loading a target imports (and so runs) that module: it is the user's own code. A module that fails
to import is reported with its file, line and message, never as a bare traceback.

The graph may be StepScope's own or a real `langgraph` compiled graph: the latter runs on langgraph
itself and is recorded by watching that run (`debugger/langgraph_recorder/`).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine import CompiledStateGraph


class TargetError(Exception):
    """A target that cannot be loaded; the message says what is wrong and what to do."""

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.file = file
        self.line = line


@dataclass(frozen=True)
class LoadedTarget:
    graph: Any
    """An engine `CompiledStateGraph`, or a langgraph compiled graph (see `original`)."""
    example_input: Any
    module: Any
    name: str
    """The target as the user wrote it."""
    example_config: dict[str, Any]
    """The module's `example_config` (e.g. a small recursion_limit for a lesson about loops), or {}."""
    original: Any = None
    """The graph itself when it is a real `langgraph` graph (then `graph` is the same object); None for
    an engine graph."""

    @property
    def is_langgraph(self) -> bool:
        return self.original is not None


def load_target(target: str) -> LoadedTarget:
    spec, _, attribute = target.partition(":")
    if spec.endswith(".py"):
        module = _import_file(Path(spec))
    else:
        name = spec if "." in spec else f"sample_graphs.{spec}"
        module = _import_module(name, target)
    graph = _pick_graph(module, attribute, target)
    example_input = getattr(module, "example_input", {})
    example_config = dict(getattr(module, "example_config", None) or {})
    if isinstance(graph, CompiledStateGraph):
        return LoadedTarget(graph, example_input, module, target, example_config)
    return LoadedTarget(graph, example_input, module, target, example_config, original=graph)


def _import_file(path: Path) -> Any:
    if not path.is_file():
        raise TargetError(f"{path}: no such file. Give a Python file, a sample name (`stepscope samples`) or a module.")
    module_name = f"stepscope_target_{path.stem}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses and pickling look their module up here
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        sys.modules.pop(module_name, None)
        raise TargetError(
            f"{exc.filename}, line {exc.lineno}: SyntaxError: {exc.msg}", file=exc.filename, line=exc.lineno
        ) from None
    except SystemExit as exc:  # a script without `if __name__ == "__main__":` exits when imported
        sys.modules.pop(module_name, None)
        raise _exit_at_import(exc, str(path)) from None
    except Exception as exc:
        sys.modules.pop(module_name, None)
        raise _import_failure(exc, str(path)) from None
    return module


def _import_module(name: str, target: str) -> Any:
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and name.startswith(exc.name):
            hint = (
                "no such sample (`stepscope samples` lists them)"
                if name.startswith("sample_graphs.")
                else "no such module"
            )
            raise TargetError(f"{target}: {hint}. Give a sample name, a .py path or an importable module.") from None
        raise _import_failure(exc, name) from None
    except SyntaxError as exc:
        raise TargetError(
            f"{exc.filename}, line {exc.lineno}: SyntaxError: {exc.msg}", file=exc.filename, line=exc.lineno
        ) from None
    except SystemExit as exc:
        raise _exit_at_import(exc, name) from None
    except Exception as exc:
        raise _import_failure(exc, name) from None


def _exit_at_import(exc: SystemExit, what: str) -> TargetError:
    found = _import_failure(exc, what)
    return TargetError(
        f"{found} -- {what} called sys.exit({exc.code!r}) while being imported. Put the code that runs it "
        'under `if __name__ == "__main__":` so StepScope can import the graph without running the script.',
        file=found.file,
        line=found.line,
    )


def _import_failure(exc: BaseException, what: str) -> TargetError:
    """The innermost frame of the user's code, so the message points at the line to fix."""
    frames = traceback.extract_tb(exc.__traceback__)
    user = [f for f in frames if "importlib" not in f.filename]
    frame = user[-1] if user else (frames[-1] if frames else None)
    where = f"{frame.filename}, line {frame.lineno}: " if frame else ""
    return TargetError(
        f"{where}{type(exc).__name__}: {exc} (while importing {what})",
        file=frame.filename if frame else None,
        line=frame.lineno if frame else None,
    )


def _pick_graph(module: Any, attribute: str, target: str) -> CompiledStateGraph:
    if attribute:
        if not hasattr(module, attribute):
            raise TargetError(f"{target}: the module has no attribute {attribute!r}.")
        graph = getattr(module, attribute)
    elif _is_compiled(getattr(module, "graph", None)):
        graph = module.graph
    else:
        graphs = [v for v in vars(module).values() if _is_compiled(v)]
        if len(graphs) != 1:
            raise TargetError(
                f"{target}: found {len(graphs)} compiled graphs and no `graph`; name one as {target}:attribute."
            )
        graph = graphs[0]
    if hasattr(graph, "compile") and not _is_compiled(graph):
        raise TargetError(f"{target}: {attribute or 'graph'} is a builder; call .compile() on it and name the result.")
    if not _is_compiled(graph):
        raise TargetError(f"{target}: {type(graph).__name__} is not a compiled graph (StepScope's or langgraph's).")
    return graph


def _is_compiled(value: Any) -> bool:
    """A compiled engine graph, or a compiled real `langgraph` graph."""
    if isinstance(value, CompiledStateGraph):
        return True
    from debugger.langgraph_recorder.names import is_langgraph_graph  # imports no langgraph

    return is_langgraph_graph(value)
