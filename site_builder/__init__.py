"""Static-site generator for LLM inference benchmark comparisons at matched interactivity."""

__version__ = "0.1.0"
