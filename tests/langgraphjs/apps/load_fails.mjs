// An app that fails while it is imported (before any graph runs).
throw new Error("OPENAI_API_KEY is not set");
