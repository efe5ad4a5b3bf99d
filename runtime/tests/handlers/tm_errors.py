"""An exception class shared by both handler styles, so their error details can be compared."""


class Rejected(ValueError):
    """Raised by the `boom` handlers of ref_style and ctx_style."""
