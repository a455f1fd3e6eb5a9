"""Benchmark shapes and the bytes each op must move (the floor)."""

# (set, label, rows, hidden). "geomean" sets count toward the geometric mean.
QWEN3 = [("qwen3", f"{t}x4096", t, 4096) for t in (1, 128, 512, 1024, 2048, 4096, 8192, 32768)]
LTX = [("ltx", f"{b}x{t}x2048", b * t, 2048)
       for b, t in ((1, 1024), (2, 1024), (4, 1024), (1, 4096), (1, 8192))] + [
    ("ltx", f"{b}x{t}x3072", b * t, 3072) for b, t in ((2, 4096), (4, 4096))]
LARGE = [("large", "32768x8192", 32768, 8192)]
RMS_NORM_SHAPES = QWEN3 + LTX + LARGE
GEOMEAN_SETS = ("qwen3", "ltx")

# Fused add + RMSNorm on Qwen3 decoder shapes.
FUSED_SHAPES = [("qwen3", f"{t}x4096", t, 4096) for t in (128, 2048, 8192)]

# Per-head norm: (set, label, tokens, heads, head_dim).
HEAD_SHAPES = [
    ("video", "27030x24x128", 27030, 24, 128),
    ("qwen3-q", "4096x32x128", 4096, 32, 128),
    ("qwen3-k", "4096x8x128", 4096, 8, 128),
    ("hd64", "8192x16x64", 8192, 16, 64),
    ("hd256", "4096x16x256", 4096, 16, 256),
]


def norm_bytes(rows, hidden, elem, weight_elem, tensors_moved=2):
    """rows x hidden elements per tensor moved (x read + y written = 2; fused
    add reads x and residual and writes both = 4) plus the weight once."""
    return tensors_moved * rows * hidden * elem + hidden * weight_elem
