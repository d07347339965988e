"""The logic, pure and typed; it never imports an engine. Rooms by concept: ``search``,
``answers``, ``memory`` (every change to stored entries), ``lifecycle``, ``collections``,
``cluster``, ``namespaces``; what they share: ``entries``, ``errors`` and ``ports`` (what the
domain needs of the outside)."""
