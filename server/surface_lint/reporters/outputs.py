"""Every file the CLI writes (`-o`, `--update-baseline`, the GitHub step summary) goes through here.

A regular file is written to a temporary file in the same folder, flushed to disk and renamed
over the target (`os.replace`), so a run killed mid-write leaves the old file whole; a file that
is not regular (`/dev/null`, a pipe, a terminal) is written directly. A target that is one of
the run's inputs is refused before anything is written.
"""

from __future__ import annotations

import io
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from ..engine import UsageError
from .common import printable as printable  # the one escaping of data (defined beside the reporters)

# Text that cannot be encoded (an unpaired surrogate from a surface) is escaped, never a crash.
ENCODING_ERRORS = "backslashreplace"



def same_file(a: str, b: str) -> bool:
    """Do two paths name one file? By inode when both exist (links, `./x`, case-insensitive
    file systems), else by their resolved paths."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def refuse_input(path: str | os.PathLike[str] | None, inputs: Sequence[str | os.PathLike[str]],
                 what: str = "-o") -> None:
    """A UsageError when `path` names one of `inputs`: writing it would destroy what was read."""
    if path is None or str(path) == "-":
        return
    target = str(path)
    try:
        mode = os.stat(target).st_mode
        if stat.S_ISFIFO(mode) and any(same_file(target, str(given)) for given in inputs):
            # Read already: opened to write, it would wait for a reader that never comes.
            raise UsageError(f"{what} {target}: this FIFO is an input of the run (already read); "
                             "refusing to write to it (choose another output file)")
        if not stat.S_ISREG(mode):
            return  # /dev/null, a pipe: writing it destroys no input
    except OSError:
        pass
    for given in inputs:
        if same_file(target, str(given)):
            raise UsageError(f"{what} {target}: this file is an input of the run; "
                             "refusing to write over it (choose another output file)")


@contextmanager
def open_output(path: str | os.PathLike[str] | None, inputs: Sequence[str | os.PathLike[str]] = (),
                what: str = "-o", append: bool = False) -> Iterator[TextIO]:
    """A text stream for the run's output: stdout for None or `-`, else the file at `path`.

    `append` keeps the file's current content in front (the step summary); the result still
    replaces the file in one rename. A missing parent folder is created.
    """
    if path is None or str(path) == "-":
        yield sys.stdout
        sys.stdout.flush()
        return
    refuse_input(path, inputs, what)
    try:
        mode = os.stat(path).st_mode  # through links: /dev/stdout is whatever fd 1 is
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise UsageError(f"{what} {path}: cannot write: {exc.strerror}") from None
    if mode is not None and stat.S_ISDIR(mode):
        raise UsageError(f"{what} {path}: is a folder, not a file")
    descriptor = is_descriptor_path(path)
    if descriptor or (mode is not None and not stat.S_ISREG(mode)):
        # Opened by the name given, never its resolved path: /dev/stdout on a pipe resolves to
        # `pipe:[N]`, a name nothing can open. A descriptor is appended to, so `>> log` keeps log.
        try:
            with open(path, "a" if append or descriptor else "w", encoding="utf-8",
                      errors=ENCODING_ERRORS) as stream:
                yield stream
        except BrokenPipeError:
            raise  # the reader went away: the CLI ends quietly, this is no write error
        except OSError as exc:
            raise UsageError(f"{what} {path}: cannot write: {exc.strerror}") from None
        return
    # Write through a symbolic link to the file it names (the link stays a link).
    target = Path(os.path.realpath(path))
    folder = target.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, temp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise UsageError(f"{what} {path}: cannot write: {exc.strerror}"
                         + (f" ({exc.filename})" if exc.filename and str(exc.filename) != str(path) else "")) from None
    try:
        with io.TextIOWrapper(os.fdopen(fd, "wb"), encoding="utf-8", errors=ENCODING_ERRORS,
                              newline="") as stream:
            if append and mode is not None:
                with open(target, "rb") as old:  # the bytes as they are, whatever they hold
                    shutil.copyfileobj(old, stream.buffer)
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temp_name, stat.S_IMODE(mode) if mode is not None else _default_mode())
        os.replace(temp_name, target)
    except BaseException as exc:
        try:
            os.unlink(temp_name)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise UsageError(f"{what} {path}: cannot write: {exc.strerror}") from None
        raise
    _sync_folder(folder)


# Names of an already open descriptor of this process (Linux, macOS, the BSDs).
DESCRIPTOR_PREFIXES = ("/dev/fd/", "/proc/self/fd/", "/dev/stdout", "/dev/stderr")


def is_descriptor_path(path: str | os.PathLike[str]) -> bool:
    """Does `path` name one of this process's open descriptors? Such a target is written in
    place: a rename would detach it from the stream the caller redirected."""
    return str(path).startswith(DESCRIPTOR_PREFIXES)


def write_output(path: str | os.PathLike[str] | None, text: str,
                 inputs: Sequence[str | os.PathLike[str]] = (), what: str = "-o", append: bool = False) -> None:
    with open_output(path, inputs, what, append) as stream:
        stream.write(text)


def _default_mode() -> int:
    """What `open(..., "w")` would have given a new file: 0o666 less the umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable (POSIX); folders cannot be opened on Windows."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
