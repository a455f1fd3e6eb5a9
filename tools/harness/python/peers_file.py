"""Loads and validates a project's benchmarks/peers.py (format: tools/harness/python/README.md).

The file is the user's own code, so importing it is fine; what it defines is still checked
before anything runs, and every mistake is one line naming the file and the key.
"""

import difflib
import errno
import hashlib
import importlib.util
import os
import stat
import sys
import traceback
from dataclasses import dataclass

from peer_text import describe_exception

ENTRY_KEYS = ("inputs", "ours", "reference", "peers")
MAX_FILE_BYTES = 1 << 20
MAX_NAME_CHARS = 64


class PeersFileError(Exception):
    """peers.py cannot be used; the message is one line."""


@dataclass(frozen=True)
class Entry:
    inputs: object  # inputs(case) -> tuple of positional arguments
    ours: object  # ours(ops, *args) -> tensor(s)
    reference: object  # reference(*float64 args) -> tensor(s)
    peers: dict  # peer name -> factory() -> callable(*args)


def _kind(value):
    return type(value).__name__


def _check_name(name, what, where):
    if not isinstance(name, str) or not name.strip():
        raise PeersFileError(f"{where}: {what} {name!r} is not a non-empty string")
    if len(name) > MAX_NAME_CHARS or any(not c.isprintable() for c in name):
        raise PeersFileError(f"{where}: {what} {name[:MAX_NAME_CHARS]!r} must be at most "
                             f"{MAX_NAME_CHARS} printable characters")


def _check_entry(name, entry, where):
    here = f"{where}: BENCHMARKS[{name!r}]"
    if not isinstance(entry, dict):
        raise PeersFileError(f"{here} is a {_kind(entry)}, expected a dict with the keys "
                             f"{', '.join(ENTRY_KEYS)}")
    for key in entry:
        if key not in ENTRY_KEYS:
            close = difflib.get_close_matches(str(key), ENTRY_KEYS, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise PeersFileError(f"{here} has an unknown key {key!r}{hint}")
    for key in ENTRY_KEYS:
        if key not in entry:
            raise PeersFileError(f"{here} has no {key!r} (an entry needs "
                                 f"{', '.join(ENTRY_KEYS)})")
    for key in ("inputs", "ours", "reference"):
        if not callable(entry[key]):
            raise PeersFileError(f"{here}[{key!r}] is a {_kind(entry[key])}, expected a function")
    peers = entry["peers"]
    if not isinstance(peers, dict):
        raise PeersFileError(f"{here}['peers'] is a {_kind(peers)}, expected a dict of "
                             "peer name -> factory")
    for peer, factory in peers.items():
        _check_name(peer, "peer name", f"{here}['peers']")
        if not callable(factory):
            raise PeersFileError(f"{here}['peers'][{peer!r}] is a {_kind(factory)}, expected "
                                 "a factory function that returns the peer's callable")
    return Entry(entry["inputs"], entry["ours"], entry["reference"], dict(peers))


def validate_benchmarks(benchmarks, where):
    """BENCHMARKS as defined by the file -> {benchmark name: Entry}."""
    if benchmarks is None:
        raise PeersFileError(f"{where}: defines no BENCHMARKS dict "
                             "(see tools/harness/python/README.md)")
    if not isinstance(benchmarks, dict):
        raise PeersFileError(f"{where}: BENCHMARKS is a {_kind(benchmarks)}, expected a dict "
                             "of benchmark name -> entry")
    entries = {}
    for name, entry in benchmarks.items():
        _check_name(name, "benchmark name", f"{where}: BENCHMARKS")
        entries[name] = _check_entry(name, entry, where)
    return entries


def _read_file(path):
    """The file's bytes, read through one descriptor opened without following a symbolic link
    (nothing can be swapped in between a check and the read), bounded in size."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise PeersFileError(f"{path}: not a regular file (symbolic links are not "
                                 "followed)") from None
        raise PeersFileError(f"{path}: cannot read it: {e.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise PeersFileError(f"{path}: not a regular file (symbolic links are not followed)")
        chunks, size = [], 0
        while size <= MAX_FILE_BYTES and (chunk := os.read(fd, MAX_FILE_BYTES + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
        data = b"".join(chunks)
    finally:
        os.close(fd)
    if len(data) > MAX_FILE_BYTES:
        raise PeersFileError(f"{path}: {info.st_size} bytes, more than {MAX_FILE_BYTES}")
    return data


def _where_it_failed(path, error):
    """'peers.py:12' for the deepest frame of the failure inside the file, else the path."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == path]
    if isinstance(error, SyntaxError) and error.filename == path and error.lineno:
        return f"{path}:{error.lineno}"
    return f"{path}:{frames[-1].lineno}" if frames else path


def load_peers_file(path):
    """Imports the file under a private module name and returns its validated BENCHMARKS."""
    path = os.path.abspath(path)
    source = _read_file(path)
    # Unique per path, so it cannot shadow or be shadowed by an installed module; it stays in
    # sys.modules because dataclasses, pickling and torch.compile look modules up there.
    name = "_kbuild_peers_" + hashlib.sha256(path.encode()).hexdigest()[:16]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    writes_bytecode = sys.dont_write_bytecode
    sys.dont_write_bytecode = True  # leave no __pycache__ in the project
    # The file's folder first on the path while it runs, so it can import modules beside it
    # (templates share their peers that way).
    sys.path.insert(0, os.path.dirname(path))
    try:
        exec(compile(source, path, "exec"), module.__dict__)  # noqa: S102 - the user's own file
    except (Exception, SystemExit) as e:  # noqa: BLE001 - the user's code
        sys.modules.pop(name, None)
        raise PeersFileError(f"{_where_it_failed(path, e)}: importing it raised "
                             f"{describe_exception(e)}") from None
    finally:
        sys.dont_write_bytecode = writes_bytecode
        sys.path.remove(os.path.dirname(path))
    return validate_benchmarks(getattr(module, "BENCHMARKS", None), path)
