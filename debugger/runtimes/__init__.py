"""The runtimes the debugger drives graphs with, one sub-package each, behind one interface (`driven.py`)."""
