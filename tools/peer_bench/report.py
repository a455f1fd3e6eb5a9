"""Markdown tables for the peer benchmark (stdout)."""


def _cell(r):
    if "us" in r:
        return f"{r['us']:.1f}"
    if "skipped" in r:
        return "skip"
    return "err"


def _speedup(r):
    return f"{r['speedup']:.2f}x" if "speedup" in r else "-"


def print_perf_table(title, rows, peer_names, geomean):
    print(f"\n### {title} (us = median, peer_timing rules; x = peer time / our time)\n")
    head = ["shape", "dtype", "ours us", "GB/s", "% copy", "floor us"]
    for n in peer_names:
        head += [f"{n} us", "x"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    errors = {}
    for row in rows:
        o = row["ours"]
        cells = [row["shape"], row["dtype"], _cell(o),
                 f"{o['gbps']:.0f}" if "gbps" in o else "-",
                 f"{o['pct_copy']:.0f}%" if "pct_copy" in o else "-",
                 f"{row['floor_us']:.1f}"]
        if "flag" in o:
            cells[4] += " (!)"
        for n in peer_names:
            r = row["peers"].get(n, {})
            cells += [_cell(r), _speedup(r)]
            if "error" in r:
                errors.setdefault(n, r["error"])
        if "error" in o:
            errors.setdefault("ours", o["error"])
        print("| " + " | ".join(cells) + " |")
    if geomean:
        print("\ngeomean speedup over Qwen3 + LTX shapes: " + ", ".join(
            f"vs {n} {v:.2f}x" if v else f"vs {n} -" for n, v in geomean.items()))
    for n, e in errors.items():
        print(f"first error of {n}: {e}")


def print_launch(launch):
    print("\n### launch cost (1-1024 tokens regime)\n")
    print("| what | in CUDA graph us/call | eager us/call |")
    print("|---|---|---|")
    for name, r in launch.items():
        if "error" in r:
            print(f"| {name} | error: {str(r['error']).replace('|', '/')} | - |")
        else:
            print(f"| {name} | {r['graph_us']:.2f} | {r['eager_us']:.2f} |")
