"""Whether this app server may run code typed into its pages (a playground reducer, an exercise's code).

On this machine alone (a loopback address) it may. Bound beyond it (`stepscope app --host 0.0.0.0`), anyone
who can reach the port could run code on the server, so those pages are off unless `--allow-code` was
given. `stepscope app` decides once and tells its Streamlit server through `CODE_ENV`; the pages read it
through `code_allowed`. Imports no streamlit."""

from __future__ import annotations

import ipaddress
import os
from typing import Mapping

CODE_ENV = "STEPSCOPE_ALLOW_CODE"
"""Set by `stepscope app` for its Streamlit server: "1" lets the pages run typed code, "0" turns them off."""


def is_loopback(host: str) -> bool:
    """True for an address only this machine reaches: 127.0.0.0/8, ::1 (also as ::ffff:127.x.y.z or in
    brackets) and `localhost`. Every other name or address is beyond it, 0.0.0.0 and :: (all interfaces)
    included: a host name is not resolved, since what it names may change."""
    text = host.strip().strip("[]").rstrip(".").lower()
    if text == "localhost":
        return True
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return (mapped or address).is_loopback


def allowed_for(host: str, *, allow_code: bool) -> bool:
    """Whether a server bound to `host` runs typed code: on loopback always, beyond it with --allow-code."""
    return allow_code or is_loopback(host)


def code_allowed(environ: Mapping[str, str] | None = None) -> bool:
    """What the pages ask. Without `CODE_ENV` (`streamlit run debugger/app.py` started by hand, or a test)
    typed code runs, as it always did; `stepscope app` always sets it."""
    environ = os.environ if environ is None else environ
    return environ.get(CODE_ENV, "1").strip() != "0"
