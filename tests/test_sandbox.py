"""Typed code runs in a child process (issue 38, item 2): a playground reducer of the learner's own and an
exercise's code are run by `debugger.sandbox`'s worker, under CPU-time, memory and wall limits; passing one is
one line naming it, and the server's threads, processes and CPU are where they were afterwards."""

from __future__ import annotations

import os
import signal
import threading
import time

import psutil
import pytest

from debugger import i18n, sandbox
from debugger.i18n import _
from debugger.model import playground
from debugger.model.exercise_check import check
from debugger.model.playground import PlaygroundError, Setup, play
from debugger.sandbox import client
from debugger.sandbox.limits import Limits
from sample_graphs.exercises import EXERCISES

pytestmark = pytest.mark.slow  # every test here starts (or talks to) the worker process

SPINS = "lambda current, new: any(iter(int, 1))"
"""An endless loop that allocates nothing: only the CPU limit stops it."""
GROWS = "lambda current, new: [bytearray(10**8) for _ in iter(int, 1)]"
SLEEPS = "lambda current, new: __import__('time').sleep(60)"


def _warm_worker() -> int:
    play(Setup(reducer="custom"))
    pid = client.worker_pid()
    assert pid is not None
    return pid


def _in_group(group: int) -> list[int]:
    """The processes alive in process group `group` (zombies are not alive)."""
    alive = []
    for process in psutil.process_iter(["status"]):
        try:
            if os.getpgid(process.pid) == group and process.info["status"] != psutil.STATUS_ZOMBIE:
                alive.append(process.pid)
        except (ProcessLookupError, psutil.Error):
            continue
    return alive


def _of_this_worker(process: psutil.Process) -> bool:
    """Whether `process` is this server's worker or was forked by it (other servers on the machine have theirs):
    the worker's TMPDIR, its own folder, is in the environment of everything it forks."""
    try:
        return process.environ().get("TMPDIR") == client._worker.scratch
    except psutil.Error:
        return False


def _cpu_in(seconds: float) -> float:
    """This process's CPU time used while it sleeps `seconds`: a thread left spinning would show here."""
    before = time.process_time()
    time.sleep(seconds)
    return time.process_time() - before


def _summary(played: playground.Played) -> tuple:
    calls = [(c.sentence, c.writer, c.after, c.applied) for c in played.calls]
    return calls, played.error, played.value, played.orders, played.ignored, played.step


@pytest.mark.parametrize(
    "setup",
    [
        Setup(reducer="custom", custom="lambda current, new: current + new", writes=("['a']", "['b']", "['c']")),
        Setup(reducer="custom", custom="lambda a, b: a / b", start="[]", writes=("['x']",)),
        Setup.example("operator.add"),
        Setup.example("none"),
        Setup.example("Overwrite"),
        Setup.example("add_messages"),
    ],
)
def test_a_fold_in_the_child_reads_exactly_as_one_in_the_server(setup):
    source = playground.graph_source(setup)
    here = playground.read(setup, source, playground.fold(source, len(setup.writes)))
    there = playground.read(setup, source, playground.fold_in_child(source, len(setup.writes)))
    assert _summary(there) == _summary(here)
    assert there.view.state_before(there.step) == here.view.state_before(here.step)


def test_a_lambda_fold_gives_what_operator_add_gives():
    writes = ("['a']", "['b']", "['c']")
    own = play(Setup(reducer="custom", custom="lambda current, new: current + new", writes=writes))
    add = play(Setup(reducer="operator.add", writes=writes))
    assert own.value == add.value == ["a", "b", "c"]
    assert [c.after for c in own.calls] == [c.after for c in add.calls]
    assert own.orders == add.orders and len(own.orders) == 5


def test_a_lambda_that_raises_is_its_error_line():
    failing = play(Setup(reducer="custom", custom="lambda a, b: a / b", start="[]", writes=("['x']",)))
    assert failing.error is not None and failing.error.title == "<lambda> refused a write to 'value'"
    assert failing.error.message.splitlines()[0] == "unsupported operand type(s) for /: 'list' and 'list'"


def test_an_endless_loop_is_stopped_at_the_cpu_limit_and_leaves_nothing_running():
    worker = _warm_worker()
    threads = threading.active_count()
    source = playground.graph_source(Setup(reducer="custom", custom=SPINS))
    with pytest.raises(sandbox.TypedCodeStopped) as stopped:  # a wall limit a loaded machine cannot reach first
        sandbox.run("playground", {"source": source, "writers": 2}, Limits(cpu_seconds=1, wall_seconds=60), what="it")
    assert str(stopped.value) == "it ran past its 1 s CPU limit and was stopped: make sure it returns."
    assert client.worker_pid() == worker, "the worker itself ran no typed code: it is kept"
    assert psutil.Process(worker).children(recursive=True) == [], "the child that spun is gone"
    assert threading.active_count() == threads
    assert _cpu_in(2.0) < 0.2
    assert psutil.Process(worker).cpu_percent(interval=0.5) < 5
    assert play(Setup(reducer="custom")).value == ["x", "y"], "the next fold answers"


def test_the_playgrounds_endless_loop_is_one_line_naming_a_limit():
    threads = threading.active_count()
    with pytest.raises(PlaygroundError) as stopped:
        play(Setup(reducer="custom", custom=SPINS))
    assert str(stopped.value) in (
        "the reducer ran past its 5 s CPU limit and was stopped: make sure it returns.",
        "the reducer did not answer within 12 s and was stopped: make sure it does not wait forever.",  # a busy machine
    )
    assert threading.active_count() == threads and _cpu_in(2.0) < 0.2


def test_code_that_waits_past_the_wall_limit_is_killed_and_the_worker_kept():
    worker = _warm_worker()
    threads = threading.active_count()
    source = playground.graph_source(Setup(reducer="custom", custom=SLEEPS))
    with pytest.raises(sandbox.TypedCodeStopped) as stopped:
        sandbox.run("playground", {"source": source, "writers": 2}, Limits(wall_seconds=1), what="the reducer")
    assert str(stopped.value) == (
        "the reducer did not answer within 1 s and was stopped: make sure it does not wait forever."
    )
    assert client.worker_pid() == worker and _in_group(worker) == [worker], "the child is killed, the worker kept"
    assert threading.active_count() == threads
    assert _cpu_in(2.0) < 0.2
    assert play(Setup(reducer="custom")).value == ["x", "y"], "the worker answers the next fold"


def test_a_worker_that_does_not_answer_is_killed_with_its_process_group_and_replaced():
    worker = _warm_worker()
    threads = threading.active_count()
    os.kill(worker, signal.SIGSTOP)  # a worker stuck itself: the server's own wall limit is the backstop
    started = time.monotonic()
    with pytest.raises(sandbox.TypedCodeStopped, match="did not answer within 1 s"):
        sandbox.run("playground", {"source": "", "writers": 1}, Limits(wall_seconds=1), what="the reducer")
    assert time.monotonic() - started < 1 + client.BACKSTOP_SECONDS + 1
    assert _in_group(worker) == []
    with pytest.raises(ProcessLookupError):
        os.kill(worker, 0)  # and reaped: not even a zombie is left
    assert client.worker_pid() not in (None, worker), "a new worker is started at once, to be warm"
    assert threading.active_count() == threads
    assert play(Setup(reducer="custom")).value == ["x", "y"], "the new worker answers the next fold"


def test_a_process_the_code_forks_is_killed_even_when_it_leaves_the_process_group():
    worker = _warm_worker()
    forks = (
        "lambda a, b: (__import__('os').fork() == 0 and (__import__('os').setsid(), __import__('time').sleep(60)))"
        " or a + b"
    )
    played = play(Setup(reducer="custom", custom=forks, writes=("['x']",)))
    assert played.value == ["x"] and played.error is None
    escaped = [p.pid for p in psutil.process_iter() if _of_this_worker(p) and p.pid != worker]
    assert escaped == [], "every fork of the reducer's is killed when its fold has answered"
    assert psutil.Process(worker).children() == []


def test_an_allocating_loop_is_stopped_at_the_memory_limit():
    worker = _warm_worker()
    server_memory = psutil.Process().memory_info().rss
    with pytest.raises(PlaygroundError) as stopped:
        play(Setup(reducer="custom", custom=GROWS, start="[1]"))
    assert str(stopped.value) == (
        "the reducer used more than 512 MB of memory and was stopped: make sure it does not keep growing."
    )
    assert psutil.Process().memory_info().rss - server_memory < 50 * 2**20, "the server did not grow"
    assert psutil.Process(worker).children() == []


def test_typed_code_can_neither_raise_its_limits_nor_print_into_the_answers():
    lifts = "lambda a, b: __import__('resource').setrlimit(__import__('resource').RLIMIT_CPU, (-1, -1))"
    played = play(Setup(reducer="custom", custom=lifts, writes=("['x']",)))
    assert played.error is not None and "not allowed to raise maximum limit" in played.error.message
    prints = "lambda a, b: (print('{\"answer\": 1}'), a + b)[1]"
    assert play(Setup(reducer="custom", custom=prints)).value == ["x", "y"]


def test_the_limit_line_speaks_the_pages_language():
    source = playground.graph_source(Setup(reducer="custom", custom=SLEEPS))
    with i18n.using("zh-CN"), pytest.raises(sandbox.TypedCodeStopped) as stopped:
        sandbox.run("playground", {"source": source, "writers": 2}, Limits(wall_seconds=1), what=_("the reducer"))
    assert str(stopped.value) == "归约函数在 1 秒内没有返回，已被停止：请确保它不会无限等待。"


def test_a_warm_fold_answers_within_300_ms():
    _warm_worker()
    setup = Setup(reducer="custom", writes=("['a']", "['b']", "['c']"))
    times = []
    for _attempt in range(5):
        started = time.perf_counter()
        play(setup)
        times.append(time.perf_counter() - started)
    assert sorted(times)[2] < 0.3, times


def test_an_exercises_endless_loop_and_growing_import_are_one_line_each():
    exercise = EXERCISES["subgraph_trap"]
    threads = threading.active_count()
    spinning = check(exercise, exercise.starter() + "\nwhile True:\n    pass\n")
    assert spinning.reasons == ["your code ran past its 5 s CPU limit and was stopped\\: make sure it returns\\."]
    growing = check(exercise, "grown = []\nwhile True:\n    grown.append(' ' * 10**6)\n")
    assert growing.reasons == [
        "your code used more than 512 MB of memory and was stopped\\: make sure it does not keep growing\\."
    ]
    assert not spinning.solved and not growing.solved and threading.active_count() == threads
    assert check(exercise, exercise.answer()).solved, "the worker answers after both"
