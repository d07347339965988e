"""The logic, pure and typed; it never imports an engine. Rooms by concept: ``search``,
``answers``, ``memory`` (every change to stored entries), ``lifecycle``, ``collections``,
``cluster``, ``namespaces``; what they share: ``ports`` (what the domain needs of the outside)
and, under them all, the floor: ``entries``, ``model`` (the values rooms and ports pass),
``text``, ``numbers``, ``tokens`` and ``errors``, which import no room."""
