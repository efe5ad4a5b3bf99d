"""Module whose import is slow (TM_IMPORT_DELAY seconds), to observe the start-up order.

With TM_IMPORT_MARKER set, the file of that name is created when the import has finished.
"""

import os
import time

time.sleep(float(os.environ.get("TM_IMPORT_DELAY", "0")))
if os.environ.get("TM_IMPORT_MARKER"):
    with open(os.environ["TM_IMPORT_MARKER"], "w") as marker:
        marker.write("imported")


def handle(payload):
    return payload
