"""Run one function over many pages, on a process pool when there are enough of them.

The only module that knows about processes. `map_pages(fn, pages, workers, shared)` calls
`fn(shared, page)` for each page and yields the results in the pages' order. `shared` (the loaded
inputs every page reads) reaches each worker once: a forked worker inherits it (frozen first, so
its collector leaves it alone), a spawned one receives it through the pool's initializer. At most
AHEAD pages are in flight (made, or being made, and not yet taken), so memory does not grow with
the site. Few pages, or one worker, run here in this process: starting workers costs more than
it saves. A worker ends when the process that started it dies (`_die_with`), however it dies.
"""

from __future__ import annotations

import ctypes
import gc
import multiprocessing
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any, TypeVar

Shared = TypeVar("Shared")
Page = TypeVar("Page")
Result = TypeVar("Result")

PARALLEL_FROM = 24  # pages: below this a pool of forked workers costs more than it saves
SPAWN_FROM = 200  # the same where workers must be spawned (each imports the tool and gets `shared`)
AHEAD = 64  # pages in flight at most

_shared: Any = None  # in a worker: what `map_pages` was given, set once by `_start`
WATCH_SECONDS = 0.5  # how often a worker without PR_SET_PDEATHSIG looks for its parent


def _start(shared: object, parent: int) -> None:
    """A worker's start: Ctrl+C (sent to the terminal's whole process group) is the build
    process's to handle (it stops the pool); a worker only ends with it."""
    global _shared
    _shared = shared
    if os.getpid() != parent:  # a worker process (not a thread of the build's, as a test may run)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if hasattr(signal, "pthread_sigmask"):  # started with Ctrl+C held (_ctrl_c_held): ignored now
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        _die_with(parent)


def _die_with(parent: int) -> None:
    """End this worker when the build process (`parent`) dies, even by SIGKILL (a CI timeout
    kills one process): on Linux the kernel sends SIGKILL (PR_SET_PDEATHSIG), elsewhere a thread
    looks for the parent twice a second. A parent gone already ends it now."""
    try:
        pdeathsig = ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL) == 0  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pdeathsig = False
    if os.getppid() != parent:
        os._exit(1)
    if not pdeathsig:
        threading.Thread(target=_watch, args=(parent,), daemon=True).start()


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCH_SECONDS)
    os._exit(1)


def _call(fn: Callable[[Any, Page], Result], page: Page) -> Result:
    return fn(_shared, page)


def workers_for(pages: int, workers: int | None) -> tuple[int, str]:
    """How many worker processes for this many pages (0: none, in this process), and how they
    start: forked where that is safe (a process with one thread), else spawned."""
    count = workers or os.cpu_count() or 1
    fork = "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1
    if count <= 1 or pages < (PARALLEL_FROM if fork else SPAWN_FROM):
        return 0, ""
    return count, "fork" if fork else "spawn"


@contextmanager
def _ctrl_c_held() -> Iterator[None]:
    """Ctrl+C held back while the pool may be starting a worker (a submit starts them): a worker
    interrupted before its start ignores SIGINT would die with a traceback; a worker inherits the
    mask, and the build process receives the held Ctrl+C once the submit is done."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def map_pages(
    fn: Callable[[Shared, Page], Result],
    pages: Sequence[Page],
    workers: int | None,
    shared: Shared,
) -> Generator[Result, None, None]:
    """`fn(shared, page)` for every page, in order; `fn` must be a module-level function."""
    count, method = workers_for(len(pages), workers)
    if count == 0:
        for page in pages:
            yield fn(shared, page)
        return
    if method == "fork":
        # what this process holds now (the loaded inputs, above all) outlives the pool: frozen, the
        # collector of each worker that inherits it need not walk it. Only when forking: a process
        # that forks runs one build and ends (serve runs threads, so it spawns), where frozen
        # objects that later fall into a reference cycle are never collected.
        gc.freeze()
    context = multiprocessing.get_context(method)
    pool = ProcessPoolExecutor(count, mp_context=context, initializer=_start, initargs=(shared, os.getpid()))
    try:
        pending: deque[Future[Result]] = deque()
        for page in pages:
            if len(pending) >= AHEAD:
                yield pending.popleft().result()
            with _ctrl_c_held():
                pending.append(pool.submit(_call, fn, page))
        while pending:
            yield pending.popleft().result()
    finally:  # also when the caller stops early (close the iterator): the pages not begun are dropped
        pool.shutdown(cancel_futures=True)
