"""Code a learner types (a playground reducer, an exercise's code) runs here: in a child process, never in
the app's server. `client.run(job, request)` sends one request to a warm worker (`worker.py`, started once
per server, restarted after a kill); the worker forks a fresh child for each request, which sets its own
CPU-time and memory limits and answers with data. A request that passes a limit is answered with one line
naming that limit (`TypedCodeStopped`), and whatever it left running is killed with its process group."""

from debugger.sandbox.client import TypedCodeStopped, run
from debugger.sandbox.limits import Limits

__all__ = ["Limits", "TypedCodeStopped", "run"]
