"""Module that fails at import time."""

import tm_dependency_that_does_not_exist  # noqa: F401


def handle(payload):
    return payload
