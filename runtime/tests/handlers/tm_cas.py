"""A counter incremented with read + check-and-set write on a state-proxy mount (TM_COUNTER)."""

import errno
import os

COUNTER = os.environ["TM_COUNTER"]


def increment(payload):
    conflicts = 0
    while True:
        try:
            with open(COUNTER) as f:
                value = int(f.read())
        except FileNotFoundError:
            value = 0
        try:
            with open(COUNTER, "w") as f:
                f.write(str(value + 1))
            return {"value": value + 1, "conflicts": conflicts}
        except FileExistsError:  # another writer got in between: read again
            conflicts += 1
        except OSError as e:
            if e.errno != errno.EIO:
                raise
            # the backend failed mid-write (moto answers some racing conditional writes with 500):
            # the write may or may not have landed, so this increment is neither counted nor retried
            return {"indeterminate": True, "conflicts": conflicts}
