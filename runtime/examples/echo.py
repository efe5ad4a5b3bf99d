"""Echo actor: returns the payload unchanged."""


def handle(payload):
    return payload
