"""kbuild bench's Python peers, as far as a machine without a GPU can check them: the options
and the help that documents them, a bad value refused before anything builds, and the worker
kbuild runs present in its data folder. Timing the peers needs the GPU machine."""

from e2e_support import REPO_ROOT, describe


def test_bench_help_documents_the_peers(kbuild):
    result = kbuild("bench", "--help")
    assert result.returncode == 0, describe(result)
    for text in ("--no-peers", "--peers-timeout", "benchmarks/peers.py",
                 "tools/harness/python/README.md", "the peers could not be timed"):
        assert text in result.stdout, f"'{text}' missing from kbuild bench --help"


def test_a_peers_timeout_that_is_not_positive_is_bad_usage(kbuild, tmp_path):
    result = kbuild("bench", "--peers-timeout", "0", cwd=tmp_path)
    assert result.returncode == 2, describe(result)
    assert "--peers-timeout" in result.stderr, describe(result)


def test_the_peer_worker_kbuild_runs_is_in_the_data_folder():
    # core/peer_runner.cpp PeerWorkerPath: <data folder>/tools/harness/python/peer_worker.py.
    assert (REPO_ROOT / "tools" / "harness" / "python" / "peer_worker.py").is_file()
