// Which kernels one op call launched, and whose they were: the check that a
// binding really runs the project's kernels (a binding that calls at::rms_norm
// returns correct values and would otherwise pass every test and benchmark).
// Torch-free and CUDA-free: launch_record.h fills a Provenance on the GPU.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace kb::harness {

struct ForeignKernel {
  std::string name;     // demangled and shortened (ShortKernelName)
  std::string library;  // file name of the shared object, e.g. "libtorch_cuda.so"
};

struct Provenance {
  int launches = -1;  // kernels the call launched; -1: not recorded (CPU op, or see note)
  int project_launches = 0;
  std::vector<ForeignKernel> foreign_kernels;  // one per launch not of the project's library
  std::string note;  // "provenance not recorded: <reason>" when recording was impossible
  bool recorded() const { return launches >= 0; }
};

// "void at::native::foo<float>(float*, int)" -> "at::native::foo<float>",
// cut to at most kMaxKernelNameChars with "..." in the middle. Names that do
// not demangle are only cut.
inline constexpr std::size_t kMaxKernelNameChars = 96;
std::string ShortKernelName(std::string_view mangled);

// The shared object holding `address` (a host function), or "" (dladdr).
std::string ObjectOf(const void* address);
// libcupti, libcuda, libcudart: they carry launches, they never own the kernel.
bool IsCudaPlumbing(const std::string& object);
// Among the objects of a call stack, innermost first, the one that asked for
// a launch: the first after the CUDA runtime, driver and CUPTI frames that
// deliver the launch callback. "" when every frame is one of those.
std::string LaunchingObject(const std::vector<std::string>& frame_objects);
// realpath equality; false when either path does not exist.
bool SameFile(const std::string& a, const std::string& b);
// The loaded shared object whose file name contains `name_part` (the op
// namespace: kbuild names the library <namespace>.so), or "".
std::string LoadedObjectContaining(std::string_view name_part);

// The failure message, or "" when the record is fine: at least one project
// kernel ran, the op wraps a library on purpose, or nothing was recorded.
std::string ProvenanceProblem(const Provenance& p, bool wraps_library);
// "1" or "3 (2 foreign)"; "-" when not recorded. The launches table column.
std::string LaunchesCell(const Provenance& p);

// The record's "launches", "project_launches", "foreign_kernels" and
// "provenance_note" keys (null launches when not recorded), and back.
void AddProvenanceJson(nlohmann::json& record, const Provenance& p);
Provenance ProvenanceFromJson(const nlohmann::json& record);

}  // namespace kb::harness
