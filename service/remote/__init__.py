"""A running strata service, reached over HTTP: the client the ``strata`` commands and
``strata mcp`` share (``client``)."""
