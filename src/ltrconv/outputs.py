"""Output paths: what writing a result to a path may do to whatever is already there.

The rules, for the command line's ``-o``/``--out`` and for every file ltrconv writes:

* a regular file, or a path that does not exist yet, is written to a hidden temporary file
  beside it that is renamed over it once complete, so that nobody reads half a file and a
  failed write leaves the old file (or nothing) behind; an existing file keeps its mode;
* a symbolic link is followed and its target obeys these same rules (the link stays);
* a FIFO or a character device (``/dev/null``, ``/dev/stdout``, a shell's ``>(...)``) and a
  file reached through a file-descriptor link (``/dev/fd/N``, ``/proc/self/fd/N``) are written
  through, as the shell's ``>`` would, once the output is complete;
* a directory, a socket and a block device are refused;
* an existing file is never replaced unless it is writable: ``os.access`` must allow writing,
  and, because the superuser passes every permission check, the file must have at least one
  write permission bit; the directory that receives the temporary file must be writable in
  the same sense;
* an output that is the same file as one of the command's inputs (same device and inode,
  links followed) is refused: writing it would destroy the input. A path that does not exist
  yet cannot be an input; character devices (``/dev/null``) are exempt;
* every byte is written, however many ``write`` calls it takes (a pipe or a file near a size
  limit may take fewer bytes than offered); a write that fails (a full disk, a file size
  limit) is an :class:`OutputError` naming the output, never a silently short file. Standard
  output obeys the same rule (:func:`write_stdout`).

:func:`check_output` applies the rules without writing, so that a command can refuse a bad
output path before its work (hours of training) rather than after.
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from .errors import InputError, printable

_FD_LINK_DIRS = ("/proc/", "/dev/fd/")
_MAX_LINKS = 40  # as the kernel's ELOOP limit


class OutputError(InputError):
    """An output path ltrconv will not write to, or a write that failed."""


@dataclass(frozen=True)
class Target:
    """Where an output goes: ``path`` is replaced atomically, or written through (``stream``)."""

    path: Path
    stream: bool


def _writable(path: Path, st: os.stat_result) -> bool:
    """Writable for this process, and, for the superuser's sake, with a write bit set."""
    return os.access(path, os.W_OK) and bool(st.st_mode & 0o222)


def _through_fd_link(path: Path) -> bool:
    """Whether resolving ``path`` passes a file-descriptor link (its target has no usable name)."""
    cur = os.path.abspath(path)
    for _ in range(_MAX_LINKS):
        if cur.startswith(_FD_LINK_DIRS):
            return True
        if not os.path.islink(cur):
            return False
        cur = os.path.normpath(os.path.join(os.path.dirname(cur), os.readlink(cur)))
    return False


def _check_directory(directory: Path, name: str) -> None:
    """``directory`` (or, if absent, its nearest existing ancestor) can receive a new file."""
    d = directory
    while not d.exists() and d != d.parent:
        if d.is_symlink():
            raise OutputError(f"cannot create it: {d} is a broken symbolic link", name)
        d = d.parent
    if not d.is_dir():
        raise OutputError(f"cannot create it: {d} is not a directory", name)
    if not (_writable(d, d.stat()) and os.access(d, os.X_OK)):
        raise OutputError(f"cannot create files in {d}: the directory is not writable", name)


def _refuse_inputs(name: str, st: os.stat_result, inputs: Iterable[str | os.PathLike]) -> None:
    """Raise if the existing output ``name`` (stat ``st``) is the same file as an input."""
    for inp in inputs:
        if inp is None:
            continue
        try:
            ist = os.stat(inp)
        except (OSError, ValueError):  # an input that cannot be read fails when it is read
            continue
        if (ist.st_dev, ist.st_ino) == (st.st_dev, st.st_ino):
            what = ("is also an input" if os.fspath(inp) == name
                    else f"is the same file as the input {printable(inp)}")
            raise OutputError(f"{what}: writing it would destroy the input; name another "
                              "output", name)


def check_output(path: str | os.PathLike, inputs: Iterable[str | os.PathLike] = ()) -> Target:
    """Apply the module's rules to ``path``; raise :class:`OutputError` naming it if refused.

    ``inputs`` are the files the command reads: an output that is one of them is refused."""
    name = os.fspath(path)
    if not name:
        raise OutputError("the output path is empty")
    if name.endswith(("/", os.sep)):
        raise OutputError("names a directory; name a file inside it", name)
    p = Path(name)
    try:
        st = p.stat()
    except FileNotFoundError:
        st = None
    except NotADirectoryError:
        raise OutputError("cannot create it: a parent of this path is not a directory",
                          name) from None
    except OSError as exc:
        raise OutputError(f"cannot write: {exc.strerror or exc}", name) from None
    if st is None:  # a new file, or the missing target of a symbolic link
        real = Path(os.path.realpath(p))
        _check_directory(real.parent, name)
        return Target(real, stream=False)
    mode = st.st_mode
    if not stat.S_ISCHR(mode):
        _refuse_inputs(name, st, inputs)
    if stat.S_ISDIR(mode):
        raise OutputError("is a directory; name a file inside it", name)
    if stat.S_ISREG(mode):
        if not _writable(p, st):
            raise OutputError("is read-only, so it is not replaced (make it writable, or write "
                              "elsewhere)", name)
        if _through_fd_link(p):
            return Target(p, stream=True)
        real = Path(os.path.realpath(p))
        _check_directory(real.parent, name)
        return Target(real, stream=False)
    if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
        if not _writable(p, st):
            raise OutputError("is not writable", name)
        return Target(p, stream=True)
    kind = ("a socket" if stat.S_ISSOCK(mode) else "a block device" if stat.S_ISBLK(mode)
            else "not a regular file")
    raise OutputError(f"is {kind}; outputs go to regular files, FIFOs or character devices",
                      name)


class atomic_path:
    """Context manager yielding a temporary path for the output ``path`` (see the module rules).

    On success the temporary file is renamed over the target, or copied into it when the
    target is written through; on failure it is removed and the target is untouched. An
    ``OSError`` of the write becomes an :class:`OutputError` naming ``path``.
    """

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)

    def __enter__(self) -> Path:
        self.target = check_output(self.path)
        try:
            if self.target.stream:
                fd, tmp = tempfile.mkstemp(prefix="ltrconv-", suffix=".part")
                mode = None
            else:
                dest = self.target.path
                dest.parent.mkdir(parents=True, exist_ok=True)
                fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".part",
                                           dir=dest.parent)
                mode = stat.S_IMODE(dest.stat().st_mode) if dest.exists() else None
        except OSError as exc:
            raise OutputError(f"cannot write: {exc.strerror or exc}", str(self.path)) from None
        os.close(fd)
        if mode is None:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask  # mkstemp's 0600 would carry over to the result
        os.chmod(tmp, mode)
        self.tmp = Path(tmp)
        return self.tmp

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            if exc_type is None:
                if self.target.stream:
                    _copy_through(self.tmp, self.target.path, str(self.path))
                else:
                    os.replace(self.tmp, self.target.path)
            elif (isinstance(exc, OSError) and not isinstance(exc, BrokenPipeError)
                  and exc.filename in (None, str(self.tmp))):
                raise OutputError(f"cannot write: {exc.strerror or exc}", str(self.path)) from None
        except BrokenPipeError:
            raise
        except OSError as err:
            raise OutputError(f"cannot write: {err.strerror or err}", str(self.path)) from None
        finally:
            self.tmp.unlink(missing_ok=True)


_BLOCK = 1 << 20


def write_all(fd: int, data: bytes, name: str) -> None:
    """Write every byte of ``data`` to the file descriptor ``fd``, looping over short writes.

    A failed write raises :class:`OutputError` naming ``name`` (a :class:`BrokenPipeError`
    passes: the reader has gone, which the caller decides about). Python's buffered files can
    drop the rest of a short write without an error (a file reaching ``ulimit -f``), hence
    the loop over ``os.write``."""
    view = memoryview(data)
    while view:
        try:
            n = os.write(fd, view[:_BLOCK])
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputError(f"cannot write: {exc.strerror or exc}", name) from None
        if n <= 0:
            raise OutputError("cannot write: the system accepted no byte", name)
        view = view[n:]


def _copy_through(src: Path, dest: Path, name: str) -> None:
    """Copy the finished temporary file ``src`` into the FIFO or device ``dest``."""
    fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    try:
        with open(src, "rb") as fh:
            for block in iter(lambda: fh.read(_BLOCK), b""):
                write_all(fd, block, name)
    finally:
        os.close(fd)


STDOUT_NAME = "standard output"


def write_stdout(text: str) -> None:
    """Write ``text`` to standard output in full, or raise :class:`OutputError` naming it.

    Characters the output's encoding lacks are written as backslash escapes. Standard output
    closed when the process started (``>&-``: ``sys.stdout`` is None) is refused."""
    stream = sys.stdout
    if stream is None:
        raise OutputError("closed (the shell's >&-); the result has nowhere to go", STDOUT_NAME)
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # replaced by an object without a descriptor
        fd = None
    try:
        stream.flush()
        if fd is None:
            stream.write(text)
            stream.flush()
            return
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise OutputError(f"cannot write: {exc.strerror or exc}", STDOUT_NAME) from None
    write_all(fd, text.encode(getattr(stream, "encoding", None) or "utf-8", "backslashreplace"),
              STDOUT_NAME)
