#include "core/harness_build.h"

#include "core/harness_library.h"

namespace kb {

namespace {

// The shared harness library the generated CMake imports (PrepareBuild named its folder).
HarnessLibraryBuild LibraryBuild(const PreparedBuild& p, const HarnessBuildOptions& o) {
  HarnessLibraryBuild library;
  library.dir = *p.plan.harness_prebuilt_dir;
  library.harness_cmake = *p.plan.harness_cmake;
  library.torch = p.torch;
  library.debug = p.plan.debug;
  library.nvcc = p.cuda.nvcc;
  library.ccache = p.plan.ccache;
  // Ninja's default, not the caller's -j: built once for every later project, and
  // kbuild tune's -j1 variants would otherwise compile its 24 files on one core.
  library.jobs = 0;
  library.verbose = o.verbose;
  library.progress = o.progress;
  return library;
}

}  // namespace

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
  if (Status s = EnsureHarnessLibrary(fs, runner, LibraryBuild(*prepared, o)); !s) {
    return s.error();
  }
  TargetBuild build;
  build.target = target->target;
  build.jobs = o.jobs;
  build.verbose = o.verbose;
  build.progress = o.progress;
  auto built = BuildTarget(fs, runner, *prepared, build);
  if (!built) return built.error();

  HarnessBuild out{std::move(*prepared), std::move(*target), std::move(*built), {}, {}};
  out.warnings = out.prepared.warnings;
  if (!out.outcome.wipe_reason.empty()) {
    out.warnings.push_back(out.outcome.wipe_reason + "; rebuilt it");
  }
  if (o.build_only) return out;

  auto probe_source = ReadResource(fs, "gpu_probe.cu");
  if (!probe_source) return probe_source.error();
  auto cache = CacheDir();
  if (!cache) return cache.error();
  const GpuProbeRequest probe{out.prepared.cuda.nvcc, out.prepared.cuda.build, *cache,
                              *probe_source, o.measure_peak};
  const std::string command = o.kind == HarnessKind::kTests ? "test" : "bench";
  auto gpu = RequireGpu(fs, runner, probe, command, o.env_peak);
  if (!gpu) return gpu.error();
  out.gpu = std::move(*gpu);
  return out;
}

std::string BuiltHarnessLine(const HarnessBuild& built) {
  const auto& binary = built.target.binary;
  const auto relative = binary.lexically_relative(built.prepared.paths.project);
  return "built " + (relative.empty() ? binary : relative).string() + " (" +
         CompileSummary(built.outcome) + ")";
}

nlohmann::json BuiltHarnessToJson(const HarnessBuild& built) {
  return {{"build_only", true},
          {"target", built.target.target},
          {"binary", built.target.binary.string()},
          {"compiled", built.outcome.compiled},
          {"linked", built.outcome.linked},
          {"configured", built.outcome.configured},
          {"build_seconds", built.outcome.configure_seconds + built.outcome.build_seconds},
          {"log", built.prepared.paths.build_log.string()}};
}

}  // namespace kb
