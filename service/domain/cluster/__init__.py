"""Replicas: the change log they follow, and how each brings its indexes up to it."""
