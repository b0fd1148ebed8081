"""StepScope's own engine as a runtime of the debugger."""
