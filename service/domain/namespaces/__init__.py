"""A namespace as a whole: its export and restore, and what it stores."""
