"""traceattrib: where each step of an LLM-inference GPU trace goes, and how much a fix could win."""
__version__ = "0.1.0"
