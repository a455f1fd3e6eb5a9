"""A template's default build against its A/B knob builds, over interleaved rounds (no GPU).

gpu-run.sh benchmarks a template's default build, then each GPU_RUN_DEFINES variant, and with
GPU_RUN_AB_ROUNDS=N repeats that sequence N - 1 more times. Its log folder then holds
bench-<template>.json (round 1) and bench-<template>-round<r>.json for the default, and
bench-<template>-<macros>.json and bench-<template>-<macros>-round<r>.json for each variant.
This prints, per variant, each case's median in every round, the variant's time over the
default's (sums over the rounds), and a verdict that needs every round to agree: one round
can mislead when the machine drifts (H100, 2026-12-05: a knob seemed 2-9% slower at small
rms_norm shapes in one round, while the peers timed beside it drifted the same way; two
interleaved rounds showed no change there). The drift column is the spread of the first
baseline timed in every run (at::softmax, at::rms_norm, ...) over all of them.

  python3 tools/peer_bench/ab_rounds.py <log folder> <template>

Exit 0; 2 when the folder holds no default bench of the template.
"""
import argparse
import json
import math
import re
import sys
from pathlib import Path

ROUND = re.compile(r"^(?P<name>.*?)(?:-round(?P<round>\d+))?$")
# A round's ratio within this of 1 is no change (the p10-p90 of a stable case is about 1-3%).
NOISE = 0.005


def runs_of(folder: Path, template: str):
    """{variant ('' = default): {round: path}} of the template's bench JSON files."""
    runs = {}
    prefix = f"bench-{template}"
    for path in sorted(folder.glob(f"{prefix}*.json")):
        rest = path.stem[len(prefix):]
        if rest and not rest.startswith("-"):
            continue  # another template whose name starts with this one's
        m = ROUND.match(rest)  # "", "-round2", "-KNOB=1", "-KNOB=1-round2"
        variant, rnd = m["name"].removeprefix("-"), int(m["round"] or 1)
        if variant and "=" not in variant:
            continue  # not a macro build (bench-<t>-graph.json)
        runs.setdefault(variant, {})[rnd] = path
    return runs


def cases_of(path: Path):
    """{case: (median us, {baseline: median us})} of one kbuild bench JSON file."""
    doc = json.loads(path.read_text())
    out = {}
    for c in doc.get("cases", []):
        if c.get("correctness_only"):
            continue
        base = {b["name"]: b["time_us"]["median"] for b in c.get("baselines", [])
                if b.get("time_us") and b["time_us"].get("median")}
        out[f"{c['benchmark']}/{c['case']}"] = (c["time_us"]["median"], base)
    return out


def verdict(ratios):
    if len(ratios) < 2:
        return "one round"
    if all(r < 1 - NOISE for r in ratios):
        return "faster"
    if all(r > 1 + NOISE for r in ratios):
        return "slower"
    if all(abs(r - 1) <= NOISE for r in ratios):
        return "same"
    return "mixed"


def drift(runs):
    """'at::x 1.8%': the spread of the first baseline every run timed, over all runs."""
    times = {}
    for cases in runs:
        for case, (_, base) in cases.items():
            if base:
                name = next(iter(base))
                times.setdefault((case, name), []).append(base[name])
    spreads = [(max(t) / min(t) - 1, name) for (_, name), t in times.items()
               if len(t) == len(runs)]
    if not spreads:
        return ""
    worst, name = max(spreads)
    return f"{name} up to {worst * 100:.1f}%"


def table(default, variant, name):
    rounds = sorted(set(default) & set(variant))
    if not rounds:
        return f"## {name}\n\nno round timed both builds"
    a = {r: cases_of(default[r]) for r in rounds}
    b = {r: cases_of(variant[r]) for r in rounds}
    lines = [f"## {name} ({len(rounds)} round{'s' if len(rounds) != 1 else ''})", "",
             "| case | " + " | ".join(f"A{r} | B{r}" for r in rounds) + " | B / A | verdict |",
             "|---|" + "---|---|" * len(rounds) + "---|---|"]
    logs = []
    for case in a[rounds[0]]:
        if not all(case in a[r] and case in b[r] for r in rounds):
            continue
        ratios = [b[r][case][0] / a[r][case][0] for r in rounds]
        total = sum(b[r][case][0] for r in rounds) / sum(a[r][case][0] for r in rounds)
        logs.append(math.log(total))
        cells = " | ".join(f"{a[r][case][0]:.2f} | {b[r][case][0]:.2f}" for r in rounds)
        lines.append(f"| {case} | {cells} | {total:.3f} | {verdict(ratios)} |")
    if not logs:
        return "\n".join(lines[:1] + ["", "no case timed in both builds"])
    lines.append("")
    lines.append(f"geomean B / A {math.exp(sum(logs) / len(logs)):.3f} over {len(logs)} cases; "
                 f"peers' drift: {drift([*a.values(), *b.values()]) or 'no peer timed'}")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("folder", type=Path, help="gpu-run.sh's log folder")
    p.add_argument("template")
    args = p.parse_args(argv)
    runs = runs_of(args.folder, args.template)
    if 1 not in runs.get("", {}):
        print(f"ab_rounds: no bench-{args.template}.json in {args.folder}", file=sys.stderr)
        return 2
    print(f"# {args.template}: default build (A) against each knob build (B), us\n")
    for variant in sorted(v for v in runs if v):
        print(table(runs[""], runs[variant], variant) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
