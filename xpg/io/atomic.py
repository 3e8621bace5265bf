"""Write a file whole or not at all.

Examples
--------
>>> import tempfile, pathlib
>>> target = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
>>> write_text_atomic(target, "hello\\n")
>>> target.read_text()
'hello\\n'
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from xpg.errors import OutputError


def _mode_for(target: Path) -> int:
    """The existing file's mode, or the default for a new file (0666 less the umask)."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def write_text_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and a rename."""
    _write_atomic(path, text)


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename
    (binary formats: PNG, Parquet).

    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "out.bin"
    >>> write_bytes_atomic(target, b"\\x00\\x01")
    >>> target.read_bytes()
    b'\\x00\\x01'
    """
    _write_atomic(path, data)


def temporary_beside(path: str | os.PathLike[str]) -> tuple[int, Path]:
    """A new temporary file (its descriptor and path) in the folder of ``path``, to be renamed
    over it (:func:`replace_with`) once it is whole.

    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "out.bin"
    >>> fd, tmp = temporary_beside(target)
    >>> _ = os.write(fd, b"data"); os.close(fd)
    >>> replace_with(tmp, target)
    >>> target.read_bytes(), tmp.exists()
    (b'data', False)

    Raises
    ------
    OutputError
        When no file can be created there (no such folder, not writable, read-only).
    """
    target = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(
            dir=target.parent or ".", prefix=f".{target.name}.", suffix=".tmp"
        )
    except OSError as err:
        raise OutputError(f"{target}: cannot write here: {err.strerror}") from None
    return fd, Path(tmp)


def replace_with(tmp: str | os.PathLike[str], path: str | os.PathLike[str]) -> None:
    """Rename the whole temporary file ``tmp`` over ``path``, with the mode ``open()`` would
    give (or ``path``'s own); ``tmp`` is removed when that fails.

    Raises
    ------
    OutputError
        When the rename fails (``path`` a folder, ...).
    """
    target = Path(path)
    try:
        os.chmod(tmp, _mode_for(target))  # mkstemp creates 0600; give what open() would
        os.replace(tmp, target)
    except BaseException as err:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(err, OSError):
            raise OutputError(f"{target}: cannot write: {err.strerror}") from None
        raise


def _write_atomic(path: str | os.PathLike[str], data: str | bytes) -> None:
    target = Path(path)
    fd, tmp = temporary_beside(target)
    try:
        if isinstance(data, str):
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(data)
        else:
            with os.fdopen(fd, "wb") as fb:
                fb.write(data)
    except BaseException as err:
        tmp.unlink(missing_ok=True)
        if isinstance(err, OSError):
            raise OutputError(f"{target}: cannot write: {err.strerror}") from None
        raise
    replace_with(tmp, target)
