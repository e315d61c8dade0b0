"""Renderers: the same Report as terminal text, Markdown, JSON or CSV (human units only here)."""
