"""CPU tests of loading a project's benchmarks/peers.py (run: pytest tools/harness/python)."""

import os
import sys
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import peers_file  # noqa: E402
from peers_file import PeersFileError, load_peers_file, validate_benchmarks  # noqa: E402


def fn(*_):
    return None


def entry(**change):
    e = {"inputs": fn, "ours": fn, "reference": fn, "peers": {"torch.compile": fn}}
    e.update(change)
    return {key: value for key, value in e.items() if value is not None}


def write(tmp_path, text, name="peers.py"):
    path = tmp_path / "benchmarks" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return str(path)


def test_a_valid_file_loads_under_a_private_module_name(tmp_path):
    path = write(tmp_path, """
        import dataclasses

        @dataclasses.dataclass
        class Shape:  # needs its module in sys.modules while the class is made
            rows: int

        def make_inputs(case):
            return (Shape(2),)

        def ours(ops, s):
            return s

        BENCHMARKS = {"rms_norm": {"inputs": make_inputs, "ours": ours, "reference": ours,
                                   "peers": {"compiled": lambda: ours}}}
    """)
    before = set(sys.modules)
    entries = load_peers_file(path)
    assert list(entries) == ["rms_norm"]
    assert list(entries["rms_norm"].peers) == ["compiled"]
    added = set(sys.modules) - before
    assert len(added) == 1 and next(iter(added)).startswith("_kbuild_peers_")
    assert "peers" not in added
    assert not (tmp_path / "benchmarks" / "__pycache__").exists()


def test_a_module_beside_the_file_can_be_imported_and_the_path_is_restored(tmp_path):
    write(tmp_path, """
        def shared_inputs(case):
            return ()

        def shared_peer():
            return lambda: None
    """, name="shared_norm_peers.py")
    path = write(tmp_path, """
        from shared_norm_peers import shared_inputs, shared_peer

        BENCHMARKS = {"rms_norm": {"inputs": shared_inputs, "ours": shared_inputs,
                                   "reference": shared_inputs, "peers": {"p": shared_peer}}}
    """)
    path_before = list(sys.path)
    try:
        entries = load_peers_file(path)
        assert list(entries["rms_norm"].peers) == ["p"]
        assert sys.path == path_before
    finally:
        sys.modules.pop("shared_norm_peers", None)


@pytest.mark.parametrize("benchmarks, message", [
    (None, "x.py: defines no BENCHMARKS dict"),
    ([], "x.py: BENCHMARKS is a list, expected a dict of benchmark name -> entry"),
    ({"": entry()}, "x.py: BENCHMARKS: benchmark name '' is not a non-empty string"),
    ({3: entry()}, "x.py: BENCHMARKS: benchmark name 3 is not a non-empty string"),
    ({"b": "rms"}, "x.py: BENCHMARKS['b'] is a str, expected a dict with the keys inputs, ours"),
    ({"b": entry(reference=None)}, "x.py: BENCHMARKS['b'] has no 'reference' (an entry needs"),
    ({"b": entry(peer={})}, "x.py: BENCHMARKS['b'] has an unknown key 'peer' (did you mean 'peers'?)"),
    ({"b": entry(ours="ops.rms_norm")}, "x.py: BENCHMARKS['b']['ours'] is a str, expected a function"),
    ({"b": entry(peers=[fn])}, "x.py: BENCHMARKS['b']['peers'] is a list, expected a dict"),
    ({"b": entry(peers={"liger": 3})}, "x.py: BENCHMARKS['b']['peers']['liger'] is a int, expected a factory"),
    ({"b": entry(peers={"a\nb": fn})}, "x.py: BENCHMARKS['b']['peers']: peer name 'a\\nb' must be"),
    ({"b": entry(peers={"x" * 65: fn})}, "x.py: BENCHMARKS['b']['peers']: peer name"),
])
def test_each_mistake_is_one_line_naming_the_key(benchmarks, message):
    with pytest.raises(PeersFileError) as error:
        validate_benchmarks(benchmarks, "x.py")
    assert str(error.value).startswith(message)
    assert "\n" not in str(error.value)


def test_an_entry_with_no_peers_is_valid():
    assert validate_benchmarks({"b": entry(peers={})}, "x.py")["b"].peers == {}


def test_an_import_failure_names_the_line_and_leaves_no_module(tmp_path):
    path = write(tmp_path, """
        import torch

        x = 1
        y = undefined_name
    """)
    before = set(sys.modules)
    with pytest.raises(PeersFileError) as error:
        load_peers_file(path)
    assert str(error.value) == (f"{path}:5: importing it raised NameError: "
                                "name 'undefined_name' is not defined")
    assert not any(m.startswith("_kbuild_peers_") for m in set(sys.modules) - before)


def test_a_syntax_error_and_sys_exit_are_reported(tmp_path):
    path = write(tmp_path, "def f(:\n    pass\n", "syntax.py")
    with pytest.raises(PeersFileError, match=r"syntax.py:1: importing it raised SyntaxError"):
        load_peers_file(path)
    path = write(tmp_path, "import sys\nsys.exit(3)\n", "exits.py")
    with pytest.raises(PeersFileError, match=r"exits.py:2: importing it raised SystemExit: 3"):
        load_peers_file(path)


def test_a_symbolic_link_a_missing_file_and_a_huge_file_are_refused(tmp_path, monkeypatch):
    real = write(tmp_path, "BENCHMARKS = {}\n", "real.py")
    link = tmp_path / "benchmarks" / "peers.py"
    os.symlink(real, link)
    with pytest.raises(PeersFileError, match="not a regular file"):
        load_peers_file(str(link))
    with pytest.raises(PeersFileError, match="cannot read it: No such file"):
        load_peers_file(str(tmp_path / "none.py"))
    monkeypatch.setattr(peers_file, "MAX_FILE_BYTES", 4)
    with pytest.raises(PeersFileError, match=r"16 bytes, more than 4"):
        load_peers_file(real)


def test_a_fifo_or_a_folder_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "peers.py"
    os.mkfifo(fifo)  # opening it for reading would wait for a writer without O_NONBLOCK
    with pytest.raises(PeersFileError, match="not a regular file"):
        load_peers_file(str(fifo))
    folder = tmp_path / "folder.py"
    folder.mkdir()
    with pytest.raises(PeersFileError, match="not a regular file|cannot read it"):
        load_peers_file(str(folder))
