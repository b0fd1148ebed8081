"""The Live run page's stepper model (`debugger/model/live_stepper.py`): the steps a live run has recorded
so far, each built once; the step running now; breakpoints and the tasks about to run; and the pause's words
in the page's language (`debugger.i18n.Later`)."""

from __future__ import annotations

import threading

from debugger import i18n
from debugger.live import Breakpoints
from debugger.model import live_page
from debugger.model.live_stepper import LiveModels
from tests.test_live import live, paused, pipeline

NO_LAYOUT = {"svg_of": lambda dot: ""}
"""No graphviz here: the drawing is the browser's business; the steps are what is checked."""


def _step(model: dict, step: int) -> dict:
    return next(s for s in model["window"]["steps"] if s["step"] == step)


def test_a_new_step_builds_its_model_and_the_newest_one_again_never_the_whole_run() -> None:
    run = live(pipeline().compile(), Breakpoints.of(every_step=True))
    models = LiveModels(run.snapshot().run_id)
    try:
        snap = paused(run)
        first = models.model(snap, None, None, **NO_LAYOUT)
        assert first["numbers"] == [0] and first["at_step"] == 0 and first["live"]
        for count in (2, 3, 4):
            built = models.built
            run.step()
            snap = run.wait_until(lambda s: s.status == "paused" and len(s.committed_steps) == count)
            model = models.model(snap, None, None, **NO_LAYOUT)
            assert model["numbers"] == list(range(count)) and model["at_step"] == count - 1  # the newest
            assert models.built - built == 2, "the new step and the one that was newest, nothing else"
            again = models.model(snap, None, 0, **NO_LAYOUT)
            assert again["at_step"] == 0 and _step(again, 0) == _step(model, 0)
            assert models.built - built == 3, "moving builds only the newest step again"
    finally:
        run.stop()


def test_the_step_running_now_is_the_newest_step_with_its_tasks_states() -> None:
    gate = threading.Event()
    run = live(pipeline(gate=gate).compile(), Breakpoints.of(before=["d"]))
    try:
        snap = run.wait_until(lambda s: {t.name: t.state for t in s.running}.get("c") == "done")
        model = LiveModels(snap.run_id).model(snap, None, None, **NO_LAYOUT)
        now = _step(model, 2)
        assert model["numbers"][-1] == 2 and model["at_step"] == 2 and 2 not in snap.committed_steps
        assert now["nodes"] == {"node___start__": "visited", "node_a": "visited", "node_b": "running", "node_c": "ran"}
        assert now["summary"][0] == ["heading", "Step 2 is running"] and now["panels"] is False
        assert _step(model, 1)["summary"][-1] == ["text", "Next: step 2, running now."]
        assert model["findings"] is None, "a run still going has no findings yet"
        gate.set()
        snap = paused(run)
        model = LiveModels(snap.run_id).model(snap, None, None, **NO_LAYOUT)
        newest = _step(model, 2)
        assert newest["nodes"]["node_d"] == "next" and newest["labels"] == {"node_d": "breakpoint before"}
        assert newest["summary"][-1] == ["text", "Next: d in step 3, when you press Step or Continue."]
    finally:
        gate.set()
        run.stop()


def test_the_pause_says_why_in_the_pages_language_and_stays_english_as_a_string() -> None:
    run = live(pipeline().compile(), Breakpoints.of(before=["d"]))
    try:
        snap = paused(run)
        assert snap.pause.reasons == ("breakpoint before d",)  # what the CLI and the logs read
        assert snap.pause.tasks[0].why == "all of b, c finished (last: b, c)"
        with i18n.using("zh-CN"):
            assert i18n.say(list(snap.pause.reasons)) == "d 之前的断点"
            assert i18n.say(snap.pause.tasks[0].why) == "b、c 全部完成（最后一个：b、c）"
            assert live_page.status_line(snap) == "⏸ 已暂停，在第 3 步之前：d 之前的断点"
            model = LiveModels(snap.run_id).model(snap, None, None, **NO_LAYOUT)
            assert _step(model, 2)["labels"]["node_d"] == "之前有断点" and model["labels"]["next"] == "下一步 ▶"
        final = run.stop()
        with i18n.using("zh-CN"):
            assert i18n.say(final.message) == "你在第 3 步之前停止了运行。在那之前提交的超级步都已记录。"
        assert final.message == "Stopped by you before step 3. The supersteps committed before that are recorded."
    finally:
        run.stop()
