#include "kbuild/harness/benchmark.h"

#include <benchmark/benchmark.h>
#include <c10/cuda/CUDAStream.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <iostream>
#include <mutex>

#include "bench_value_check.h"
#include "kbuild/harness/cuda_sync.h"
#include "kbuild/harness/launch_record.h"
#include "kbuild/harness/timing.h"
#include "problem_text.h"
#include "utility_kernels.h"

namespace kb::harness {

namespace {

// Timing inputs use their own seeds: never the tensors a test checked.
constexpr std::uint64_t kBenchSeed = 0xBE7C4;
// The after-timing value check's fresh inputs: a seed no input set uses.
constexpr std::uint64_t kAfterCheckSeed = kBenchSeed + 0x5EED;
// Cap on rotated input sets (graph mode), to bound memory.
constexpr int kMaxInputSets = 64;

struct BenchState {
  std::vector<BenchRecord> records;
  std::optional<Peak> peak;
  std::string peak_error;
  bool graph_flag = false;
  std::optional<double> launch_floor_us;  // graph mode: measured once per process
  // The run's start: the document's elapsed_ms, against which the value checks' cost is read.
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
};

BenchState& State() {
  static BenchState state;
  return state;
}

const Peak& ResolvePeak() {
  BenchState& s = State();
  if (!s.peak) {
    s.peak = PeakFromEnvironment(ProcessEnvironment(), &s.peak_error);
    if (!s.peak && s.peak_error.empty()) {
      s.peak =
          Peak{MeasureCopyBandwidthGbps(), 0, "measured in-process (1 GiB device-to-device copy)"};
    }
    if (!s.peak) s.peak = Peak{};
    s.peak->dram_gbps = TheoreticalDramGbps(CurrentGpuClockFacts());
  }
  return *s.peak;
}

void WriteDocument() {
  auto path = ProcessEnvironment()("KBUILD_BENCH_JSON");
  std::string error;
  if (!path) return;
  nlohmann::json doc = BenchDocument(State().records, ResolvePeak(), DeviceName());
  doc["elapsed_ms"] =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - State().started)
          .count();
  if (!WriteJsonFile(*path, doc, &error)) std::cerr << "kbuild harness: " << error << "\n";
}

bool GraphMode(const BenchSpec& spec) {
  if (spec.graph) return *spec.graph;
  auto env = ProcessEnvironment()("KBUILD_BENCH_GRAPH");
  return State().graph_flag || (env && *env == "1");
}

// KBUILD_BENCH_WARMUP / KBUILD_BENCH_ITERS (set by `kbuild bench --warmup/--iters`) override
// the spec's counts; a malformed or non-positive value is ignored with a message.
int CountFromEnv(const char* name, int fallback) {
  auto env = ProcessEnvironment()(name);
  if (!env) return fallback;
  try {
    const int n = std::stoi(*env);
    if (n > 0) return n;
  } catch (const std::exception&) {
  }
  std::cerr << "kbuild harness: ignoring " << name << "='" << *env
            << "' (expected a positive integer)\n";
  return fallback;
}

// KBUILD_BENCH_NO_BASELINES=1 (`kbuild bench --no-baselines`, what kbuild tune and optimize
// run): the op alone is timed, its variants are compared with each other, not with baselines.
bool TimeBaselines() { return ProcessEnvironment()("KBUILD_BENCH_NO_BASELINES") != "1"; }

int WarmupCount(const BenchSpec& spec) { return CountFromEnv("KBUILD_BENCH_WARMUP", spec.warmup); }
int IterationCount(const BenchSpec& spec) {
  return CountFromEnv("KBUILD_BENCH_ITERS", spec.iterations);
}
// `kbuild bench --iters N` asks for exactly N samples; otherwise long calls are
// timed fewer times (IterationsWithinBudget).
bool CapLongCalls() { return !ProcessEnvironment()("KBUILD_BENCH_ITERS"); }

// TimeLaunches, with an exception thrown while timing (a launch failing
// inside graph capture) turned into the timing's error.
Timing TimeOrError(const Launch& launch, const TimingOptions& options) {
  try {
    return TimeLaunches(launch, options);
  } catch (const std::exception& e) {
    Timing timing;
    timing.error = FirstLine(e.what());
    return timing;
  }
}

struct Timed {
  Summary time_us;  // empty when the timing failed
  double host_us_per_call = 0;
};

// Times one callable over the sets; records problems; returns the summary and
// the host time per call.
Timed TimeOne(const std::string& what, const std::function<void(const Args&)>& call,
              const std::vector<Args>& sets, const BenchSpec& spec, bool graph,
              BenchRecord* record) {
  TimingOptions options{WarmupCount(spec), IterationCount(spec), static_cast<int>(sets.size()),
                        graph, CapLongCalls()};
  const Timing timing = TimeOrError([&](int set) { call(sets[set]); }, options);
  if (!timing.error.empty()) {
    record->problems.push_back(what + ": " + timing.error);
    return {{}, timing.host_us_per_call};
  }
  if (WorkOutsideTimedStream(timing)) {
    record->problems.push_back(
        what + ": the host clock saw " + std::to_string(timing.host_us) +
        " us of GPU work but the "
        "events on the current stream only " +
        std::to_string(timing.event_us) +
        " us: work runs on another stream\nhint: launch on at::cuda::getCurrentCUDAStream()");
  }
  if (record->host_over_event == 0 && timing.event_us > 0)
    record->host_over_event = timing.host_us / timing.event_us;
  return {Summarize(timing.samples_us), timing.host_us_per_call};
}

// Per-call time of an empty kernel timed exactly as graph-mode cases are (the
// same capture of `iterations` launches, the same replays): the launch floor
// a launch-bound case is read against. 0 when it cannot be measured (said on
// stderr once; the cases still count).
double LaunchFloorUs(const BenchSpec& spec) {
  BenchState& s = State();
  if (!s.launch_floor_us) {
    std::string error;
    const Launch empty = [&](int) {
      LaunchEmptyKernel(c10::cuda::getCurrentCUDAStream().stream(), &error);
    };
    const Timing timing = TimeOrError(empty, {WarmupCount(spec), IterationCount(spec), 1, true});
    if (error.empty()) error = timing.error;
    s.launch_floor_us = error.empty() ? Summarize(timing.samples_us).median : 0.0;
    if (!error.empty()) std::cerr << "kbuild harness: launch floor not measured: " << error << "\n";
  }
  return *s.launch_floor_us;
}

// One eager call with its launches recorded: whose kernels the timing measures.
Provenance RecordOneCall(const BenchSpec& spec, const OpHandle& op, const Args& args) {
  LaunchRecorder recorder(ProjectLibraryFor(spec.op));
  op.Call(args);
  return recorder.Finish();
}

}  // namespace

BenchRecord MeasureCase(const BenchSpec& spec, const Case& c) {
  BenchRecord r;
  r.benchmark = spec.name.empty() ? spec.op : spec.name;
  r.op = spec.op;
  r.case_name = c.Name();
  r.shape = c.shape;
  r.dtype = std::string(DTypeName(ToDType(c.dtype)));
  r.correctness_only = c.correctness_only;
  r.tolerance = BenchTolerance(spec, c);
  r.warmup = WarmupCount(spec);
  r.iterations = IterationCount(spec);
  const bool graph = GraphMode(spec);
  r.mode = graph ? "graph+rotate" : "events+l2flush";
  r.bytes = spec.bytes ? spec.bytes(c) : 0;
  r.flops = spec.flops ? spec.flops(c) : 0;
  const Peak& peak = ResolvePeak();
  if (!State().peak_error.empty()) r.problems.push_back(State().peak_error);

  std::string error;
  std::optional<OpHandle> op = OpHandle::Find(spec.op, &error);
  if (error.empty() && (!spec.make_args || !spec.bytes)) {
    error = "the spec needs make_args and bytes\nhint: set both (see benchmark.h)";
  }
  if (error.empty()) error = ValueCheckSpecProblem(spec);
  if (!error.empty()) {
    r.problems.push_back(error);
    return r;
  }

  ScopedHarnessStream stream(at::kCUDA);
  // Graph mode has no flush: rotate over enough sets to exceed 2x L2.
  int set_count = 1;
  if (graph && r.bytes > 0) {
    set_count =
        static_cast<int>(std::ceil(2.0 * static_cast<double>(L2CacheBytes()) / r.bytes)) + 1;
    set_count = std::clamp(set_count, 1, kMaxInputSets);
  }
  std::vector<Args> sets;
  std::vector<Role> roles;
  for (int i = 0; i < set_count; ++i) {
    ArgFactory factory(c, at::kCUDA, kBenchSeed + static_cast<std::uint64_t>(i));
    sets.push_back(spec.make_args(factory));
    if (i == 0) roles = ArgRoles(sets.front(), factory);
  }
  if (!RecordValueCheck(spec, *op, c, sets.front(), roles, std::nullopt, &r)) return r;
  r.provenance = RecordOneCall(spec, *op, sets.front());
  if (std::string problem = ProvenanceProblem(r.provenance, spec.wraps_library); !problem.empty())
    r.problems.push_back(problem);
  auto call_op = [&](const Args& args) { op->Call(args); };
  const Timed op_timed = TimeOne("op", call_op, sets, spec, graph, &r);
  r.time_us = op_timed.time_us;
  r.host_us_per_call = op_timed.host_us_per_call;
  // Fresh values in the timed tensors: a result that depends on the call
  // count or the pointers fails here.
  RecordValueCheck(spec, *op, c, sets.front(), roles, kAfterCheckSeed, &r);
  if (graph) r.launch_floor_us = LaunchFloorUs(spec);
  // A correctness-only case scores nothing, so its baselines are not timed:
  // a slow host path (an eager composite of many small kernels) cannot be
  // kept ahead of a tiny case's GPU and would fail a case that passed.
  const std::vector<Baseline> none;
  for (const Baseline& b : c.correctness_only || !TimeBaselines() ? none : spec.baselines) {
    auto call_baseline = [&](const Args& args) { b.run(args); };
    const Timed timed = TimeOne("baseline '" + b.name + "'", call_baseline, sets, spec, graph, &r);
    BaselineResult result{b.name, timed.time_us, 0, timed.host_us_per_call};
    if (r.time_us.median > 0) result.speedup = result.time_us.median / r.time_us.median;
    r.baselines.push_back(result);
  }
  const double seconds = r.time_us.median * 1e-6;
  if (seconds > 0) {
    r.gbps = r.bytes / seconds / 1e9;
    r.tflops = r.flops / seconds / 1e12;
    if (peak.bandwidth_gbps > 0) r.percent_of_bandwidth = 100.0 * r.gbps / peak.bandwidth_gbps;
  }
  if (spec.compute_unit != ComputeUnit::kNone && r.flops > 0) {
    r.compute_unit = ComputeUnitName(spec.compute_unit);
    r.compute_peak_tflops = TheoreticalPeakTflops(spec.compute_unit, CurrentGpuClockFacts());
    if (r.compute_peak_tflops > 0) {
      r.percent_of_compute_peak = 100.0 * r.tflops / r.compute_peak_tflops;
    }
  }
  r.percent_of_peak = std::max(r.percent_of_bandwidth, r.percent_of_compute_peak);
  if (PhysicsVerdict v = CheckPhysics(r.gbps, r.tflops, peak); v.impossible)
    r.problems.push_back(v.message);
  if (PhysicsVerdict v = CheckComputePeak(r.tflops, r.compute_peak_tflops, spec.compute_unit);
      v.impossible) {
    r.problems.push_back(v.message);
  }
  return r;
}

void RegisterBenchmark(const BenchSpec& spec) {
  for (const Case& c : spec.cases) {
    const std::string name = (spec.name.empty() ? spec.op : spec.name) + "/" + c.Name();
    benchmark::RegisterBenchmark(
        name.c_str(),
        [spec, c](benchmark::State& state) {
          for (auto _ : state) {
            BenchRecord r;
            try {
              r = MeasureCase(spec, c);
            } catch (const std::exception& e) {  // e.g. no usable GPU: fail the case, keep going
              r.benchmark = spec.name.empty() ? spec.op : spec.name;
              r.case_name = c.Name();
              r.problems.push_back(FirstLine(e.what()));
            }
            state.SetIterationTime(std::max(r.time_us.median, 1e-3) * 1e-6);
            state.counters["GB/s"] = r.gbps;
            state.counters["%peak"] = r.percent_of_peak;
            if (r.flops > 0) state.counters["TFLOP/s"] = r.tflops;
            for (const BaselineResult& b : r.baselines) state.counters["x " + b.name] = b.speedup;
            State().records.push_back(r);
            WriteDocument();  // after every case: a crash keeps what was measured
            if (r.failed()) state.SkipWithError(r.problems.front().c_str());
          }
        })
        ->UseManualTime()
        ->Iterations(1)
        ->Unit(benchmark::kMicrosecond);
  }
}

int BenchmarkMain(int argc, char** argv) {
  State().started = std::chrono::steady_clock::now();
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--graph") == 0) {
      State().graph_flag = true;
    } else {
      args.push_back(argv[i]);
    }
  }
  int count = static_cast<int>(args.size());
  benchmark::Initialize(&count, args.data());
  if (benchmark::ReportUnrecognizedArguments(count, args.data())) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  WriteDocument();
  for (const BenchRecord& r : State().records) {
    if (r.failed()) return 1;
  }
  return 0;
}

}  // namespace kb::harness
