"""A candidate `upper` for `./taskmesh replay-eval`: text.upper, except that one word in ten
stays lower-case.

Which words is decided by the CRC-32 of the word, so the envelopes a replay reports as
different can be told in advance: those whose text has a word whose CRC-32 ends in 0 (mod 10).
"""
import zlib


def lowered(word):
    return zlib.crc32(word.encode("utf-8")) % 10 == 0


def upper(payload):
    words = payload["text"].split(" ")
    payload["text"] = " ".join(w.lower() if lowered(w) else w.upper() for w in words)
    payload.setdefault("steps", []).append("upper")
    return payload
