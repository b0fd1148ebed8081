"""An app's own run, without StepScope: `python APP.py CONFIG RESUMES CONTEXT` (JSON each) runs the app's
`graph` on its `example_input` as its user would (invoke, then one `Command(resume=...)` a pause), and
prints the plain state after each call (`plain_state.plain`), or the class of the error a call raised."""

from __future__ import annotations

import json
import sys
from typing import Any

from langgraph.types import Command
from plain_state import plain


def print_own_run(graph: Any, example_input: Any) -> None:
    config, resumes, context = (json.loads(a) for a in sys.argv[1:4])
    calls = [example_input] + [Command(resume=answer) for answer in resumes]
    states = []
    for given in calls:
        try:
            states.append(plain(graph.invoke(given, config, context=context)))
        except Exception as error:  # what the run ended with is what the test compares
            states.append({"error": type(error).__name__})
            break
    print(json.dumps(states))
