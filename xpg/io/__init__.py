"""Reading and writing: the reference ``.xpg`` format and the project's JSON model format."""

from xpg.io.atomic import write_text_atomic
from xpg.io.model_json import load_model, model_from_dict, model_to_dict, read_model, save_model
from xpg.io.xpg_format import format_xpg, read_xpg, read_xpg_text, write_xpg

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
