"""Reading and writing: the reference ``.xpg`` format and the project's JSON model format.

Each name is imported on first use (:mod:`xpg.core.lazy`): reading a ``.xpg`` file loads no
JSON model machinery.
"""

from typing import TYPE_CHECKING

from xpg.core import lazy as _lazy

if TYPE_CHECKING:
    from xpg.io.atomic import write_text_atomic
    from xpg.io.model_json import load_model, model_from_dict, model_to_dict, read_model, save_model
    from xpg.io.xpg_format import format_xpg, read_xpg, read_xpg_text, write_xpg

_LAZY = {
    "write_text_atomic": "xpg.io.atomic",
    "load_model": "xpg.io.model_json",
    "model_from_dict": "xpg.io.model_json",
    "model_to_dict": "xpg.io.model_json",
    "read_model": "xpg.io.model_json",
    "save_model": "xpg.io.model_json",
    "format_xpg": "xpg.io.xpg_format",
    "read_xpg": "xpg.io.xpg_format",
    "read_xpg_text": "xpg.io.xpg_format",
    "write_xpg": "xpg.io.xpg_format",
}

__all__ = [
    "format_xpg",
    "load_model",
    "model_from_dict",
    "model_to_dict",
    "read_model",
    "read_xpg",
    "read_xpg_text",
    "save_model",
    "write_text_atomic",
    "write_xpg",
]

__getattr__, __dir__ = _lazy.reexports(__name__, _LAZY, globals())
