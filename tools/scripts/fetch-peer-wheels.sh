#!/usr/bin/env bash
# Downloads the peers' wheels for the offline GPU machine (Python 3.12, manylinux x86_64, CUDA 13):
# Liger-Kernel, QuACK and the CuTe DSL with every dependency the machine lacks, into .whl/, then
# splits them over .whl-a/, .whl-b/ and .whl-c/ (one device transfer carries at most 64 MiB,
# the repository's own files included; the CuTe DSL's CUDA 13 library wheel alone is 92 MB, so
# it travels as two chunks that gpu-run.sh joins). Send each with its own device call, while the
# machine is still held (tools/peer_bench/README.md). Idempotent: present wheels are not downloaded again.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-$ROOT/.venv/bin/python3}"
mkdir -p .whl
echo "fetch-peer-wheels: downloading into .whl/ (about 100 MB)" >&2
"$PY" -m pip download -q -d .whl --no-deps --only-binary=:all: --python-version 3.12 \
  --implementation cp --abi cp312 --platform manylinux_2_28_x86_64 \
  --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 --platform any \
  liger-kernel==0.8.5 quack-kernels==0.6.5 nvidia-cutlass-dsl==4.8.1 \
  nvidia-cutlass-dsl-libs-base==4.8.1 nvidia-cutlass-dsl-libs-core==4.8.1 \
  nvidia-cutlass-dsl-libs-cu13==4.8.1 "apache-tvm-ffi>=0.1.6,<0.2" torch-c-dlpack-ext einops \
  "cuda-bindings>=13,<14" "protobuf>=4.21.12"
rm -rf .whl-a .whl-b .whl-c && mkdir -p .whl-a .whl-b .whl-c
big="$(basename .whl/nvidia_cutlass_dsl_libs_cu13-*.whl)"
for wheel in .whl/*.whl; do
  case "$(basename "$wheel")" in
    "$big") ;;
    # The largest of the rest ride apart from the chunks: ~44 MiB in each chunk's folder.
    cuda_bindings-* | apache_tvm_ffi-* | nvidia_cutlass_dsl_libs_base-*) cp "$wheel" .whl-c/ ;;
    *) cp "$wheel" .whl-a/ ;;
  esac
done
split -b 46000000 ".whl/$big" "/tmp/$big.part."
mv "/tmp/$big.part.aa" .whl-a/ && mv "/tmp/$big.part.ab" .whl-b/
du -sh .whl-a .whl-b .whl-c >&2
