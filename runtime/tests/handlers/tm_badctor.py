class Needs:
    def __init__(self, x):
        self.x = x

    def handle(self, payload):
        return payload


def three(a, b, c):
    return a
