"""Ray remote functions made on first use: importing neardup.ray must not need Ray."""

from __future__ import annotations

from typing import Any


class LazyRemote:
    """``ray.remote(fn)``, made the first time ``.remote`` or ``.options`` is called.

    >>> LazyRemote(len).fn is len
    True
    """

    def __init__(self, fn: Any) -> None:
        self.fn = fn
        self.remote_fn: Any = None

    def _made(self) -> Any:
        if self.remote_fn is None:
            import ray

            self.remote_fn = ray.remote(self.fn)
        return self.remote_fn

    def remote(self, *args: Any) -> Any:
        """Submit the task."""
        return self._made().remote(*args)

    def options(self, **kw: Any) -> Any:
        """The remote function with Ray options (``num_returns=...``)."""
        return self._made().options(**kw)
