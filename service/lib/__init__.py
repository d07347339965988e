"""Generic mechanisms the service is built with, not its domain: a circuit breaker, token
buckets, a bounded cache, engine states, group commit, a loop on a thread of its own, a
stopwatch."""
