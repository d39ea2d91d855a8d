"""The process's long-lived objects kept out of the garbage collector's full scans during a run.

CPython's cyclic garbage collector scans *every* tracked object in its oldest generation now
and then: in a process that imported the judge's SDK, SQLAlchemy and pydantic that is over
100,000 objects (the SDK's types alone are most of them), ~50 ms of CPU per scan on a small
machine, and a run of 1,000 judge-bound items triggers about two. During a scan the event loop
stands still, so every judge reply that arrives waits for it: the run loses that time for all
the items in flight at once. The objects that existed before the run (modules, classes,
the caller's data) are not the run's garbage, so :class:`FrozenHeap` moves them to the
interpreter's permanent generation (:func:`gc.freeze`) for the run and back at its end
(:func:`gc.unfreeze`); scans then cover only what the run itself made.

Nothing is lost: objects freed by reference counting are freed as before, and a reference
cycle of objects older than the run is collected after the run instead of during it. Runs in
several threads (or nested) share one freeze, undone when the last ends. The freeze is left
alone when the caller froze objects already (``gc.get_freeze_count() > 0``, e.g. a server
that freezes before forking workers) or disabled the collector.
"""

from __future__ import annotations

import gc
import threading
from types import TracebackType

__all__ = ["FrozenHeap"]

_lock = threading.Lock()
_active = 0
_froze = False


class FrozenHeap:
    """Freezes the objects alive now for the duration of a ``with`` block (see the module).

    The first block of the process to enter freezes (when the caller has not frozen anything
    and the collector is enabled), the last to leave unfreezes. :meth:`release` leaves early
    and is idempotent: a run whose task was abandoned (a second Ctrl-C) releases its freeze
    so, even if its ``with`` block never ends.
    """

    def __init__(self) -> None:
        self._held = False

    def __enter__(self) -> FrozenHeap:
        global _active, _froze
        with _lock:
            if self._held:
                return self
            if _active == 0 and gc.isenabled() and gc.get_freeze_count() == 0:
                gc.freeze()
                _froze = True
            _active += 1
            self._held = True
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()

    def release(self) -> None:
        """Leave the freeze (the last one out unfreezes); nothing when already left."""
        global _active, _froze
        with _lock:
            if not self._held:
                return
            self._held = False
            _active -= 1
            if _active == 0 and _froze:
                gc.unfreeze()
                _froze = False
