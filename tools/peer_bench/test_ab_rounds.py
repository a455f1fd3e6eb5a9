"""ab_rounds.py on made-up bench files: the verdict needs every round to agree."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ab_rounds  # noqa: E402

# case -> (default round 1, variant round 1, default round 2, variant round 2), us
TIMES = {
    "4096x4096 bf16": (20.0, 19.0, 20.2, 19.1),   # faster in both rounds
    "1024x2048 bf16": (7.0, 7.4, 7.1, 6.6),       # slower, then faster: mixed
    "4096x2047 bf16": (14.8, 15.7, 14.8, 15.8),   # slower in both
    "8192x4096 bf16": (44.3, 44.32, 44.4, 44.38),  # within the noise in both
}


def bench(path: Path, column: int, peer_us: float):
    cases = [{"benchmark": "rms_norm", "case": case, "time_us": {"median": times[column]},
              "baselines": [{"name": "at::rms_norm", "time_us": {"median": peer_us}}]}
             for case, times in TIMES.items()]
    cases.append({"benchmark": "rms_norm", "case": "1x4096 bf16 correctness_only",
                  "correctness_only": True, "time_us": {"median": 5.0}, "baselines": []})
    path.write_text(json.dumps({"cases": cases}))


def logs(tmp_path: Path) -> Path:
    bench(tmp_path / "bench-rmsnorm.json", 0, 10.0)
    bench(tmp_path / "bench-rmsnorm-KNOB=1.json", 1, 10.3)
    bench(tmp_path / "bench-rmsnorm-round2.json", 2, 10.1)
    bench(tmp_path / "bench-rmsnorm-KNOB=1-round2.json", 3, 10.0)
    # neither a variant of rmsnorm nor a macro build: ignored
    bench(tmp_path / "bench-rmsnorm-graph.json", 1, 10.0)
    bench(tmp_path / "bench-rmsnorm_other-KNOB=1.json", 1, 10.0)
    return tmp_path


def row(text: str, case: str) -> list[str]:
    line = next(line for line in text.splitlines() if line.startswith(f"| rms_norm/{case} |"))
    return [cell.strip() for cell in line.strip("|").split("|")]


def test_each_variant_is_set_against_the_default_round_by_round(tmp_path, capsys):
    assert ab_rounds.main([str(logs(tmp_path)), "rmsnorm"]) == 0
    out = capsys.readouterr().out
    assert "## KNOB=1 (2 rounds)" in out
    assert "graph" not in out and "other" not in out
    assert row(out, "4096x4096 bf16") == ["rms_norm/4096x4096 bf16", "20.00", "19.00", "20.20",
                                          "19.10", "0.948", "faster"]
    assert row(out, "1024x2048 bf16")[-1] == "mixed"
    assert row(out, "4096x2047 bf16")[-2:] == ["1.064", "slower"]
    assert row(out, "8192x4096 bf16")[-1] == "same"
    assert "correctness_only" not in out
    assert "over 4 cases; peers' drift: at::rms_norm up to 3.0%" in out


def test_one_round_gives_no_verdict(tmp_path, capsys):
    bench(tmp_path / "bench-softmax.json", 0, 10.0)
    bench(tmp_path / "bench-softmax-A=1-B=2.json", 1, 10.0)
    assert ab_rounds.main([str(tmp_path), "softmax"]) == 0
    out = capsys.readouterr().out
    assert "## A=1-B=2 (1 round)" in out
    assert row(out, "4096x4096 bf16")[-1] == "one round"


def test_no_default_bench_is_exit_2(tmp_path, capsys):
    bench(tmp_path / "bench-rmsnorm-KNOB=1.json", 1, 10.0)
    assert ab_rounds.main([str(tmp_path), "rmsnorm"]) == 2
    assert "no bench-rmsnorm.json" in capsys.readouterr().err


def test_a_variant_without_a_round_of_the_default_is_said_not_compared(tmp_path, capsys):
    bench(tmp_path / "bench-rmsnorm.json", 0, 10.0)
    bench(tmp_path / "bench-rmsnorm-KNOB=1-round2.json", 1, 10.0)  # its round 1 failed
    assert ab_rounds.main([str(tmp_path), "rmsnorm"]) == 0
    assert "## KNOB=1\n\nno round timed both builds" in capsys.readouterr().out
