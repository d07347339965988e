"""strata: tier-aware hybrid memory and retrieval for AI agents."""

VERSION = "0.1.0"
"""This release (pyproject.toml says the same; a test checks)."""
