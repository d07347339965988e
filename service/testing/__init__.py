"""Support for tests and benchmarks, never imported by the running service: the throw-away
engine servers they start on loopback (``engines``)."""
