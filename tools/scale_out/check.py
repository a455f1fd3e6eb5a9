#!/usr/bin/env python3
"""Reads what run.sh left in OUTDIR and says whether kbuild tune and optimize scale over the
host's GPUs: the throughput table (records judged a minute, one GPU against N), then one PASS
or FAIL line per rule, and exit 0 only when every rule that applies passes.

Rules (issue: one worker per GPU):
- throughput on N GPUs >= 0.9 x N x one GPU's, for optimize and for tune;
- every run's history holds each attempt once, none lost;
- the baseline timed on each GPU agrees within 3% (optimize's gpu_baselines);
- the kill run recorded the second GPU's worker failure, judged its candidate elsewhere and
  recorded every attempt once.

Usage: check.py OUTDIR N
"""

import json
import sys
from pathlib import Path

LINEAR_SHARE = 0.9
GPU_TOLERANCE = 0.03


def load(out: Path, name: str):
    """The run's --json document, or None when it did not run or wrote none."""
    path = out / f"{name}.json"
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError:
        return None


def history(out: Path, name: str):
    path = out / name / "history.jsonl"
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def throughput_rows(out: Path, n: int):
    """(command, GPUs, document's throughput or None) for the one-GPU and N-GPU runs."""
    rows = []
    for command in ("optimize", "tune"):
        for gpus in sorted({1, n}):
            doc = load(out, f"{command}-{gpus}gpu")
            rows.append((command, gpus, doc.get("throughput") if doc else None))
    return rows


def table(rows):
    lines = ["| run | GPUs | judged | seconds | a minute | vs one GPU |", "|---|---|---|---|---|---|"]
    one = {c: t for c, g, t in rows if g == 1 and t}
    for command, gpus, t in rows:
        if not t:
            lines.append(f"| {command} | {gpus} | - | - | - | did not run |")
            continue
        base = one.get(command)
        ratio = (t["per_minute"] / base["per_minute"]
                 if base and base["per_minute"] > 0 else 0)
        lines.append(f"| {command} | {gpus} | {t['judged_now']} | {t['seconds']:.0f} | "
                     f"{t['per_minute']:.2f} | {ratio:.2f}x |")
    return lines


def scaling_verdicts(rows, n):
    if n < 2:
        return [("SKIP", "throughput scaling: one GPU only")]
    verdicts = []
    for command in ("optimize", "tune"):
        t1 = next((t for c, g, t in rows if c == command and g == 1), None)
        tn = next((t for c, g, t in rows if c == command and g == n), None)
        if not t1 or not tn or t1["per_minute"] <= 0:
            verdicts.append(("FAIL", f"{command} throughput: a run is missing"))
            continue
        share = tn["per_minute"] / (n * t1["per_minute"])
        word = "PASS" if share >= LINEAR_SHARE else "FAIL"
        verdicts.append((word, f"{command} throughput on {n} GPUs: {share:.2f} of linear "
                               f"(needs {LINEAR_SHARE})"))
    return verdicts


def once_each(records, what):
    """FAIL when an id repeats or an attempt is lost; PASS otherwise."""
    ids = [r.get("id") for r in records]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    lost = [r.get("id") for r in records if r.get("verdict") == "lost"]
    if not records:
        return ("FAIL", f"{what}: no history")
    if repeated or lost:
        return ("FAIL", f"{what}: repeated {repeated}, lost {lost}")
    return ("PASS", f"{what}: {len(records)} records, each once, none lost")


def history_verdicts(out: Path, n: int):
    verdicts = []
    names = [f"optimize-{g}gpu" for g in sorted({1, n})]
    if n >= 2:
        names.append("optimize-kill")
    for name in names:
        verdicts.append(once_each(history(out, name), name))
    for name in (f"tune-{g}gpu" for g in sorted({1, n})):
        # A finalist's line comes again once its full suite ends: count variants, not lines.
        records = {r.get("id"): r for r in history(out, name)}.values()
        lost = [r.get("id") for r in records if r.get("stage") == "lost"]
        word = "PASS" if records and not lost else "FAIL"
        verdicts.append((word, f"{name}: {len(records)} variants, lost {lost}"))
    return verdicts


def gpu_verdict(out: Path, n: int):
    if n < 2:
        return ("SKIP", "the GPUs' baselines: one GPU only")
    doc = load(out, f"optimize-{n}gpu") or {}
    timed = [b for b in doc.get("gpu_baselines", []) if b.get("vs_run", 0) > 0]
    if len(timed) < n:
        return ("FAIL", f"the GPUs' baselines: {len(timed)} of {n} timed")
    values = [b["vs_run"] for b in timed]
    spread = max(values) / min(values) - 1
    listed = ", ".join(f"GPU {b['device']} {b['vs_run']:.3f}x" for b in timed)
    word = "PASS" if spread <= GPU_TOLERANCE else "FAIL"
    return (word, f"the GPUs' baselines agree within {100 * spread:.1f}% "
                  f"(needs {100 * GPU_TOLERANCE:.0f}%): {listed}")


def kill_verdict(out: Path, n: int):
    if n < 2:
        return ("SKIP", "a worker killed mid-run: needs 2 GPUs")
    doc = load(out, "optimize-kill")
    if not doc:
        return ("FAIL", "a worker killed mid-run: the run wrote no document")
    failures = doc.get("worker_failures", [])
    if len(failures) != 1 or failures[0].get("worker") != 1:
        return ("FAIL", f"a worker killed mid-run: worker_failures {failures}")
    failed = failures[0]["attempt"]
    record = next((r for r in history(out, "optimize-kill") if r.get("id") == failed), None)
    if not record or record.get("verdict") == "lost":
        return ("FAIL", f"a worker killed mid-run: {failed} was not judged again")
    return ("PASS", f"a worker killed mid-run: worker 1 (GPU {failures[0].get('device')}) "
                    f"retired, {failed} judged again: {record.get('verdict')}")


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    out, n = Path(argv[1]), int(argv[2])
    rows = throughput_rows(out, n)
    print("\n".join(table(rows)))
    print()
    verdicts = (scaling_verdicts(rows, n) + history_verdicts(out, n) +
                [gpu_verdict(out, n), kill_verdict(out, n)])
    for word, line in verdicts:
        print(f"{word}: {line}")
    return 1 if any(word == "FAIL" for word, _ in verdicts) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
