"""StepScope's own engine as a runtime (`engine/`): its graphs run on `engine.Loop`, recorded by the
engine's `Recorder` hook (`debugger/sources/runs/recording.py`), forked by compiling a copy of the builder."""

from __future__ import annotations

from debugger.runtimes.engine.record import EngineRuntime

ENGINE = EngineRuntime()
"""The one engine runtime the registry hands out."""

__all__ = ["ENGINE", "EngineRuntime"]
