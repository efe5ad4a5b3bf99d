"""taskmesh actor runtime: hosts a user's Python handler behind HTTP on a Unix socket.

Public API for handler code:

* ``Context``: second (optional) handler argument with ``id``, ``parent_id``, ``route`` and
  ``headers``.
* ``fly(obj)``: wrap a JSON object yielded by a generator handler so it is sent as a FLY
  (ephemeral) event instead of an output frame.

Handlers written for the reference runtime need neither: payload-only functions and the yield
verbs ``("FLY", obj)``, ``("GET", path)``, ``("SET", path, value)``, ``("DEL", path)`` work as
they are (see ``verbs``).
"""

from .handler import Context, Fly, fly

__all__ = ["Context", "Fly", "fly"]
__version__ = "0.1.0"
