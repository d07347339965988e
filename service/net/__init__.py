"""Network addresses as settings and requests give them (``addresses``): loopback hosts,
browser origins, database URLs."""
