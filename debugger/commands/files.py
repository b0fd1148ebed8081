"""Files written at a user's path (`run --out`, `export`, the kept copy of an unstored run): whole or not at all.

Each is written to a temporary name in the same folder, flushed and synced, then renamed over the path
(`os.replace`, atomic on one file system). A write that fails part-way (a full disk, a file-size limit,
Ctrl-C) removes the temporary file and leaves the path as it was: no half file a later `import` or a
browser could take for the run, and an older file of that name untouched. A symlink at the path is
written through (its target is replaced), as a plain `open(path, "w")` would; a path that is no file
(`/dev/stdout`, a named pipe) is written as it is, having no content to keep.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path
from typing import Iterator, TextIO


@contextlib.contextmanager
def whole_file(path: str | Path) -> Iterator[TextIO]:
    """A text file to write that appears at `path` only once all of it is written (see the module);
    OSError when it cannot be, with `path` as it was."""
    if _is_stream(path):  # /dev/stdout, a pipe: no file to swap
        with open(path, "w", encoding="utf-8", newline="") as stream:
            yield stream
        return
    target = Path(os.path.realpath(path))
    if target.exists() and not os.access(target, os.W_OK):  # as `open(path, "w")` refuses it: no rename around that
        raise PermissionError(13, "Permission denied", str(path))
    temporary = beside(target)
    mode = _mode_of(target)
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666 if mode is None else mode)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            if mode is not None:  # the old file's permissions, not those the umask leaves a new one
                os.fchmod(out.fileno(), mode)
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _sync_folder(target.parent)


def beside(target: Path) -> Path:
    """A new temporary name in `target`'s folder (same file system, so a rename moves it into place)."""
    return target.parent / f".{target.name}.{secrets.token_hex(4)}.tmp"


def write_whole(path: str | Path, text: str) -> None:
    """Writes `text` (UTF-8) to `path` whole or not at all (`whole_file`)."""
    with whole_file(path) as out:
        out.write(text)


def not_written(path: str | Path, exc: OSError) -> str:
    """Why `path` was not written, in one line, and that nothing of it was left there."""
    there = Path(path)
    kept = "the file there is as it was" if there.exists() else "nothing was left there"
    if exc.errno == errno.EISDIR or there.is_dir():
        kept = "nothing in it changed"
        fix = f"it is a folder: give a file in it, e.g. {there / 'run.json'}"
    elif exc.errno == errno.ENOENT:
        fix = f"its folder {there.parent} does not exist: make it or choose another path"
    elif exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        fix = "choose a path you can write to"
    else:  # a full disk, a file-size limit, a quota
        fix = "free space or choose another path"
    return f"cannot write {path}: {exc.strerror or exc} ({kept}); {fix}, then try again"


def _is_stream(path: str | Path) -> bool:
    """Whether `path` (followed through links) is there and is neither a file nor a folder."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _mode_of(target: Path) -> int | None:
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except OSError:  # no file yet
        return None


def _sync_folder(folder: Path) -> None:
    """The rename itself reaches the disk (a crash just after cannot bring the old name back)."""
    with contextlib.suppress(OSError):
        handle = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)
