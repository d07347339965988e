"""Generic mechanisms the service is built with, not its domain: a circuit breaker, token
buckets, a bounded cache, engine states, group commit, a pool that takes turns between
callers, a loop on a thread of its own, a stopwatch, copying fields between types, and how
the server process shares its interpreter and allocator."""
