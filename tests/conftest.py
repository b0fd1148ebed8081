"""Shared test setup: the samples that sleep to be watched live (`slow_research`) do not sleep in
tests unless a test asks for it (`monkeypatch.setenv("STEPSCOPE_SAMPLE_DELAY", ...)`)."""

import os

os.environ.setdefault("STEPSCOPE_SAMPLE_DELAY", "0")
