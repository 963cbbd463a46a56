"""SIGTERM and SIGHUP end a run as SIGINT does: an exception raised where the run is, so every
`finally` runs (a half-written output's temporary file removed) before the process exits.
Standard library only: `main` enters this before it knows which command runs."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager


class Interrupted(BaseException):
    """SIGTERM or SIGHUP ended the run (SIGINT is KeyboardInterrupt): raised where the run is,
    so every `finally` runs (a half-written output's temporary file removed) before it exits
    128 + the signal. A BaseException, as KeyboardInterrupt: no `except Exception` stops it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


ENDING_SIGNALS = ("SIGTERM", "SIGHUP")


@contextmanager
def signals_end_the_run() -> Iterator[None]:
    """While the run lasts, SIGTERM and SIGHUP raise Interrupted in this process (a child it
    forked, a `--jobs` worker, dies of them as before). Outside the main thread: unchanged."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    me = os.getpid()

    def raise_it(signum: int, _frame: object) -> None:
        if os.getpid() != me:  # a forked worker: the signal's default action, as before
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        raise Interrupted(signum)

    before = {}
    for name in ENDING_SIGNALS:
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) is signal.SIG_DFL:  # an ignored one stays ignored
            before[number] = signal.signal(number, raise_it)
    try:
        yield
    finally:
        for number, handler in before.items():
            signal.signal(number, handler)
