"""Score functions for `./taskmesh replay-eval --score module.fn`: (live, candidate, envelope) -> float."""


def exact_match(live, candidate, envelope):
    return 1.0 if live == candidate else 0.0
