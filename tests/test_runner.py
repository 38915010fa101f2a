"""The runner (runner.py): results in the pages' order, each worker given the shared inputs once,
whether forked or spawned; at most AHEAD pages in flight; few pages made in this process."""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from site_builder import runner
from site_builder.runner import map_pages


def _square_plus(shared: dict[str, int], page: int) -> tuple[int, int]:
    return page * page + shared["plus"], os.getpid()


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_results_come_back_in_order_from_worker_processes(
    method: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "workers_for", lambda pages, workers: (2, method))
    pages = list(range(150))  # more than AHEAD: pages wait for the caller
    results = list(map_pages(_square_plus, pages, 2, {"plus": 7}))
    assert [value for value, _ in results] == [p * p + 7 for p in pages]
    assert os.getpid() not in {pid for _, pid in results}


def test_few_pages_or_one_worker_are_made_in_this_process() -> None:
    shared = {"plus": 1}
    assert runner.workers_for(runner.PARALLEL_FROM - 1, 4) == (0, "")
    assert runner.workers_for(1000, 1) == (0, "")
    results = list(map_pages(_square_plus, [1, 2, 3], None, shared))
    assert results == [(2, os.getpid()), (5, os.getpid()), (10, os.getpid())]


def test_spawned_where_threads_run() -> None:
    """Forking a process that runs threads (serve) is unsafe: its workers are spawned, and only
    for enough pages to pay for starting them."""
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert runner.workers_for(runner.SPAWN_FROM - 1, 2) == (0, "")
        assert runner.workers_for(runner.SPAWN_FROM, 2) == (2, "spawn")
    finally:
        stop.set()
        thread.join()


def test_pages_in_flight_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """At most AHEAD pages are submitted and not yet taken, however many pages there are."""
    in_flight: list[int] = []
    taken = [0]

    class Counting(ThreadPoolExecutor):
        submitted = 0

        def __init__(self, count: int, **options: Any) -> None:
            super().__init__(count, initializer=options["initializer"], initargs=options["initargs"])

        def submit(self, fn, /, *args, **kwargs):  # type: ignore[no-untyped-def]
            Counting.submitted += 1
            in_flight.append(Counting.submitted - taken[0])
            return super().submit(fn, *args, **kwargs)

    monkeypatch.setattr(runner, "ProcessPoolExecutor", Counting)
    monkeypatch.setattr(runner, "workers_for", lambda pages, workers: (2, "fork"))
    pages = list(range(runner.AHEAD * 5 + 3))
    made = []
    for value, _ in map_pages(_square_plus, pages, 2, {"plus": 0}):
        made.append(value)
        taken[0] += 1
    assert made == [p * p for p in pages]
    assert max(in_flight) == runner.AHEAD


def _fails_at_three(shared: None, page: int) -> int:
    if page == 3:
        raise ValueError("page 3")
    return page


def test_a_failing_page_raises_in_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "workers_for", lambda pages, workers: (2, "fork"))
    made = []
    with pytest.raises(ValueError, match="page 3"):
        for value in map_pages(_fails_at_three, list(range(50)), 2, None):
            made.append(value)
    assert made == [0, 1, 2]
