"""StepScope's debugger: the Streamlit app (`app.py`, `views/`) and the `stepscope` command line
(`cli.py` over `commands/`), both reading one analysis of a recorded run (`model.py` over
`diagnostics/facts.py`); graphs run on a runtime (`runtimes/`: the engine or langgraph) picked once."""
