// RegisterBenchmark: honest GPU timing of a registered op, on Google
// Benchmark's manual-time API.
//
//   kb::harness::BenchSpec spec;
//   spec.op = kb::harness::ProjectOp("rms_norm");
//   spec.cases = kb::harness::MakeCases({{2048, 4096}, {8192, 4096}}, {at::kBFloat16});
//   spec.make_args = ...;                                   // as for CheckOp
//   spec.bytes = [](const kb::harness::Case& c) {           // x read + y write + weight
//     return 2.0 * c.shape[0] * c.shape[1] * 2 + c.shape[1] * 2; };
//   spec.baselines = {{"at::rms_norm", [](const kb::harness::Args& a) {
//     return std::vector<at::Tensor>{at::rms_norm(...)}; }}};   // also the value check
//   kb::harness::RegisterBenchmark(spec);
//   KB_BENCHMARK_MAIN();
//
// Per case: values checked on the GPU against the reference (else the first
// baseline), warm-up, timed launches (CUDA events on the current stream, L2
// flushed before each, the host kept ahead of the GPU so dispatch cost is not
// timed; or --graph), the values checked again on fresh inputs in the timed
// tensors, median and p10/p90, host time per call, GB/s, % of the measured
// copy bandwidth, TFLOP/s, speedup per baseline. Results above physics, with
// GPU work outside the timed stream, or whose host fell behind the GPU, fail.
// $KBUILD_BENCH_JSON receives the document (docs/harness.md).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kbuild/harness/arg_factory.h"
#include "kbuild/harness/case.h"
#include "kbuild/harness/dispatch.h"
#include "kbuild/harness/physics.h"
#include "kbuild/harness/results.h"

namespace kb::harness {

struct Baseline {
  std::string name;  // "eager composite", "at::rms_norm"
  // Enqueues on the current stream and returns what it computed, as
  // OpSpec::reference does: Output/InPlace args in argument order, then the
  // op's returned tensors. Without a reference, the first baseline is what the
  // op's values are checked against.
  std::function<std::vector<at::Tensor>(const Args&)> run;
};

struct BenchSpec {
  std::string name;         // defaults to op
  std::string op;           // "<namespace>::<op>"; see ProjectOp
  std::vector<Case> cases;  // Case::correctness_only marks tiny shapes that do not score
  std::function<Args(ArgFactory&)> make_args;
  std::function<double(const Case&)> bytes;  // bytes the op must move: explicit formula
  std::function<double(const Case&)> flops;  // optional
  // With flops: the units they run on. A case's "% of peak" is then the larger of
  // its share of the copy bandwidth and its share of this unit's theoretical
  // peak (physics.h), and a case above that peak fails as impossible.
  ComputeUnit compute_unit = ComputeUnit::kNone;
  std::vector<Baseline> baselines;
  // What the op's values are checked against, before and after timing: as
  // OpSpec::reference, but the float64 copies stay on the GPU. Without it the
  // first baseline is; a spec with neither is an error.
  std::function<std::vector<at::Tensor>(const Args&)> reference;
  // The value checks' tolerance, as OpSpec::tolerance: a case's own wins,
  // else this, else the default of the case's dtype (tolerance.h). One
  // tolerance judges every output: an op whose output dtype differs from the
  // case's (an fp32 loss from bf16 logits) states the one it meets.
  std::optional<Tolerance> tolerance;
  int warmup = 10;
  int iterations = 100;
  std::optional<bool> graph;  // default: --graph flag or KBUILD_BENCH_GRAPH=1
  // The op calls a library (cuBLAS, ATen, Triton) or launches nothing (a view)
  // on purpose. Otherwise a call that launches no kernel of the project's own
  // library fails (FailReason::kNoProjectKernel; launch_record.h).
  // One eager call before timing is recorded either way.
  bool wraps_library = false;
};

void RegisterBenchmark(const BenchSpec& spec);

// Measures one case without Google Benchmark (RegisterBenchmark's body).
BenchRecord MeasureCase(const BenchSpec& spec, const Case& c);

// Strips --graph, runs Google Benchmark, writes $KBUILD_BENCH_JSON.
// Returns 1 when any case failed (impossible result, incorrect, CUDA error).
int BenchmarkMain(int argc, char** argv);

}  // namespace kb::harness

#define KB_BENCHMARK_MAIN() \
  int main(int argc, char** argv) { return ::kb::harness::BenchmarkMain(argc, argv); }
