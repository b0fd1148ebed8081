"""The options that make a run, defined once. Every command that starts a run (`stepscope run`, `stepscope
diagnose`) adds them with `add_run_options`; what was given, on a command line or in the app's Graph file
form, is a `RunOptions`, and `run_request` turns it into the one `RunRequest` a runtime records:

    --input JSON|@FILE|-     the graph input (default: the module's example_input)
    --config JSON|@FILE      the run config; its configurable.thread_id is the run's thread, as in LangGraph
    --thread ID              short for configurable.thread_id (both given and different: refused)
    --context JSON           the run context (langgraph's context=)
    --resume VALUE           the answer to the thread's interrupt (JSON, or plain text)
    --recursion-limit N      supersteps allowed: the config's recursion_limit (LangGraph.js: recursionLimit)
    --timeout S              seconds to wait for the app's import and for its run
    --checkpointer URL       the saver the run goes on: a SQLite file (made if missing) or a postgresql:// URL,
                             for an app compiled without one; its threads are kept there, to resume and read

A runtime refuses by name the ones it does not take (`Runtime.check_run_options`). The app's Graph file
form offers each of them under its `form` label (`RunOptions.from_form` reads them as the command line does).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from debugger.i18n import N_
from debugger.runtimes.runtime import NO_RESUME, LoadedTarget, RunRequest, RunSetupError, run_thread


@dataclass(frozen=True)
class RunOption:
    """One option of a run, as the command line spells it."""

    name: str
    """Its attribute on the parsed arguments (`recursion_limit` for `--recursion-limit`)."""
    help: str
    metavar: str
    form: str
    """Its field's label in the app's Graph file form (marked for translation, translated where shown)."""
    type: Callable[[str], Any] = str
    example: str = ""
    """What the form's empty field shows as an example of a value."""


def superstep_limit(text: str) -> int:
    """`--recursion-limit`: a whole number of supersteps, at least 1 (the engines refuse 0 only once the run
    has started, and an empty run was stored)."""
    number = int(text)  # a ValueError: argparse says "invalid value", the form says "a whole number"
    if number < 1:
        raise argparse.ArgumentTypeError("must be at least 1 (the supersteps a run may take), e.g. 50")
    return number


RUN_OPTIONS = (
    RunOption(
        "input",
        "the graph input as JSON, @file.json or - for stdin (default: the module's example_input)",
        "JSON",
        N_("Input (JSON)"),
    ),
    RunOption(
        "config",
        "the run config as JSON or @file.json; its configurable.thread_id is the run's thread",
        "JSON",
        N_("Config (JSON)"),
    ),
    RunOption(
        "thread",
        "the checkpointer thread to run on: short for configurable.thread_id in --config "
        "(default: a new one, for an app compiled with a checkpointer)",
        "ID",
        N_("Thread"),
    ),
    RunOption(
        "context",
        "langgraph apps with a context_schema: the run context as JSON",
        "JSON",
        N_("Context (JSON)"),
        example='{"user_id": "u-1"}',
    ),
    RunOption(
        "resume",
        "answer the interrupt the thread stopped at (JSON, or plain text)",
        "VALUE",
        N_("Resume with"),
        example='"yes"',
    ),
    RunOption(
        "recursion_limit",
        "supersteps allowed (default: the module's example_config, else LangGraph's default)",
        "N",
        N_("Recursion limit"),
        superstep_limit,
        "25",
    ),
    RunOption(
        "timeout",
        "stop waiting after this many seconds and keep what was recorded; the import of the graph's module gets "
        "the same limit, before the run (default: $STEPSCOPE_RUN_TIMEOUT, else no limit)",
        "S",
        N_("Timeout (seconds)"),
        float,
    ),
    RunOption(
        "checkpointer",
        "run the app on this saver: a SQLite file (made if missing) or a postgresql:// URL, for an app compiled "
        "without a checkpointer; the thread is kept there (`stepscope threads --checkpointer URL` lists it, "
        "--resume with the same --checkpointer continues it)",
        "URL",
        N_("Checkpointer (SQLite file or `postgresql://` URL)"),
        example="threads.sqlite",
    ),
)

THREAD_OPTIONS = ("config", "thread", "context", "resume", "checkpointer")
"""The options some runtimes do not take (`Runtime.check_run_options` is asked about the ones given)."""


def add_run_options(
    parser: argparse.ArgumentParser, *, also: dict[str, str] | None = None, only: tuple[str, ...] | None = None
) -> None:
    """Adds the options of `RUN_OPTIONS` (every one, or `only` those) to a command's parser; `also` says what an
    option means besides, in that command, by name (diagnose: `--checkpointer --thread` read a thread)."""
    also = also or {}
    for option in RUN_OPTIONS if only is None else [o for o in RUN_OPTIONS if o.name in only]:
        text = option.help + (f"; {also[option.name]}" if option.name in also else "")
        parser.add_argument(
            COMMAND_LINE.named(option.name), dest=option.name, metavar=option.metavar, type=option.type, help=text
        )


@dataclass(frozen=True)
class Spelling:
    """How messages name the options: the command line's flags, or the fields of the app's form."""

    input: str = "--input"
    config: str = "--config"
    thread: str = "--thread"
    context: str = "--context"
    config_in: str = "--config"
    """The config as named inside a sentence."""
    files: bool = True
    """`@file.json` and `-` (standard input) are read: on a command line, never from a form on a page."""
    resume: str = "--resume"
    checkpointer: str = "--checkpointer"

    def named(self, option: str) -> str:
        """How a message names the option called `option` in `RUN_OPTIONS` (its flag, or its form field)."""
        return getattr(self, option, "--" + option.replace("_", "-"))


COMMAND_LINE = Spelling()
FORM = Spelling(
    "The input",
    "The config",
    "The thread",
    "The context",
    "the config",
    files=False,
    resume="Resume with",
    checkpointer="The checkpointer",
)


@dataclass(frozen=True)
class RunOptions:
    """The options given for one run, as typed (None: not given)."""

    input: str | None = None
    config: str | None = None
    thread: str | None = None
    context: str | None = None
    resume: str | None = None
    recursion_limit: int | None = None
    timeout: float | None = None
    """Seconds, already checked and defaulted by the caller (`recording.timeout_from`, `app_run_timeout`)."""
    checkpointer: str | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace, *, timeout: float | None) -> RunOptions:
        """The options a command's parsed arguments hold (`add_run_options`), with the time limit it decided."""
        names = [o.name for o in RUN_OPTIONS if o.name != "timeout"]
        return cls(**{name: getattr(args, name, None) for name in names}, timeout=timeout)

    @classmethod
    def from_form(cls, *, default_timeout: float | None, **fields: str | None) -> RunOptions:
        """The options a form's fields give, by `RunOption.name` (`input=`, `recursion_limit=`): one left empty
        is not given, a number is read as the command line reads it (one line naming the fix when it is not
        one), and `default_timeout` is the app's own limit where the form gives none."""
        given: dict[str, Any] = {"timeout": default_timeout}
        for option in RUN_OPTIONS:
            text = (fields.get(option.name) or "").strip()
            if text:
                given[option.name] = _typed(option, text)
        if given["timeout"] is not None and not given["timeout"] > 0:
            raise RunSetupError(f"The timeout must be a positive number of seconds, not {given['timeout']:g}.")
        return cls(**given)


def _typed(option: RunOption, text: str) -> Any:
    """A form field's text as its option's type (`int` for the recursion limit), as argparse reads the flag."""
    try:
        return option.type(text)
    except argparse.ArgumentTypeError as exc:
        raise RunSetupError(f"The {option.name.replace('_', ' ')} {exc}, not {text!r}.") from None
    except ValueError:
        kind = "a whole number, e.g. 50" if option.type is superstep_limit else "a number, e.g. 30"
        raise RunSetupError(f"The {option.name.replace('_', ' ')} must be {kind}, not {text!r}.") from None


def run_request(loaded: LoadedTarget, options: RunOptions, spelling: Spelling = COMMAND_LINE) -> RunRequest:
    """The run `options` ask for, on the target's defaults (`example_input`, `example_config`); the options
    its runtime does not take are refused by name first, and the thread is `--thread` or the config's
    `configurable.thread_id`, refused when the two differ."""
    given_options = {n: spelling.named(n) for n in THREAD_OPTIONS if getattr(options, n) is not None}
    loaded.runtime.check_run_options(given_options, loaded.name)
    given = read_json_option(options.config, spelling.config, files=spelling.files)
    if given is not None and not isinstance(given, dict):
        raise RunSetupError(f"{spelling.config} must be a JSON object, e.g. '{{\"recursion_limit\": 50}}'.")
    thread = run_thread(given, options.thread, names=(spelling.thread, spelling.config_in))
    config = {**loaded.example_config, **(given or {})}
    thread = thread or run_thread(config, None)  # the runtime puts it in the config: it wins over example_config's
    if options.recursion_limit is not None:  # LangGraph.js reads recursionLimit, and ignores recursion_limit
        config[loaded.runtime.recursion_limit_key] = options.recursion_limit
    graph_input = read_json_option(options.input, spelling.input, files=spelling.files)
    return RunRequest(
        loaded.graph,
        loaded.example_input if graph_input is None else graph_input,
        config,
        recorded_target(loaded.name),
        thread=thread,
        resume=NO_RESUME if options.resume is None else answer_value(options.resume),
        context=read_json_option(options.context, spelling.context, files=spelling.files),
        timeout=options.timeout,
        checkpointer=options.checkpointer,
    )


def recorded_target(target: str) -> str:
    """The target as a stored run keeps it: a relative file path made absolute, so the run's code comes
    back (What-if, Time travel) in an app started in another folder; samples and modules as written."""
    spec, colon, attribute = target.partition(":")
    path = Path(spec)
    if path.suffix and not path.is_absolute() and path.is_file():
        return f"{path.resolve()}{colon}{attribute}"
    return target


def read_json_option(text: str | None, what: str, *, files: bool = True) -> Any:
    """A JSON option given inline, or with `files` as `@file.json` or `-` for standard input; None when not
    given."""
    if text is None:
        return None
    if files and text == "-":
        text = sys.stdin.read()
    elif files and text.startswith("@"):
        path = Path(text[1:])
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise RunSetupError(f"{what}: cannot read {path}: {exc.strerror or exc}.") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise RunSetupError(f"{what} is not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}.") from None


def answer_value(text: str) -> Any:
    """An answer typed to an interrupt: JSON when it parses, else the text itself (`yes`)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text
