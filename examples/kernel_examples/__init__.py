"""Shared parts of the end-to-end examples (examples/qwen3_8b, examples/ltx_video):
loading the kernels from kbuild packages, reversible module patching, timing
and profiler shares. See examples/README.md."""
