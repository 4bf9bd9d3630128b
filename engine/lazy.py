"""Package exports loaded on first use (PEP 562), written once for every package that has them.

A cold `flashback search` must not import what it does not use (issue 26): the HTTP clients, the
LLM agents, the Ask flow, the rerankers. So a package such as `engine.llm` or `engine.api`
re-exports its names without importing the submodules that define them; the first read of a name
imports its submodule and keeps the value on the package, so the next read is a plain attribute:

    __getattr__, __dir__ = lazy_exports(__name__, {"ChatClient": ".client", "RetryPolicy": "engine.http_retry"})

The package keeps its `__all__` and, under TYPE_CHECKING, the same imports for type checkers.
This module imports only the standard library and no engine module: it is the lowest layer
(tests/engine/test_layering.py).
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping


def lazy_exports(module_name: str, table: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The `__getattr__` and `__dir__` for package `module_name` (pass `__name__`): `table` maps
    each exported name to the module that defines it, absolute or relative to the package
    (".client"). An unknown name raises AttributeError as a module without it would."""

    def getattr_(name: str) -> Any:
        where = table.get(name)
        if where is None:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(where, module_name), name)
        setattr(sys.modules[module_name], name, value)  # the next lookup is a plain attribute read
        return value

    def dir_() -> list[str]:
        return sorted(table)

    return getattr_, dir_
