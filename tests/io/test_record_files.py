"""Records that come back as files (issue 31): the workers of a ``local:N`` Dask cluster
write each task's JSON Lines text to a file, and the writer of ``-o OUT.jsonl`` copies it in
(:class:`~xpg.explain.records.EncodedChunk` ``path``).  The output is the texts in the
order they came, whole lines only when a copy fails, and each file is removed once copied."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest

from xpg.explain.records import EncodedChunk
from xpg.io import batch_output
from xpg.io.batch_output import JsonLinesFile, WriteFailed


def _part(folder: Path, name: str, rows: range) -> EncodedChunk:
    path = folder / name
    path.write_text("".join(f'{{"row": {r}}}\n' for r in rows), encoding="utf-8")
    return EncodedChunk("", len(rows), 0, path=str(path))


def test_files_and_texts_are_written_in_the_order_they_come(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    writer = JsonLinesFile(str(out), resume=False)
    writer.write(EncodedChunk('{"row": 0}\n', 1, 0))
    writer.write(_part(tmp_path, "a.jsonl", range(1, 4)))
    writer.write(EncodedChunk('{"row": 4}\n', 1, 0))
    writer.write(_part(tmp_path, "b.jsonl", range(5, 9)))
    writer.finish()
    assert out.read_text() == "".join(f'{{"row": {r}}}\n' for r in range(9))
    assert writer.rows == 9
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]  # the files removed


def test_without_copy_file_range_the_file_is_read_and_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another file system (EXDEV), or no such call: the bytes go through this process."""

    def cross_device(*args: Any) -> int:
        raise OSError(errno.EXDEV, os.strerror(errno.EXDEV))

    monkeypatch.setattr(os, "copy_file_range", cross_device, raising=False)
    monkeypatch.setattr(batch_output, "COPY_BLOCK", 7)  # several reads
    out = tmp_path / "out.jsonl"
    writer = JsonLinesFile(str(out), resume=False)
    writer.write(_part(tmp_path, "a.jsonl", range(5)))
    writer.finish()
    assert out.read_text() == "".join(f'{{"row": {r}}}\n' for r in range(5))


def test_a_copy_that_fails_leaves_the_lines_before_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk in the middle of a file: cut back to the last whole line, WriteFailed."""
    real = os.copy_file_range

    def full_after_some(src: int, dst: int, count: int, offset_src: int, offset_dst: int) -> int:
        if offset_src > 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(src, dst, min(count, 5), offset_src, offset_dst)

    out = tmp_path / "out.jsonl"
    writer = JsonLinesFile(str(out), resume=False)
    writer.write(EncodedChunk('{"row": 0}\n', 1, 0))
    monkeypatch.setattr(os, "copy_file_range", full_after_some)
    with pytest.raises(WriteFailed, match="No space left on device"):
        writer.write(_part(tmp_path, "a.jsonl", range(1, 4)))
    assert out.read_text() == '{"row": 0}\n'
    assert not (tmp_path / "a.jsonl").exists()
