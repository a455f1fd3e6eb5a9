"""The command-line parts both examples' run.py share."""

import argparse
import sys
from pathlib import Path

import torch

from . import kernels_loader


def add_common_arguments(parser: argparse.ArgumentParser, example_dir: Path) -> None:
    parser.add_argument("--iters", type=int, default=10, help="timed calls of each column per case")
    parser.add_argument("--out", type=Path, default=example_dir / "results",
                        help="where the JSON and markdown results go")
    parser.add_argument("--workdir", type=Path, default=kernels_loader.DEFAULT_WORKDIR,
                        help="where the kernel projects are made and built")
    parser.add_argument("--compile-mode", default=None,
                        choices=["default", "reduce-overhead", "max-autotune-no-cudagraphs"],
                        help="torch.compile's mode for both compiled columns (default: "
                             "torch.compile's own; reduce-overhead replays CUDA graphs, "
                             "taking the host's launch cost out of a host-bound step)")


def require_gpu(cpu_tests: str) -> None:
    if not torch.cuda.is_available():
        sys.exit(f"run.py needs a CUDA GPU (the CPU tests are {cpu_tests})")
