"""Exit codes of the ``strata`` command."""

OK = 0
"""Done."""
REFUSED = 1
"""The service refused the request (it answered 4xx or 5xx), or a rebuild failed."""
USAGE = 2
"""Bad usage or configuration."""
UNREACHABLE = 3
"""The service could not be reached."""
