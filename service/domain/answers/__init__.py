"""Answers built on a search: retrieve's verdict and its confidence, the context block
within a token budget (``context``, ``excerpts``, ``folding``), and the interactions
logged with their feedback."""
