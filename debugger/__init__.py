"""StepScope's debugger: the `stepscope` command line (and, later, the Streamlit app)."""
