"""A handler that caches its results in a state-proxy mount with plain file operations.

Payload: {"text": "..."}. The "expensive" part (word frequencies) runs once per distinct text;
its result is kept as `/state/cache/results/<sha256>.json` and every call counts a hit in
`/state/cache/hits/<sha256>`. Nothing here knows about the object store: `open()`, `os.path`
and `FileExistsError` are the whole interface. The mount is declared in examples/actors.yaml
(`stateProxy`); `./taskmesh dev` starts its connector and a local S3 server.
"""

import collections
import hashlib
import json
import os

CACHE = os.environ.get("CACHE_DIR", "/state/cache")
MAX_CONFLICTS = 20


def word_counts(payload):
    text = payload["text"]
    key = hashlib.sha256(text.encode()).hexdigest()
    result_path = f"{CACHE}/results/{key}.json"
    cached = os.path.exists(result_path)
    if cached:
        with open(result_path) as f:
            result = json.load(f)
    else:
        result = dict(collections.Counter(text.lower().split()).most_common(10))
        with open(result_path, "w") as f:
            json.dump(result, f)
    return {"text": text, "top_words": result, "cached": cached, "hits": _count_hit(f"{CACHE}/hits/{key}")}


def _count_hit(path):
    """Read, add one, write back. On a check-and-set mount a concurrent writer makes the write
    raise FileExistsError: read again and retry."""
    for _ in range(MAX_CONFLICTS):
        try:
            with open(path) as f:
                hits = int(f.read())
        except FileNotFoundError:
            hits = 0
        try:
            with open(path, "w") as f:
                f.write(str(hits + 1))
            return hits + 1
        except FileExistsError:
            continue
    raise RuntimeError(f"{path}: still conflicting after {MAX_CONFLICTS} attempts")
