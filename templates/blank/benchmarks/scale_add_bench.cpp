// scale_add timing against ATen's x * alpha + y (at::add(y, x, alpha), one
// fused elementwise kernel). Bytes = x read + y read + out written.
// Memory-bound: the target is the measured copy bandwidth (100%).
// measured (H200, 2026-11-30, kbuild bench): 8192x4096 fp32 102 us = 3947 GB/s (93.5% of
// copy), 0.97x at::add (both at the memory limit).
#include <ATen/ATen.h>

#include <cstdint>
#include <vector>

#include "kbuild/harness/benchmark.h"

namespace {

using kb::harness::Args;
using Shape = std::vector<int64_t>;

double Bytes(const kb::harness::Case& c) {
  double numel = 1;
  for (int64_t d : c.shape) numel *= static_cast<double>(d);
  return 3.0 * numel * static_cast<double>(at::elementSize(c.dtype));
}

kb::harness::BenchSpec ScaleAddBench() {
  kb::harness::BenchSpec spec;
  spec.name = "scale_add";
  spec.op = kb::harness::ProjectOp("scale_add");
  // 1M .. 64M elements, plus a transformer-sized 2-D activation.
  // Largest case 2^26 elements: the float64 CPU check before timing grows with the size
  // (2^28 took minutes on the H200 machine's host, 2026-11-30).
  const std::vector<Shape> shapes = {Shape(1, int64_t{1} << 20), Shape(1, int64_t{1} << 24),
                                     Shape(1, int64_t{1} << 26), Shape{8192, 4096}};
  spec.cases = kb::harness::MakeCases(shapes, {at::kBFloat16, at::kFloat});
  // Too small to time meaningfully (launch-bound): checked, reported, not scored.
  for (auto& c :
       kb::harness::MakeCases({Shape(1, 4097)}, {at::kBFloat16}, {.correctness_only = true})) {
    spec.cases.push_back(c);
  }
  spec.make_args = [](kb::harness::ArgFactory& f) {
    const auto& s = f.test_case().shape;
    return Args{f.Input(s), f.Input(s), 0.75};
  };
  spec.reference = [](const Args& a) {
    return std::vector<at::Tensor>{a[0].toTensor() * a[2].toDouble() + a[1].toTensor()};
  };
  spec.bytes = Bytes;
  spec.baselines = {
      {"at::add",
       [](const Args& a) {
         return std::vector<at::Tensor>{at::add(a[1].toTensor(), a[0].toTensor(), a[2].toDouble())};
       }},
  };
  return spec;
}

const bool registered = [] {
  kb::harness::RegisterBenchmark(ScaleAddBench());
  return true;
}();

}  // namespace

KB_BENCHMARK_MAIN();
