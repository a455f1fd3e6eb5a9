#!/usr/bin/env python3
"""What the acceptance runs of kbuild optimize must show (README.md here).

Scripted run (--scripted RUN --candidates candidates.tsv): attempt n is the
proposer's n-th candidate; each must get the verdict candidates.tsv names
("a or b": either), and the one marked "the best" must be the run's best.

Builtin run (--builtin RUN --template BENCH_JSON): the geometric mean of the
median times over the ranked cases, for the naive start (the baseline), the
best attempt and the rmsnorm template (its kbuild bench --json document, or
results/latest.json); PASS when the best reaches >= 80% of the template's
speed (template geomean time / best geomean time).

RUN is a results/optimize-<stamp> folder (or a copy holding history.jsonl).
A leftovers.txt in RUN (run.sh: processes from the run still alive after
kbuild returned) fails its part. Prints one report; exit 0 when every part
asked for passes, 1 otherwise.
Usage: check_results.py [--scripted RUN --candidates TSV] [--builtin RUN --template JSON]
"""
import argparse
import json
import math
import sys
from pathlib import Path

TARGET = 0.80  # of the template's speed


def history(run):
    lines = (Path(run) / "history.jsonl").read_text().splitlines()
    attempts = {}
    for line in lines:
        if line.strip():
            record = json.loads(line)
            attempts[record["id"]] = record  # a later line for an id replaces an earlier one
    return list(attempts.values())


def no_leftovers(run):
    """False (after saying so) when processes of the run outlived it."""
    path = Path(run) / "leftovers.txt"
    lines = path.read_text().splitlines() if path.exists() else []
    for line in lines:
        print(f"  FAIL  still running after the run ended: {line[:150]}")
    return not lines


def geomean(times):
    return math.exp(sum(math.log(t) for t in times) / len(times))


def check_scripted(run, candidates_tsv):
    rows = [line.split("\t") for line in Path(candidates_tsv).read_text().splitlines()[1:]]
    attempts = [a for a in history(run) if a["id"] != "baseline"]
    baseline = next((a for a in history(run) if a["id"] == "baseline"), None)
    ok_scores = {a["id"]: a["score"] for a in attempts if a["verdict"] == "ok"}
    best = max(ok_scores, key=ok_scores.get) if ok_scores else ""
    print(f"scripted run {run}: {len(attempts)} attempts, best {best or '-'}")
    if baseline is None or baseline["verdict"] != "ok":
        print("  FAIL: the baseline (the naive kernel) did not pass:",
              baseline["first_error"] if baseline else "no baseline record")
        return False
    passed = True
    for (n, what, expected), attempt in zip(rows, attempts + [None] * len(rows)):
        if attempt is None:
            print(f"  FAIL  candidate {n} ({what}): no attempt recorded")
            passed = False
            continue
        wants_best = expected.endswith(", the best")
        allowed = expected.replace(", the best", "").split(" or ")
        good = attempt["verdict"] in allowed and (not wants_best or attempt["id"] == best)
        passed &= good
        score = f" {attempt['score']:.3f}x" if attempt["verdict"] == "ok" else ""
        error = f": {attempt['first_error'][:110]}" if attempt["first_error"] else ""
        print(f"  {'ok  ' if good else 'FAIL'}  {attempt['id']} candidate {n} ({what}): "
              f"{attempt['verdict']}{score}, expected {expected}{error}")
    return no_leftovers(run) and passed


def cases_of(record):
    return {c["name"]: c["median_us"] for c in record.get("cases", [])}


def template_cases(bench_json):
    doc = json.loads(Path(bench_json).read_text())
    harness = doc.get("harness", doc)  # kbuild bench --json, or results/latest.json
    run = doc.get("run") or harness.get("run") or {}
    cases = {}
    for c in harness.get("cases", []):
        if c.get("correctness_only") or c.get("verdict") != "ok":
            continue
        cases[f"{c['benchmark']}/{c['case']}"] = c["time_us"]["median"]
    return cases, run


def check_builtin(run, bench_json):
    records = history(run)
    baseline = next((a for a in records if a["id"] == "baseline"), None)
    ok = [a for a in records if a["verdict"] == "ok"]
    print(f"builtin run {run}: {len(records) - 1} attempts besides the baseline")
    if baseline is None or baseline["verdict"] != "ok" or not ok:
        print("  FAIL: the baseline (the naive kernel) did not pass")
        return False
    best = max(ok, key=lambda a: a["score"])
    template, env = template_cases(bench_json)
    start, found = cases_of(baseline), cases_of(best)
    names = sorted(template)
    missing = [n for n in names if n not in start or n not in found]
    if not names or missing:
        print(f"  FAIL: cases timed by the template but not by the run: {missing or 'none timed'}")
        return False
    print(f"  template bench: {env.get('date', '?')}, {env.get('gpu', '?')}, "
          f"torch {env.get('torch', '?')}, CUDA {env.get('cuda', '?')}")
    header = ("case", "naive us", "best us", "template us", "best/template")
    print("  {:<30} {:>10} {:>10} {:>12} {:>14}".format(*header))
    for n in names:
        print(f"  {n:<30} {start[n]:>10.1f} {found[n]:>10.1f} {template[n]:>12.1f} "
              f"{template[n] / found[n]:>13.0%}")
    g_start = geomean([start[n] for n in names])
    g_best = geomean([found[n] for n in names])
    g_template = geomean([template[n] for n in names])
    ratio = g_template / g_best
    defines = " ".join(f"{k}={v}" for k, v in best.get("defines", {}).items()) or "no defines"
    print(f"  geomean over {len(names)} cases: naive start {g_start:.1f} us, best {g_best:.1f} us "
          f"({best['id']}: {defines}; {best['score']:.2f}x the start), "
          f"template {g_template:.1f} us")
    verdict = "PASS" if ratio >= TARGET else "FAIL"
    print(f"  best / template speed: {ratio:.1%} ({verdict}: the target is {TARGET:.0%}), "
          f"after {len(records) - 1} attempts")
    return no_leftovers(run) and ratio >= TARGET


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scripted")
    parser.add_argument("--candidates")
    parser.add_argument("--builtin")
    parser.add_argument("--template")
    args = parser.parse_args()
    if bool(args.scripted) != bool(args.candidates) or bool(args.builtin) != bool(args.template):
        parser.error("--scripted needs --candidates, --builtin needs --template")
    if not args.scripted and not args.builtin:
        parser.error("nothing to check: give --scripted and/or --builtin")
    results = []
    if args.scripted:
        results.append(("scripted", check_scripted(args.scripted, args.candidates)))
    if args.builtin:
        results.append(("builtin", check_builtin(args.builtin, args.template)))
    print("acceptance: " + ", ".join(f"{name} {'PASS' if ok else 'FAIL'}" for name, ok in results))
    return 0 if all(ok for _, ok in results) else 1


if __name__ == "__main__":
    sys.exit(main())
