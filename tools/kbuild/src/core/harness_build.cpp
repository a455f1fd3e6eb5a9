#include "core/harness_build.h"

namespace kb {

Expected<HarnessBuild> BuildHarness(FileSystem& fs, ProcessRunner& runner,
                                    const HarnessBuildOptions& o) {
  auto prepared = PrepareBuild(fs, runner, o.pipeline);
  if (!prepared) return prepared.error();
  auto target = FindHarnessTarget(prepared->plan, prepared->paths, o.kind);
  if (!target) return target.error();

  if (o.before_build) {
    if (Status s = o.before_build(*prepared); !s) return s.error();
  }
  // Compile before asking for a GPU: a broken test or benchmark file shows up on a machine
  // without one, where most editing happens.
  TargetBuild build;
  build.target = target->target;
  build.jobs = o.jobs;
  build.verbose = o.verbose;
  build.progress = o.progress;
  auto built = BuildTarget(fs, runner, *prepared, build);
  if (!built) return built.error();

  auto probe_source = ReadResource(fs, "gpu_probe.cu");
  if (!probe_source) return probe_source.error();
  const GpuProbeRequest probe{prepared->cuda.nvcc, prepared->cuda.build, CacheDir(), *probe_source,
                              o.measure_peak};
  const std::string command = o.kind == HarnessKind::kTests ? "test" : "bench";
  auto gpu = RequireGpu(fs, runner, probe, command, o.env_peak);
  if (!gpu) return gpu.error();
  HarnessBuild out{std::move(*prepared), std::move(*target), std::move(*gpu), {}};
  out.warnings = out.prepared.warnings;
  if (!built->wipe_reason.empty()) out.warnings.push_back(built->wipe_reason + "; rebuilt it");
  return out;
}

}  // namespace kb
