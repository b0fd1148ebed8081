"""The `stepscope` command.

`stepscope run TARGET [--input JSON]` runs a graph headless and prints, superstep by superstep, the
tasks that ran, what triggered them, and every reducer call of the merge (`before -> write -> after`),
then the final state. TARGET is a sample name (`subgraph_trap`), `path/to/file.py[:attribute]` or
`package.module[:attribute]`; without an attribute the module's `graph` is used, and its
`example_input` unless `--input` is given.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any, Sequence

from engine import CompiledStateGraph, Hooks
from engine.channels import MISSING

DEFAULT_SAMPLE = "subgraph_trap"


class TargetError(Exception):
    """A TARGET that cannot be loaded; the message says what to do."""


def load_target(target: str) -> tuple[CompiledStateGraph, Any]:
    """The compiled graph and example input a TARGET names."""
    spec, _, attribute = target.partition(":")
    if spec.endswith(".py"):
        path = Path(spec)
        if not path.is_file():
            raise TargetError(f"{spec}: no such file. Give a path to a Python file, a sample name or a module.")
        module_spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(module)
    else:
        name = spec if "." in spec else f"sample_graphs.{spec}"
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            raise TargetError(f"{target}: cannot import {name} ({exc}). Is it a sample name, a .py path or a module?") from exc
    if attribute:
        graph = getattr(module, attribute, None)
        if graph is None:
            raise TargetError(f"{target}: the module has no attribute {attribute!r}.")
    else:
        graph = getattr(module, "graph", None)
        if graph is None:
            graphs = [v for v in vars(module).values() if isinstance(v, CompiledStateGraph)]
            if len(graphs) != 1:
                raise TargetError(f"{target}: found {len(graphs)} compiled graphs and no `graph`; name one as FILE:attribute.")
            graph = graphs[0]
    if not isinstance(graph, CompiledStateGraph):
        raise TargetError(f"{target}: {type(graph).__name__} is not a compiled graph; call .compile() on the builder.")
    return graph, getattr(module, "example_input", {})


def short(value: Any, limit: int = 70) -> str:
    text = "∅" if value is MISSING else repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class SuperstepPrinter(Hooks):
    """Prints each superstep as it commits: tasks, then the merge one reducer call at a time."""

    def __init__(self, out: Any = sys.stdout) -> None:
        self.out = out

    def _print(self, ns: tuple[str, ...], text: str) -> None:
        indent = "    " * len(ns)
        print(f"{indent}{text}", file=self.out)

    def step_planned(self, *, ns, step, tasks):
        where = f" in {ns[-1].split(':')[0]}" if ns else ""
        names = ", ".join(f"{t.name} (by {', '.join(t.fired)})" for t in tasks)
        self._print(ns, f"step {step}{where}: {names}")

    def task_finished(self, *, ns, step, task):
        if task.error is not None:
            self._print(ns, f"  ✖ {task.name} raised {type(task.error).__name__}: {str(task.error).splitlines()[0]}")
        for router, result in task.routes:
            self._print(ns, f"  {task.name} -> {router} chose {result!r}")

    def reducer_called(self, *, ns, call):
        verdict = f"REFUSED ({str(call.error).splitlines()[0]})" if call.error else short(call.after)
        self._print(ns, f"  {call.channel} [{call.reducer}] from {call.writer_name}: {short(call.before)} + {short(call.write)} -> {verdict}")

    def run_finished(self, *, ns, status, output, error, step):
        if not ns:
            self._print(ns, f"status: {status}")


def command_run(args: argparse.Namespace) -> int:
    graph, example_input = load_target(args.target)
    graph_input = json.loads(args.input) if args.input is not None else example_input
    try:
        config = {} if args.recursion_limit is None else {"recursion_limit": args.recursion_limit}
        output = graph.invoke(graph_input, config, hooks=SuperstepPrinter())
    except Exception as exc:  # the run's own error: reported, not a traceback
        print(f"error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    print(f"final state: {output!r}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="stepscope", description="See what a state graph does, superstep by superstep.")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run a graph headless and print every superstep's merges")
    run.add_argument("target", nargs="?", default=DEFAULT_SAMPLE, help="sample name, file.py[:attr] or module[:attr]")
    run.add_argument("--input", help="the graph input as JSON (default: the module's example_input)")
    run.add_argument("--recursion-limit", type=int, help="supersteps allowed before giving up (default: LangGraph's, 10007)")
    run.set_defaults(handler=command_run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except TargetError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except json.JSONDecodeError as exc:
        print(f"error: --input is not valid JSON: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
