"""The GPU script's modes, checked without a GPU through --dry-run: each mode lists the steps
the GPU machine would run, so a mode that silently drops or adds work shows up here."""
import os
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "gpu-run.sh"
# Every shipped template, in the order the script globs them.
TEMPLATES = tuple(sorted(p.parent.name for p in
                         (SCRIPT.parents[2] / "templates").glob("*/template.toml")))


def steps(*args):
    return steps_env({}, *args)


def steps_env(env, *args):
    out = subprocess.run(["bash", str(SCRIPT), *args, "--dry-run"], capture_output=True,
                         text=True, check=True, env={**os.environ, **env}).stdout
    return [line.removeprefix("would run: ") for line in out.splitlines()
            if line.startswith("would run: ")]


def test_default_runs_every_part_and_the_peers():
    s = steps()
    for t in TEMPLATES:
        assert f"{t}: kbuild test" in s and f"{t}: kbuild bench" in s
    assert "harness self-test (wrong kernels, plain CMake)" in s
    assert "harness self-test: kbuild test --sanitize reports findings" in s
    assert "kbuild wheel: blank init+build+test+bench" in s
    assert s[-1] == "peer benchmark (rmsnorm)"


def test_quick_is_the_default_without_peers():
    assert steps("--quick") == steps()[:-1]


def test_checks_tests_everything_and_benches_only_small_rmsnorm_cases():
    s = steps("--checks")
    assert all(f"{t}: kbuild test" in s for t in TEMPLATES)
    assert not any(step.endswith(": kbuild bench") for step in s)
    assert "rmsnorm: kbuild bench --graph (small cases)" in s
    assert "harness self-test: kbuild test isolates crash + hang" in s
    assert "kbuild wheel: install into the torch environment" in s
    assert "peer benchmark (rmsnorm)" not in s


def test_benches_skips_tests_and_wrong_kernel_runs():
    s = steps("--benches")
    assert all(f"{t}: kbuild bench" in s for t in TEMPLATES)
    assert not any(step.endswith(": kbuild test") for step in s)
    assert "harness self-test: kbuild test on the wrong kernels" not in s


def test_build_only_builds_and_calls_every_template_and_nothing_else():
    s = steps("--build-only")
    assert s[:2] == ["build kbuild", "doctor"]
    assert s[2:] == [x for t in TEMPLATES
                     for x in (f"{t}: init+check+build", f"{t}: load+call (python)")]


def test_rmsnorm_mode_covers_one_template_and_the_counters():
    s = steps("--rmsnorm")
    assert not any(step.startswith(tuple(t + ":" for t in TEMPLATES if t != "rmsnorm"))
                   for step in s)
    assert "rmsnorm: kbuild test" in s and "rmsnorm: kbuild bench" in s
    assert s[-2:] == ["rmsnorm sweep under ncu (2048x4096)",
                      "small-shape kernels under ncu (ours vs peers)"]


def test_peers_only_runs_only_the_peer_benchmark_and_its_probe():
    assert steps("--peers-only") == ["peer benchmark (rmsnorm)",
                                     "small-shape kernels under ncu (ours vs peers)"]


def test_features_builds_one_template_and_runs_only_the_harness_features():
    assert steps("--features") == [
        "build kbuild", "doctor", "rmsnorm: init+check+build", "rmsnorm: load+call (python)",
        "rmsnorm: kbuild test --sanitize memcheck", "rmsnorm: kbuild bench (small cases)",
        "rmsnorm: kbuild bench --graph (small cases)",
        "rmsnorm: kbuild bench --compare (small cases)"]


def test_templates_and_switches_narrow_a_mode():
    s = steps_env({"GPU_RUN_TEMPLATES": "softmax rope", "GPU_RUN_TESTS": "0",
                   "GPU_RUN_GRAPH_BENCH": "1", "GPU_RUN_SMOKE": "0"}, "--trust")
    assert [x for x in s if x.startswith(("softmax", "rope"))] == [
        "softmax: init+check+build", "softmax: kbuild bench", "softmax: kbuild bench --graph",
        "rope: init+check+build", "rope: kbuild bench", "rope: kbuild bench --graph"]
    assert not any(x.startswith("rmsnorm:") for x in s)


@pytest.mark.parametrize("arg", ["--bogus", "quick"])
def test_unknown_argument_is_a_usage_error(arg):
    r = subprocess.run(["bash", str(SCRIPT), arg], capture_output=True, text=True)
    assert r.returncode == 2 and "usage:" in r.stderr


def test_trust_runs_every_template_the_wrong_kernels_and_the_wheel_only():
    s = steps("--trust")
    assert all(f"{t}: kbuild test" in s and f"{t}: kbuild bench" in s for t in TEMPLATES)
    assert "harness self-test: kbuild test on the wrong kernels" in s
    assert "harness self-test: kbuild test isolates crash + hang" in s
    assert "kbuild wheel: blank init+build+test+bench" in s
    assert "bench worker tests (pytest, GPU)" in s
    assert not any("sweep" in step or "small cases" in step or "peer" in step for step in s)
    assert "harness self-test (wrong kernels, plain CMake)" not in s


def test_tune_entries_take_their_own_seconds_else_the_shared_time():
    s = steps_env({"GPU_RUN_TEMPLATES": "none", "GPU_RUN_SELFTESTS": "0",
                   "GPU_RUN_TUNE": "gemm_fp32:48:560 rmsnorm:24", "GPU_RUN_TUNE_TIME": "300"},
                  "--trust")
    assert "gemm_fp32: kbuild tune --budget 48 --time 560" in s
    assert "rmsnorm: kbuild tune --budget 24 --time 300" in s


def test_scale_out_runs_its_kit_once():
    s = steps_env({"GPU_RUN_TEMPLATES": "none", "GPU_RUN_SELFTESTS": "0",
                   "GPU_RUN_SCALE_OUT": "1"}, "--trust")
    assert s.count("kbuild tune and optimize over the host's GPUs") == 1


def test_an_example_entry_may_add_its_own_arguments():
    s = steps_env({"GPU_RUN_EXAMPLES": "qwen3_8b "
                   "qwen3_8b+--compile-mode=reduce-overhead,--fuse-layer-boundaries"}, "--quick")
    assert "example qwen3_8b" in s
    assert "example qwen3_8b --compile-mode=reduce-overhead --fuse-layer-boundaries" in s


def test_ncu_beside_peers_follows_the_bench_of_its_template_only():
    s = steps_env({"GPU_RUN_TEMPLATES": "rope adaln", "GPU_RUN_SELFTESTS": "0",
                   "GPU_RUN_NCU_PEERS": "rope:rope_ltx_tables/2x16x16x24x32x64.bf16"}, "--trust")
    probe = "rope: ncu beside peers (rope_ltx_tables/2x16x16x24x32x64.bf16)"
    assert probe in s and s.index(probe) == s.index("rope: kbuild bench") + 1
    assert not any(step.startswith("adaln: ncu") for step in s)


def test_bench_filters_narrow_a_templates_default_bench_only():
    s = steps_env({"GPU_RUN_TEMPLATES": "rope softmax", "GPU_RUN_SELFTESTS": "0",
                   "GPU_RUN_BENCH_FILTERS": "rope=64x1|ltx",
                   "GPU_RUN_DEFINES": "rope:ROPE_MIN_BLOCKS=3:^rope/:notest"}, "--trust")
    assert "rope: kbuild bench --filter 64x1|ltx" in s
    assert "rope: kbuild bench --define ROPE_MIN_BLOCKS=3 --filter ^rope/" in s
    assert "softmax: kbuild bench" in s


def test_each_define_variant_of_a_run_template_builds_in_a_project_of_its_own():
    env = {**os.environ, "GPU_RUN_TEMPLATES": "layernorm", "GPU_RUN_SELFTESTS": "0",
           "GPU_RUN_DEFINES": "layernorm:A=1,B=2:x4096:notest layernorm:A=1 rope:C=1 "
                              "layernorm:A=1,B=2:2688x2048:notest"}
    out = subprocess.run(["bash", str(SCRIPT), "--trust", "--dry-run"], capture_output=True,
                         text=True, check=True, env=env).stdout.splitlines()
    built = [line.removeprefix("would build on the CPUs: ") for line in out
             if line.startswith("would build on the CPUs: ")]
    # rope is not run; the macros listed twice build once
    assert built == ["proj-layernorm-A-1-B-2", "proj-layernorm-A-1"]
    s = steps_env(env, "--trust")
    assert "layernorm: kbuild bench --define A=1 --define B=2 --filter x4096" in s
    assert "layernorm: kbuild bench --define A=1 --define B=2 --filter 2688x2048" in s
    assert "layernorm: kbuild test --define A=1" in s
    assert not any("C=1" in step for step in s)


def test_ab_rounds_repeat_the_default_and_each_variant_bench_interleaved():
    env = {"GPU_RUN_TEMPLATES": "rmsnorm layernorm", "GPU_RUN_SELFTESTS": "0",
           "GPU_RUN_TESTS": "0", "GPU_RUN_BENCH_TEMPLATES": "rmsnorm",
           "GPU_RUN_BENCH_FILTERS": "rmsnorm=bf16", "GPU_RUN_AB_ROUNDS": "3",
           "GPU_RUN_DEFINES": "rmsnorm:A=1:bf16:notest rmsnorm:A=0,B=2 layernorm:C=1"}
    s = steps_env(env, "--trust")
    rms = [step for step in s if step.startswith("rmsnorm: kbuild bench") or "A/B" in step]
    assert rms == [
        "rmsnorm: kbuild bench --filter bf16",
        "rmsnorm: kbuild bench --define A=1 --filter bf16",
        "rmsnorm: kbuild bench --define A=0 --define B=2",
        *[step for r in (2, 3) for step in (
            f"rmsnorm: kbuild bench --filter bf16 (round {r})",
            f"rmsnorm: kbuild bench --define A=1 --filter bf16 (round {r})",
            f"rmsnorm: kbuild bench --define A=0 --define B=2 (round {r})")],
        "rmsnorm: A/B table (ab-rmsnorm.md)"]
    # layernorm's default is not benchmarked (GPU_RUN_BENCH_TEMPLATES): one round, no table
    assert [step for step in s if step.startswith("layernorm: kbuild bench")] == [
        "layernorm: kbuild bench --define C=1"]
    assert not any(step.startswith("layernorm: A/B") for step in s)


def test_ab_rounds_must_be_a_small_positive_number():
    r = subprocess.run(["bash", str(SCRIPT), "--trust", "--dry-run"], capture_output=True,
                       text=True, env={**os.environ, "GPU_RUN_AB_ROUNDS": "0"})
    assert r.returncode == 2 and "GPU_RUN_AB_ROUNDS must be 1-99" in r.stderr
