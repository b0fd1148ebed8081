"""A gallery sample opened by its link (`?sample=<name>`, and the default sample of a new session),
recorded and analysed once per server process instead of once per browser session.

Such a run is reproducible by construction (the sample's own code and input, not stored), so every
session may share one: the Trace is never mutated, and the view-model's caches (the facts, the
findings, the drawings) fill once. A new session then pays only for drawing its page.
"""

from __future__ import annotations

import streamlit as st

from debugger.sources import runs as sources
from debugger.views.session import LoadedRun

SHARED_SAMPLES = 64
"""Samples kept recorded at once (the gallery has fewer)."""


@st.cache_resource(max_entries=SHARED_SAMPLES, show_spinner=False)
def open_linked(name: str) -> LoadedRun:
    """The sample `name` run with its example input, as `sources.open_sample(name, store=False)` opens
    it; raises `sources.OpenError` (not cached) for a name that is not a sample."""
    return LoadedRun.of(sources.open_sample(name, store=False))
