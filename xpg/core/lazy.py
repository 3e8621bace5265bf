"""Deferred imports: a library or a public name is loaded when first used, not when imported.

One mechanism for the whole package, so that ``import xpg`` and ``xpg enum SMALL.xpg`` load
no heavy library (numpy alone costs more than reading and explaining a small graph):

* :func:`module` stands in for a library (``np = lazy.module("numpy")``): the first attribute
  access imports it, and each attribute is then kept on the stand-in, so later accesses cost
  what a module attribute costs.  Code that never touches ``np`` never imports numpy;
* :func:`reexports` gives a package the PEP 562 ``__getattr__`` and ``__dir__`` that import
  a public name's module on first use (``xpg.find_axp``, ``from xpg.io import read_xpg``).

Type checkers see the real modules: import them under ``if TYPE_CHECKING``.

Examples
--------
>>> import sys
>>> m = module("xpg.examples")
>>> m.and_xpg().n_vars, "xpg.examples" in sys.modules
(2, True)
>>> getattr_, dir_ = reexports("pkg", {"dumps": "json"}, {})
>>> getattr_("dumps")([1])
'[1]'
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any


class LazyModule:
    """A module imported on first attribute access (see :func:`module`)."""

    def __init__(self, name: str) -> None:
        self.__name = name

    def __getattr__(self, attr: str) -> Any:
        # called only for attributes not yet kept on the stand-in
        value = getattr(importlib.import_module(self.__name), attr)
        setattr(self, attr, value)
        return value

    def __repr__(self) -> str:
        return f"<deferred module {self.__name!r}>"


def module(name: str) -> Any:
    """A stand-in for the module ``name``, imported on first attribute access."""
    return LazyModule(name)


def loaded(name: str) -> bool:
    """Has the module ``name`` been imported (by anyone)?  Code with a pure-Python and a numpy
    route asks this to take the numpy one only once numpy is paid for."""
    return name in sys.modules


def reexports(
    package: str, names: dict[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """PEP 562 ``__getattr__`` and ``__dir__`` for a package re-exporting ``names`` (public
    name -> the module defining it), each imported on first use and then kept in
    ``namespace`` (the package's ``globals()``)."""

    def __getattr__(name: str) -> Any:
        where = names.get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(where), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(names))

    return __getattr__, __dir__
