"""Run one function over many pages, on a process pool when there are enough of them.

The only module that knows about processes. `map_pages(fn, pages, workers, shared)` calls
`fn(shared, page)` for each page and yields the results in the pages' order. `shared` (the loaded
inputs every page reads) reaches each worker once: a forked worker inherits it (frozen first, so
its collector leaves it alone), a spawned one receives it through the pool's initializer. At most
AHEAD pages are in flight (made, or being made, and not yet taken), so memory does not grow with
the site. Few pages, or one worker, run here in this process: starting workers costs more than
it saves.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import threading
from collections import deque
from collections.abc import Callable, Generator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, TypeVar

Shared = TypeVar("Shared")
Page = TypeVar("Page")
Result = TypeVar("Result")

PARALLEL_FROM = 24  # pages: below this a pool of forked workers costs more than it saves
SPAWN_FROM = 200  # the same where workers must be spawned (each imports the tool and gets `shared`)
AHEAD = 64  # pages in flight at most

_shared: Any = None  # in a worker: what `map_pages` was given, set once by `_start`


def _start(shared: object) -> None:
    global _shared
    _shared = shared
    # Ctrl+C reaches every process of the terminal's group: the build process stops the pool, a
    # worker interrupted on its own would print a traceback, or leave the pool waiting forever
    if threading.current_thread() is threading.main_thread():  # a worker process (not a test's thread)
        signal.signal(signal.SIGINT, signal.SIG_IGN)


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
    pool = ProcessPoolExecutor(count, mp_context=context, initializer=_start, initargs=(shared,))
    try:
        pending: deque[Future[Result]] = deque()
        for page in pages:
            if len(pending) >= AHEAD:
                yield pending.popleft().result()
            pending.append(pool.submit(_call, fn, page))
        while pending:
            yield pending.popleft().result()
    finally:  # also when the caller stops early (close the iterator): the pages not begun are dropped
        pool.shutdown(cancel_futures=True)
