"""The one read path and the one write path for every file the project reads or writes:
result, working-set, experiment and ncu files, HTML charts, CSVs, notebooks and lab outputs.

Reading (:func:`read_text`): the path, after links are resolved, must be a regular file (a
device such as ``/dev/zero``, a named pipe or a socket is refused before a byte is read, so
nothing is read until memory runs out and nothing blocks), no larger than the cap of its
format (:data:`MAX_BYTES`), and UTF-8.  :func:`read_lines` gives such a file a line at a time
under the same rules, for a reader that stops at the first bad row.

Writing (:func:`write_atomic`): the text goes to a temporary file in the target's folder,
is fsynced, and is renamed over the target, so that a full disk, a crash or an interrupt
leaves the old file as it was and no half-written file behind.  A target that exists and is
not a regular file (``/dev/null``, a pipe, a folder) is refused, never replaced; an existing
file keeps its mode.

Every failure is ``error(f"{path}: file: <reason>")`` in the caller's own error class, one
line that names the file and what is wrong with it, never a traceback.
"""
from __future__ import annotations

import codecs
import json
import os
import re
import secrets
import stat
from pathlib import Path

MiB = 2 ** 20

#: The largest file of each format that is read, in bytes.  The shipped files are a few
#: tens of KB; these caps leave room for far larger real runs (an ncu CSV of 100,000 launches
#: is about 60 MB) while refusing a file that could only exhaust memory.
MAX_BYTES = {
    "result": 16 * MiB,  # ceilings, sweep, working-set and experiment files
    "json": 16 * MiB,  # analytic counts and other small JSON inputs
    "ncu-csv": 256 * MiB,
    "notebook": 16 * MiB,
    "text": 16 * MiB,
}

#: An integer literal in a JSON file longer than this is read as a float (so that it is
#: checked as a number, and out-of-range values become infinite and are refused by name):
#: no count or rate the course stores needs more than 20 digits.
MAX_JSON_INT_DIGITS = 30


class FileError(ValueError):
    """A file that cannot be read or written; the message is one line naming the file."""


def _kind_of(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _size_text(n: int) -> str:
    return f"{n / MiB:,.1f} MiB" if n >= MiB else f"{n:,} bytes"


def _open_regular(p: Path, error: type, kind: str, cap: int) -> int:
    """A read-only descriptor of the regular file ``p`` (links resolved), no larger than
    ``cap`` when opened, or ``error`` naming the file."""
    try:
        # stat before opening: opening a device can have effects of its own, and a pipe with
        # no writer would block
        before = os.stat(p)
        if not stat.S_ISREG(before.st_mode):
            raise error(f"{p}: file: is {_kind_of(before.st_mode)}, not a regular file, so not {kind}")
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
                     | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise error(f"{p}: file: not found") from None
    except PermissionError:
        raise error(f"{p}: file: cannot be read (permission denied)") from None
    except OSError as exc:
        raise error(f"{p}: file: cannot be read ({exc.strerror or exc})") from None
    try:
        st = os.fstat(fd)  # the file opened may not be the one stat saw
        if not stat.S_ISREG(st.st_mode):
            raise error(f"{p}: file: is {_kind_of(st.st_mode)}, not a regular file, so not {kind}")
        if st.st_size > cap:
            raise error(f"{p}: file: is {_size_text(st.st_size)}; {kind} is at most {_size_text(cap)}")
    except BaseException:
        os.close(fd)
        raise
    return fd


def _cap(limit) -> int:
    return MAX_BYTES[limit] if isinstance(limit, str) else int(limit)


def read_bytes(path, error: type = FileError, kind: str = "a file", limit: str = "text") -> bytes:
    """The bytes of the regular file ``path`` (links resolved), at most ``MAX_BYTES[limit]``."""
    p = Path(path)
    cap = _cap(limit)
    fd = _open_regular(p, error, kind, cap)
    try:
        chunks, total = [], 0
        while total <= cap:
            chunk = os.read(fd, min(4 * MiB, cap + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > cap:  # it grew while being read
            raise error(f"{p}: file: is over {_size_text(cap)}; {kind} is at most {_size_text(cap)}")
        return b"".join(chunks)
    except OSError as exc:
        raise error(f"{p}: file: cannot be read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)


#: The longest line :func:`read_lines` gives by default, in characters: a line of a result
#: CSV is under 200, and a longer one (an unclosed quote, a file with no line ends) is refused
#: as it is read instead of being held whole.
MAX_LINE_CHARS = 64 * 1024
#: How much :func:`read_lines` reads at a time.
_CHUNK_BYTES = 64 * 1024
_LINE_END = re.compile(r"\r\n|\r|\n")


def read_lines(path, error: type = FileError, kind: str = "a text file", limit: str = "text",
               max_line: int = MAX_LINE_CHARS, what: str = "line"):
    """The lines of the UTF-8 text file ``path``, one at a time, each ending in ``"\\n"``.

    The same rules as :func:`read_text` (a regular file, links resolved, at most the cap,
    UTF-8), checked as the file is read: a reader that stops at the first bad line reads no
    further, and memory holds one chunk and one line.  Lines end at ``\\n``, ``\\r\\n`` or a lone
    ``\\r`` (a spreadsheet's old Mac export).  A line over ``max_line`` characters is
    ``error("<path>: <what> N: ...")``.  A generator: close it (``contextlib.closing``) or read
    it to the end, and the file is closed."""
    p = Path(path)
    cap = _cap(limit)
    fd = _open_regular(p, error, kind, cap)
    decoder = codecs.getincrementaldecoder("utf-8")()
    pending, total, number = "", 0, 0

    def too_long():
        return error(f"{p}: {what} {number + 1}: longer than {max_line:,} characters, so not {kind}")

    try:
        while True:
            try:
                chunk = os.read(fd, _CHUNK_BYTES)
            except OSError as exc:
                raise error(f"{p}: file: cannot be read ({exc.strerror or exc})") from None
            total += len(chunk)
            if total > cap:  # it grew while being read
                raise error(f"{p}: file: is over {_size_text(cap)}; {kind} is at most {_size_text(cap)}")
            held = len(decoder.getstate()[0])  # bytes of a character the last chunk cut
            try:
                pending += decoder.decode(chunk, final=not chunk)
            except UnicodeDecodeError as exc:
                at = total - len(chunk) - held + exc.start
                raise error(f"{p}: file: not UTF-8 text, so not {kind} (bad byte at offset "
                            f"{max(at, 0)})") from None
            start = 0
            for end in _LINE_END.finditer(pending):
                if end.group() == "\r" and end.end() == len(pending) and chunk:
                    break  # a \r\n cut by the chunk: wait for the next one
                if end.start() - start > max_line:
                    raise too_long()
                number += 1
                yield pending[start:end.start()] + "\n"
                start = end.end()
            pending = pending[start:]
            if len(pending) > max_line:
                raise too_long()
            if not chunk:
                if pending:
                    yield pending + "\n"
                return
    finally:
        os.close(fd)


def read_text(path, error: type = FileError, kind: str = "a text file", limit: str = "text") -> str:
    """The UTF-8 text of the regular file ``path``, or ``error`` with a one-line reason.

    ``limit`` is the format's key in :data:`MAX_BYTES` (or a size in bytes)."""
    data = read_bytes(path, error, kind, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{Path(path)}: file: not UTF-8 text, so not {kind} (bad byte at offset "
                    f"{exc.start})") from None


def _json_int(text: str):
    digits = len(text) - (text[0] == "-")
    return int(text) if digits <= MAX_JSON_INT_DIGITS else float(text)


def parse_json(text: str, where: str, error: type = FileError):
    """``json.loads`` whose failure is ``error`` naming ``where``, the line and the column.

    Integers of more than :data:`MAX_JSON_INT_DIGITS` digits are read as floats, so a
    schema's number rules refuse them by field instead of an int the size of the file
    reaching arithmetic."""
    try:
        return json.loads(text, parse_int=_json_int)
    except json.JSONDecodeError as exc:
        raise error(f"{where}: not valid JSON (truncated or corrupted?): {exc.msg} at line "
                    f"{exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise error(f"{where}: JSON nested too deeply") from None
    except (ValueError, OverflowError, TypeError) as exc:
        raise error(f"{where}: not valid JSON ({' '.join(str(exc).split())[:80]})") from None


def read_json(path, error: type = FileError, kind: str = "a JSON file", limit: str = "json"):
    """:func:`read_text`, then :func:`parse_json`: the one way a JSON file is loaded."""
    return parse_json(read_text(path, error, kind, limit), str(Path(path)), error)


def _temporary(target: Path) -> Path:
    return target.parent / f".{target.name}.{secrets.token_hex(6)}.tmp"


def check_target(path, error: type = FileError, probe: bool = True) -> Path:
    """The file :func:`write_atomic` would write for ``path`` (links resolved), or ``error``
    when it cannot be written there: an empty name, a missing folder, a link to a missing
    file, a target that exists and is not a regular file, or (``probe``) a folder where no
    file can be created, such as ``/proc`` or a read-only one: its temporary file is made and
    removed.  For checking every output option before a long run, and before writing any."""
    if not str(path).strip():
        raise error("file: empty file name")
    p = Path(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        if os.path.islink(p):
            # the link's own folder exists; what is missing is where it points
            target = Path(os.path.realpath(p))
            if not target.parent.is_dir():
                raise error(f"{p}: file: is a link to {str(target)!r}, whose folder "
                            f"{str(target.parent)!r} does not exist") from None
            raise error(f"{p}: file: is a link to a missing file ({str(target)!r}); refusing to "
                        "replace the link") from None
        st = None
    except OSError as exc:
        raise error(f"{p}: file: cannot be written ({exc.strerror or exc})") from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise error(f"{p}: file: is {_kind_of(st.st_mode)}, not a regular file; refusing to replace it")
    target = Path(os.path.realpath(p)) if st is not None else p
    folder = target.parent
    if not folder.is_dir():
        raise error(f"{p}: file: folder {str(folder)!r} does not exist")
    if probe:
        tmp = _temporary(target)
        try:
            os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600))
            os.unlink(tmp)
        except OSError as exc:
            raise error(f"{p}: file: cannot be written ({exc.strerror or exc}); "
                        "the old file, if any, is unchanged") from None
    return target


def write_atomic(path, text, error: type = FileError) -> Path:
    """Write ``text`` (str as UTF-8, or bytes) to ``path`` through a temporary file in the
    same folder, fsync and a rename: a full disk, a crash or an interrupt leaves the old file
    untouched and nothing half-written.  An existing file keeps its mode; a target that is
    not a regular file is refused.  Any failure is ``error`` naming the path and the reason.
    Returns ``path``."""
    p = Path(path)
    data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
    target = check_target(p, error, probe=False)  # the temporary file below is the probe
    try:
        old = os.stat(target)
    except OSError:
        old = None
    tmp = _temporary(target)
    fd = None
    try:
        # 0o666 through the umask, as a plain open would create it; an old file's mode below
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
        if old is not None:
            os.fchmod(fd, stat.S_IMODE(old.st_mode))
            if hasattr(os, "fchown") and (old.st_uid, old.st_gid) != (os.getuid(), os.getgid()):
                try:  # only root may; anyone else's copy is theirs, as a plain rewrite would be
                    os.fchown(fd, old.st_uid, old.st_gid)
                except OSError:
                    pass
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        os.fsync(fd)
        os.close(fd)
        fd = None
        os.replace(tmp, target)
    except BaseException as exc:
        if fd is not None:
            os.close(fd)
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise error(f"{p}: file: cannot be written ({exc.strerror or exc}); "
                        "the old file, if any, is unchanged") from None
        raise
    try:  # make the rename itself durable; a folder that cannot be fsynced is no error
        dir_fd = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError:
        pass
    return p
