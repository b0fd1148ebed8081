"""Finding the graph a user names: a sample, `path/to/file.py[:attribute]` or `package.module[:attribute]`.

Loading a target imports (and so runs) that module: it is the user's own code. A module that fails
to import is reported with its file, line and message, never as a bare traceback.

The graph may be any runtime's compiled graph (StepScope's own, or a real `langgraph` one): the
registry (`registry.py`) says which, once, and the `LoadedTarget` carries that runtime from then on.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import signal
import sys
import threading
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from debugger.code_access import code_allowed
from debugger.runtimes.registry import compiled_kinds, find_runtime, loader_for
from debugger.runtimes.runtime import LoadedTarget, TargetError

__all__ = ["LoadedTarget", "TargetError", "load_target"]


class ImportTimedOut(BaseException):
    """Raised into the main thread when importing a target overran its time limit: a BaseException, so
    the module's own `except Exception` cannot swallow it."""


def load_target(target: str, *, timeout: float | None = None) -> LoadedTarget:
    """Imports the module `target` names and picks its compiled graph and that graph's runtime, with the
    module's `example_input` (a lesson's `:fixed_graph`, its `fixed_input`); a target in another language
    (`app.mjs:graph`) is loaded by the runtime that `loads` it. With `timeout`, an import that takes longer
    (a module that sleeps or waits on the network at import) is stopped and refused in one line that names
    the line it was stuck at. A server that runs no typed code (`debugger/code_access.py`: bound beyond this
    machine without --allow-code) loads only StepScope's own lessons: any other target is code from a path
    typed into a page."""
    if not code_allowed() and not is_own_lesson(target):
        raise TargetError(
            f"{target}: opening a graph file runs its code, and this app listens beyond its computer; restart it "
            "with `stepscope app --allow-code` to allow it, or with `--host 127.0.0.1`."
        )
    foreign = loader_for(target)
    if foreign is not None:
        return foreign.load(target)
    spec, _, attribute = target.partition(":")
    try:
        with _deadline(timeout):
            if spec.endswith(".py"):
                module = _import_file(Path(spec))
            else:
                module = _import_module(spec if "." in spec else f"sample_graphs.{spec}", target)
    except ImportTimedOut as exc:
        stuck = _import_failure(exc, spec)
        where = f"{stuck.file}, line {stuck.line}: " if stuck.file else ""
        raise TargetError(
            f"{where}importing {spec} took longer than --timeout {timeout:g} s (stuck here); make the module "
            "do its slow work in the graph's nodes, not at import, or raise --timeout.",
            file=stuck.file,
            line=stuck.line,
        ) from None
    graph = _pick_graph(module, attribute, target)
    example_input = getattr(module, "example_input", {})
    if attribute == "fixed_graph" and hasattr(module, "fixed_input"):  # a lesson's fix may change the schema
        example_input = module.fixed_input
    example_config = dict(getattr(module, "example_config", None) or {})
    return LoadedTarget(graph, example_input, module, target, example_config, find_runtime(graph))


LESSONS = Path(__file__).resolve().parents[2] / "sample_graphs"
"""StepScope's own lessons, Python and JavaScript: the code a server beyond loopback still runs."""


def is_own_lesson(target: str) -> bool:
    """`subgraph_trap`, `sample_graphs.x[:attr]` or a file inside sample_graphs/ (a JavaScript twin)."""
    spec = target.partition(":")[0]
    if "/" not in spec and "\\" not in spec and not spec.endswith((".py", ".mjs", ".js", ".cjs", ".ts", ".mts")):
        return "." not in spec or spec.startswith("sample_graphs.")
    try:
        return Path(spec).resolve().is_relative_to(LESSONS)
    except (OSError, ValueError):
        return False


@contextlib.contextmanager
def _deadline(seconds: float | None) -> Iterator[None]:
    """Raises `ImportTimedOut` in the main thread after `seconds` (a real-time alarm). Only the main
    thread receives signals; elsewhere (the app's script thread) the import runs without a limit."""
    if seconds is None or threading.current_thread() is not threading.main_thread():
        yield
        return

    def overran(signum: int, frame: Any) -> None:
        raise ImportTimedOut()

    previous = signal.signal(signal.SIGALRM, overran)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _import_file(path: Path) -> Any:
    if not path.is_file():
        raise TargetError(f"{path}: no such file. Give a Python file, a sample name (`stepscope samples`) or a module.")
    module_name = f"stepscope_target_{path.stem}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses and pickling look their module up here
    folder = str(path.resolve().parent)
    if folder not in sys.path:  # as `python app.py` does: the file imports the modules beside it
        sys.path.insert(0, folder)
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        sys.modules.pop(module_name, None)
        raise TargetError(
            f"{exc.filename}, line {exc.lineno}: SyntaxError: {exc.msg}", file=exc.filename, line=exc.lineno
        ) from None
    except ImportTimedOut:
        sys.modules.pop(module_name, None)
        raise
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
    user = [f for f in frames if "importlib" not in f.filename and f.filename != __file__]  # not the alarm's frame
    frame = user[-1] if user else (frames[-1] if frames else None)
    where = f"{frame.filename}, line {frame.lineno}: " if frame else ""
    return TargetError(
        f"{where}{type(exc).__name__}: {exc} (while importing {what})",
        file=frame.filename if frame else None,
        line=frame.lineno if frame else None,
    )


def _pick_graph(module: Any, attribute: str, target: str) -> Any:
    if attribute:
        if not hasattr(module, attribute):
            raise TargetError(f"{target}: the module has no attribute {attribute!r}.")
        graph = getattr(module, attribute)
    elif _is_compiled(getattr(module, "graph", None)):
        graph = module.graph
    else:
        found: dict[str, Any] = {}
        for name, value in vars(module).items():  # one graph under two names is one graph
            if _is_compiled(value) and all(value is not other for other in found.values()):
                found[name] = value
        if len(found) != 1:
            names = sorted(found)
            which = f" ({', '.join(names)})" if names else ""
            example = f"{target}:{names[0]}" if names else f"{target}:attribute"
            raise TargetError(
                f"{target}: found {len(found)} compiled graphs{which} and no `graph`; name one, e.g. {example}."
            )
        graph = next(iter(found.values()))
    if hasattr(graph, "compile") and not _is_compiled(graph):
        raise TargetError(f"{target}: {attribute or 'graph'} is a builder; call .compile() on it and name the result.")
    if not _is_compiled(graph):
        raise TargetError(f"{target}: {type(graph).__name__} is not a compiled graph ({compiled_kinds()}).")
    return graph


def _is_compiled(value: Any) -> bool:
    """A compiled graph of some runtime."""
    return find_runtime(value) is not None
