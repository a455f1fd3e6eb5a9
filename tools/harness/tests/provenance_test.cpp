#include "kbuild/harness/provenance.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "kbuild/harness/results.h"

namespace kb::harness {
namespace {

Provenance Foreign() {
  Provenance p;
  p.launches = 1;
  p.foreign_kernels = {{"at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float>",
                        "libtorch_cuda.so"}};
  return p;
}

TEST(Provenance, ShortKernelNameDropsSignatureAndReturnType) {
  EXPECT_EQ(ShortKernelName("_Z12templ_kernelIfEvPT_i"), "templ_kernel<float>");
  EXPECT_EQ(ShortKernelName("_ZN12_GLOBAL__N_113hidden_kernelEPf"),
            "(anonymous namespace)::hidden_kernel");
  EXPECT_EQ(ShortKernelName("triton_poi_fused_add_0"), "triton_poi_fused_add_0");
}

TEST(Provenance, ShortKernelNameCutsLongNamesInTheMiddle) {
  const std::string name = ShortKernelName("ns::kernel<" + std::string(300, 'x') + ">");
  EXPECT_EQ(name.size(), kMaxKernelNameChars);
  EXPECT_TRUE(name.starts_with("ns::kernel<"));
  EXPECT_NE(name.find("..."), std::string::npos);
  EXPECT_TRUE(name.ends_with("x>"));
}

TEST(Provenance, ObjectOfNamesTheSharedObjectOfAFunction) {
  EXPECT_NE(ObjectOf(dlsym(RTLD_DEFAULT, "strlen")).find("libc.so"), std::string::npos);
  EXPECT_EQ(ObjectOf(nullptr), "");
  int on_stack = 0;
  EXPECT_EQ(ObjectOf(&on_stack), "");
}

TEST(Provenance, LaunchingObjectIsTheFirstFrameBelowTheCudaLibraries) {
  // As seen on the H200: callback, CUPTI, driver, then the launcher (static cudart inside it).
  EXPECT_EQ(LaunchingObject({"./tests", "/cuda/lib/libcupti.so.13", "/cuda/lib/libcupti.so.13",
                             "/nvidia/lib64/libcuda.so.1", "/p/libproject.so", "/p/libproject.so",
                             "./tests"}),
            "/p/libproject.so");
  // Torch links the runtime dynamically: skip it too, but not cuBLAS.
  EXPECT_EQ(LaunchingObject({"./tests", "libcupti.so.13", "libcuda.so.1", "libcudart.so.13",
                             "libcublasLt.so.13", "libtorch_cuda.so"}),
            "libcublasLt.so.13");
  EXPECT_EQ(LaunchingObject({"./tests", "libcupti.so.13"}), "");
}

TEST(Provenance, CudaPlumbingIsTheRuntimeDriverAndCupti) {
  EXPECT_TRUE(IsCudaPlumbing("/usr/local/cuda/lib64/libcudart.so.13"));
  EXPECT_TRUE(IsCudaPlumbing("/usr/local/nvidia/lib64/libcuda.so.1"));
  EXPECT_TRUE(IsCudaPlumbing("libcupti.so.13"));
  EXPECT_FALSE(IsCudaPlumbing("/torch/lib/libcublasLt.so.13"));
  EXPECT_FALSE(IsCudaPlumbing("/p/build/cmake/_rmsnorm_cuda_1a2b.so"));
}

TEST(Provenance, SameFileComparesRealPaths) {
  const auto dir = std::filesystem::temp_directory_path() / "kb_provenance_test";
  std::filesystem::create_directories(dir / "sub");
  std::ofstream(dir / "lib.so") << "x";
  EXPECT_TRUE(SameFile((dir / "lib.so").string(), (dir / "sub" / ".." / "lib.so").string()));
  EXPECT_FALSE(SameFile((dir / "lib.so").string(), (dir / "missing.so").string()));
  EXPECT_FALSE(SameFile("", ""));
  std::filesystem::remove_all(dir);
}

TEST(Provenance, LoadedObjectContainingFindsLoadedLibraries) {
  EXPECT_NE(LoadedObjectContaining("libc.so").find("libc.so"), std::string::npos);
  EXPECT_EQ(LoadedObjectContaining("_no_such_namespace_"), "");
}

TEST(Provenance, ProblemNamesWhatRanInstead) {
  const std::string problem = ProvenanceProblem(Foreign(), false);
  EXPECT_TRUE(problem.starts_with(
      "no kernel of the project ran: launched 1 kernel, from libtorch_cuda.so: at::native::"))
      << problem;
  EXPECT_NE(problem.find("hint: the binding must call the project's launcher"), std::string::npos);
  EXPECT_EQ(ProvenanceProblem(Foreign(), /*wraps_library=*/true), "");
}

TEST(Provenance, NoKernelAtAllFailsUnlessDeclared) {
  Provenance none;
  none.launches = 0;
  EXPECT_TRUE(ProvenanceProblem(none, false).starts_with("the op launched no kernel at all"));
  EXPECT_EQ(ProvenanceProblem(none, true), "");
}

TEST(Provenance, ProjectKernelOrNothingRecordedPasses) {
  Provenance mixed = Foreign();
  mixed.launches = 2;
  mixed.project_launches = 1;
  EXPECT_EQ(ProvenanceProblem(mixed, false), "");
  Provenance not_recorded;
  not_recorded.note = "provenance not recorded: CUPTI busy";
  EXPECT_EQ(ProvenanceProblem(not_recorded, false), "");
}

TEST(Provenance, LaunchesCell) {
  Provenance p;
  EXPECT_EQ(LaunchesCell(p), "-");
  p.launches = 1;
  p.project_launches = 1;
  EXPECT_EQ(LaunchesCell(p), "1");
  p.launches = 3;
  EXPECT_EQ(LaunchesCell(p), "3 (2 foreign)");
}

TEST(Provenance, JsonRoundTrip) {
  Provenance p = Foreign();
  p.launches = 2;
  p.project_launches = 1;
  nlohmann::json j = nlohmann::json::object();
  AddProvenanceJson(j, p);
  EXPECT_EQ(j["launches"], 2);
  EXPECT_EQ(j["foreign_kernels"][0]["library"], "libtorch_cuda.so");
  const Provenance back = ProvenanceFromJson(nlohmann::json::parse(j.dump()));
  EXPECT_EQ(back.launches, 2);
  EXPECT_EQ(back.project_launches, 1);
  ASSERT_EQ(back.foreign_kernels.size(), 1u);
  EXPECT_EQ(back.foreign_kernels[0].name, p.foreign_kernels[0].name);
}

TEST(Provenance, NotRecordedIsNullWithItsNote) {
  Provenance p;
  p.note = "provenance not recorded: CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED";
  TestRecord r;
  r.provenance = p;
  const nlohmann::json j = ToJson(r);
  EXPECT_TRUE(j["launches"].is_null());
  EXPECT_EQ(j["provenance_note"], p.note);
  EXPECT_FALSE(ProvenanceFromJson(j).recorded());
  EXPECT_EQ(ProvenanceFromJson(j).note, p.note);
  BenchRecord b;
  b.provenance = Foreign();
  EXPECT_EQ(ToJson(b)["launches"], 1);
  EXPECT_EQ(FailReasonName(FailReason::kNoProjectKernel), "no_project_kernel");
}

}  // namespace
}  // namespace kb::harness
