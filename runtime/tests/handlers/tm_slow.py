"""Module whose import is slow (TM_IMPORT_DELAY seconds), to observe the start-up order."""

import os
import time

time.sleep(float(os.environ.get("TM_IMPORT_DELAY", "0")))


def handle(payload):
    return payload
