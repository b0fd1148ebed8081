"""The gallery: every sample module of this package, in teaching order.

`SAMPLES` is discovered from the package's modules (every module except `gallery`, `exercises` (every
lesson's exercise) and those whose name starts with `_`), so a new sample appears here by existing.
`TEACHING_ORDER` only sorts: the seed articles' lessons first, then the rest; a sample it does not name
comes last, alphabetically.

    list_samples()      -> [SampleInfo(name, title, summary, lesson, has_fix, source), ...]
    load_sample(name)   -> the imported module (`graph`, `example_input`, `title`, `lesson`, ...)

    JS_LESSONS          -> {"js lesson": "python twin", ...} (sample_graphs/js/NAME.mjs)

`python sample_graphs/gallery.py` prints the listing.
"""

import difflib
import importlib
import pkgutil
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

if __package__ in (None, ""):  # `python sample_graphs/gallery.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    PACKAGE = "sample_graphs"
else:
    PACKAGE = __package__

#: Seed lessons first (articles 000, 001, 003, in the order they teach), then the further lessons.
TEACHING_ORDER = (
    "parallel_append_race",
    "retries_counter",
    "refund_concurrent_update",
    "annotation_state",
    "reducer_table",
    "add_messages_basics",
    "subgraph_trap",
    "single_node_agent",
    "reducer_forms",
    "react_agent",
    "fan_out_search",
    "stream_updates",
    "order_dependent_reducer",
    "uneven_join",
    "map_reduce_send",
    "command_goto",
    "endless_loop",
    "in_place_mutation",
    "clear_with_empty_list",
    "slow_research",
)

#: The seeds' JavaScript examples as LangGraph.js lessons (`sample_graphs/js/NAME.mjs`, run with node), each
#: mapped to the Python sample that does the same thing with the same node names and state keys. Each
#: lesson also names its twin itself (`export const pythonTwin`); tests/test_js_lessons.py checks both agree.
JS_LESSONS: dict[str, str] = {
    "parallel_append_race": "parallel_append_race",
    "annotation_state": "annotation_state",
    "single_node_agent": "single_node_agent",
    "reducer_forms": "reducer_forms",
    "react_agent": "react_agent",
    "fan_out_search": "fan_out_search",
    "stream_updates": "stream_updates",
}

#: Where the JavaScript lessons live (they import `@langchain/langgraph` from the repository's node_modules).
JS_LESSON_DIR = Path(__file__).resolve().parent / "js"

#: Attributes every sample module has (the debugger and `stepscope` rely on them).
REQUIRED_ATTRIBUTES = ("graph", "example_input", "title", "lesson", "summary")


class UnknownSampleError(LookupError):
    """`load_sample` was given a name that is not a sample; the message lists the known ones."""


@dataclass(frozen=True)
class SampleInfo:
    """One gallery entry."""

    name: str
    """Module name, e.g. `subgraph_trap`: what `load_sample` and `stepscope run` take."""
    title: str
    """A short title."""
    summary: str
    """The lesson in one line."""
    lesson: str
    """Three to six sentences: what to notice, what goes wrong and why, what to change."""
    has_fix: bool
    """True when the module also ships `fixed_graph` (then `graph` is the broken one)."""
    source: str
    """Where the lesson comes from (a seed article and section), or "" when not stated."""


NOT_LESSONS = ("gallery", "exercises")
"""Modules of this package that are not samples: this listing, and every lesson's exercise."""


def _discover() -> tuple[str, ...]:
    package = importlib.import_module(PACKAGE)
    names = [
        info.name
        for info in pkgutil.iter_modules(package.__path__)
        if not info.ispkg and not info.name.startswith("_") and info.name not in NOT_LESSONS
    ]
    rank = {name: i for i, name in enumerate(TEACHING_ORDER)}
    return tuple(sorted(names, key=lambda name: (rank.get(name, len(rank)), name)))


#: Every sample's module name, in teaching order.
SAMPLES: tuple[str, ...] = _discover()


def load_sample(name: str) -> ModuleType:
    """The sample module `name` (imported once, then cached by Python)."""
    if name not in SAMPLES:
        close = difflib.get_close_matches(name, SAMPLES, n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise UnknownSampleError(f"unknown sample {name!r}.{hint} Known samples: {', '.join(SAMPLES)}.")
    return importlib.import_module(f"{PACKAGE}.{name}")


def sample_info(name: str) -> SampleInfo:
    module = load_sample(name)
    return SampleInfo(
        name=name,
        title=module.title,
        summary=module.summary,
        lesson=module.lesson,
        has_fix=hasattr(module, "fixed_graph"),
        source=getattr(module, "source", ""),
    )


def js_lesson_path(name: str) -> Path:
    """The file of the JavaScript lesson `name` (a key of `JS_LESSONS`)."""
    if name not in JS_LESSONS:
        raise UnknownSampleError(f"unknown JavaScript lesson {name!r}. Known ones: {', '.join(JS_LESSONS)}.")
    return JS_LESSON_DIR / f"{name}.mjs"


def js_lesson_for(sample: str) -> str | None:
    """The JavaScript lesson whose twin is the Python sample `sample`, or None when it has none."""
    return next((js for js, twin in JS_LESSONS.items() if twin == sample), None)


def list_samples() -> list[SampleInfo]:
    """Every sample, in teaching order."""
    return [sample_info(name) for name in SAMPLES]


if __name__ == "__main__":
    for info in list_samples():
        fix = " [broken + fixed]" if info.has_fix else ""
        js = js_lesson_for(info.name)
        twin = f" [also in JavaScript: sample_graphs/js/{js}.mjs]" if js else ""
        print(f"{info.name:26} {info.title}{fix}{twin}\n{'':26} {info.summary}")
