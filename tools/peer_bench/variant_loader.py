"""Imports a kbuild / kernel-builder build without the `kernels` package.

Accepts what `kernels.get_local_kernel` accepts: the project directory, its
`build/` directory, or the variant directory itself
(`build/torch<MAJ><MIN>-cxx11-cu<VER>-x86_64-linux/`).
"""

import importlib.util
import re
import sys
from pathlib import Path

import torch


def _expected_variant_prefix() -> str:
    major, minor = torch.__version__.split(".")[:2]
    return f"torch{major}{minor}-cxx11-cu"


def find_variant_dir(path: str) -> Path:
    """Returns the variant directory for this torch, or raises with a hint."""
    root = Path(path).resolve()
    for candidate in (root, root / "build"):
        if (candidate / "__init__.py").is_file() and (candidate / "_ops.py").is_file():
            return candidate
        if candidate.is_dir():
            variants = sorted(
                d
                for d in candidate.iterdir()
                if d.is_dir() and d.name.startswith(_expected_variant_prefix())
            )
            if variants:
                return variants[-1]
    raise FileNotFoundError(
        f"{root}: no variant directory for torch {torch.__version__} "
        f"(looked for {_expected_variant_prefix()}*-x86_64-linux in {root} and "
        f"{root / 'build'}); hint: run `kbuild build` in the project first"
    )


def load_variant(path: str):
    """Imports the variant's Python package and returns the module."""
    variant = find_variant_dir(path)
    module_name = "peer_bench_" + re.sub(r"\W", "_", variant.parent.parent.name or "kernel")
    spec = importlib.util.spec_from_file_location(
        module_name, variant / "__init__.py", submodule_search_locations=[str(variant)]
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    module.__variant_dir__ = str(variant)
    return module
