"""Markdown collections: the folders the service may read, the globs that pick files, and
the files kept as entries (``catalog``)."""
