"""LLM judges: prompt templates, backends (llama.cpp, OpenAI-compatible, simulated), methods, parsers."""
