"""What a job running under `schedkit serve` is told of its allocation (docs/runtime.md).

At start, its environment: SCHEDKIT_GPUS (GPUs of this run), SCHEDKIT_TIME_LIMIT_S and
SCHEDKIT_TIME_LEFT_S (seconds; empty without a limit) and SCHEDKIT_EVENTS (a file). While it runs,
the service appends one JSON object per line to that file when its GPUs grow or shrink:
{"event": "up" | "down", "gpus": N, "gpu_ids": "0,1", "time_left_s": X or null, "time": unix s}.

No dependency beyond the standard library: any training script can copy the idea or import it.
"""

import json
import math
import os
import time
from dataclasses import dataclass

from . import AdaptError


def _seconds(environ, name):
    text = environ.get(name, "")
    if text == "":
        return None
    try:
        value = float(text)
    except ValueError:
        raise AdaptError(f"${name}: '{text}' is not a number of seconds") from None
    if not math.isfinite(value) or value < 0:
        raise AdaptError(f"${name}: '{text}' is not a number of seconds >= 0")
    return value


@dataclass
class Allocation:
    """The allocation the job started with. `deadline` is the time.monotonic() at which the time
    limit is reached if the job keeps running (None without a limit)."""
    gpus: int
    time_limit_s: float
    time_left_s: float
    events_path: str
    deadline: float

    def time_left(self, now=None):
        """Seconds of run time left now (the limit counts only while running); None without a limit."""
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - (time.monotonic() if now is None else now))


def allocation(environ=None, time_limit_s=None):
    """The allocation from the environment. `time_limit_s` stands in for the runtime's limit when
    the job runs outside `schedkit serve` (then SCHEDKIT_TIME_LEFT_S is absent)."""
    environ = os.environ if environ is None else environ
    gpus_text = environ.get("SCHEDKIT_GPUS", "")
    try:
        gpus = int(gpus_text) if gpus_text else 0
    except ValueError:
        raise AdaptError(f"$SCHEDKIT_GPUS: '{gpus_text}' is not a GPU count") from None
    limit = _seconds(environ, "SCHEDKIT_TIME_LIMIT_S")
    left = _seconds(environ, "SCHEDKIT_TIME_LEFT_S")
    if left is None and time_limit_s is not None:
        limit, left = time_limit_s, time_limit_s
    deadline = None if left is None else time.monotonic() + left
    return Allocation(gpus, limit, left, environ.get("SCHEDKIT_EVENTS", ""), deadline)


class Events:
    """Reads the events file as the service appends to it: `poll()` returns the events written since
    the last call (never half a line), `follow()` yields them as they come."""

    def __init__(self, path, skip_existing=False):
        """skip_existing: start after what the file holds now (events of earlier runs of the job)."""
        self.path = path
        self._offset = 0
        self._line = 0
        self._partial = b""
        if skip_existing and path and os.path.exists(path):
            with open(path, "rb") as f:
                existing = f.read()
            whole = existing[:existing.rfind(b"\n") + 1]
            self._offset, self._line = len(whole), whole.count(b"\n")

    def poll(self):
        if not self.path or not os.path.exists(self.path):
            return []
        with open(self.path, "rb") as f:
            f.seek(self._offset)
            chunk = f.read()
        self._offset += len(chunk)
        lines = (self._partial + chunk).split(b"\n")
        self._partial = lines.pop()  # what follows the last newline: not yet a whole line
        events = []
        for raw in lines:
            self._line += 1
            try:
                event = json.loads(raw)
            except ValueError as e:
                raise AdaptError(f"{self.path}:{self._line}: not JSON ({e})") from None
            if not isinstance(event, dict) or event.get("event") not in ("up", "down") \
                    or not isinstance(event.get("gpus"), int):
                raise AdaptError(f"{self.path}:{self._line}: field 'event' or 'gpus' is missing or wrong")
            events.append(event)
        return events

    def follow(self, poll_s=0.2, until=None):
        """Yields each event as it is written; stops when until() (if given) returns true."""
        while until is None or not until():
            for event in self.poll():
                yield event
            time.sleep(poll_s)
