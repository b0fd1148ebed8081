"""StepScope's debugger: the Streamlit app (`app.py`, `views/`) and the `stepscope` command line
(`cli.py`), both reading one analysis of a recorded run (`model.py` over `diagnostics/facts.py`)."""
