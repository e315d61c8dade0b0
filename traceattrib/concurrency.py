"""Running one thing beside another: the one way the orchestrators (analysis, parallel) use a
second thread. Analyses themselves are single-threaded functions over arrays; most of their time
is in numpy and pandas, which release the GIL, so two of them overlap well on two cores."""
from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any


@contextlib.contextmanager
def beside(fn: Callable[..., Any], *args: Any, name: str = "traceattrib", inline: bool = False,
           **kwargs: Any) -> Iterator[Future]:
    """fn(*args, **kwargs) in a second thread while the block runs; the block gets its Future
    (`.result()` waits for it and raises what it raised). Leaving the block waits for it.
    inline: run it here, before the block (one working set in memory at a time, not two)."""
    if inline:
        done: Future = Future()
        try:
            done.set_result(fn(*args, **kwargs))
        except Exception as e:  # noqa: BLE001 - raised where the block asks for the result, as from a thread
            done.set_exception(e)
        yield done
        return
    with ThreadPoolExecutor(1, thread_name_prefix=name) as pool:
        yield pool.submit(fn, *args, **kwargs)
