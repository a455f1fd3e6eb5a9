#include "kbuild/harness/launch_record.h"

#include <cupti.h>
#include <execinfo.h>

#include <atomic>
#include <mutex>
#include <vector>

#include "kbuild/harness/physics.h"

namespace kb::harness {

namespace {

// Foreign kernels kept per call; the count stays exact beyond it.
constexpr std::size_t kMaxForeignListed = 16;

std::atomic<int> open_op_calls{0};
// Runtime launches in progress on this thread: their nested driver launch is
// the same kernel, not another one.
thread_local int runtime_launch_depth = 0;

struct RuntimeLaunch {
  CUpti_CallbackId id;
  bool function_first;  // params start with the host function; else config, then function
};
constexpr RuntimeLaunch kRuntimeLaunches[] = {
    {CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, true},
    {CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000, true},
    {CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000, true},
    {CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000, true},
    {CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060, false},
    {CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060, false},
    // CUDA 13 <<<>>>: a kernel handle, not a host function; the stack tells.
    {CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, true},
    {CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000, true},
};
constexpr CUpti_CallbackId kDriverLaunches[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
};

const RuntimeLaunch* FindRuntimeLaunch(CUpti_CallbackId id) {
  for (const RuntimeLaunch& launch : kRuntimeLaunches) {
    if (launch.id == id) return &launch;
  }
  return nullptr;
}

bool IsDriverLaunch(CUpti_CallbackId id) {
  for (CUpti_CallbackId launch : kDriverLaunches) {
    if (launch == id) return true;
  }
  return false;
}

std::string StackLaunchingObject() {
  void* frames[64];
  const int count = backtrace(frames, 64);
  std::vector<std::string> objects;
  for (int i = 0; i < count; ++i) objects.push_back(ObjectOf(frames[i]));
  return LaunchingObject(objects);
}

// The host function's object when the params carry one (dladdr finds hidden
// symbols too), else the caller found on the stack. A kernel handle (CUDA 13)
// is no host function: it resolves to nothing, or to the CUDA libraries.
std::string RuntimeLaunchObject(const RuntimeLaunch& launch, const void* params) {
  const void* const* fields = static_cast<const void* const*>(params);
  const std::string object = ObjectOf(fields[launch.function_first ? 0 : 1]);
  if (!object.empty() && !IsCudaPlumbing(object)) return object;
  return StackLaunchingObject();
}

std::string CuptiText(CUptiResult result) {
  const char* text = nullptr;
  cuptiGetResultString(result, &text);
  return text ? text : "CUPTI error " + std::to_string(static_cast<int>(result));
}

std::string FileName(const std::string& path) { return path.substr(path.rfind('/') + 1); }

}  // namespace

struct LaunchRecorder::State {
  std::string project_library;
  CUpti_SubscriberHandle subscriber = nullptr;
  std::mutex mutex;
  Provenance record;

  void Add(const char* symbol, const std::string& object) {
    std::lock_guard lock(mutex);
    ++record.launches;
    if (SameFile(object, project_library)) {
      ++record.project_launches;
    } else if (record.foreign_kernels.size() < kMaxForeignListed) {
      record.foreign_kernels.push_back({ShortKernelName(symbol ? symbol : "?"), FileName(object)});
    }
  }
};

namespace {

void CUPTIAPI OnLaunchApi(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                          const void* data) {
  auto* state = static_cast<LaunchRecorder::State*>(userdata);
  const auto* info = static_cast<const CUpti_CallbackData*>(data);
  const bool enter = info->callbackSite == CUPTI_API_ENTER;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    const RuntimeLaunch* launch = FindRuntimeLaunch(id);
    if (!launch) return;
    if (!enter) {
      if (runtime_launch_depth > 0) --runtime_launch_depth;
      return;
    }
    ++runtime_launch_depth;
    if (open_op_calls.load() > 0)
      state->Add(info->symbolName, RuntimeLaunchObject(*launch, info->functionParams));
  } else if (domain == CUPTI_CB_DOMAIN_DRIVER_API && enter && IsDriverLaunch(id) &&
             runtime_launch_depth == 0 && open_op_calls.load() > 0) {
    state->Add(info->symbolName, StackLaunchingObject());
  }
}

}  // namespace

LaunchRecorder::LaunchRecorder(const std::string& project_library)
    : state_(std::make_unique<State>()) {
  state_->project_library = project_library;
  state_->record.launches = 0;
  if (project_library.empty()) {
    state_->record = {};
    state_->record.note =
        "provenance not recorded: the project's library is not known (hint: set "
        "KBUILD_PROJECT_LIBRARY to its path; kbuild test and bench do)";
    return;
  }
  CUpti_SubscriberHandle subscriber = nullptr;
  if (CUptiResult result = cuptiSubscribe(&subscriber, OnLaunchApi, state_.get());
      result != CUPTI_SUCCESS) {
    state_->record = {};
    state_->record.note = "provenance not recorded: " + CuptiText(result) +
                          " (another profiler such as nsys or ncu may hold CUPTI's one subscriber)";
    return;
  }
  state_->subscriber = subscriber;
  for (const RuntimeLaunch& launch : kRuntimeLaunches)
    cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, launch.id);
  for (CUpti_CallbackId id : kDriverLaunches)
    cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id);
}

LaunchRecorder::~LaunchRecorder() { Finish(); }

Provenance LaunchRecorder::Finish() {
  if (state_->subscriber) {
    cuptiUnsubscribe(state_->subscriber);
    state_->subscriber = nullptr;
  }
  std::lock_guard lock(state_->mutex);
  return state_->record;
}

OpCallScope::OpCallScope() { ++open_op_calls; }
OpCallScope::~OpCallScope() { --open_op_calls; }

std::string ProjectLibraryFor(const std::string& op) {
  if (auto path = ProcessEnvironment()("KBUILD_PROJECT_LIBRARY"); path && !path->empty())
    return *path;
  const std::string op_namespace = op.substr(0, op.find("::"));
  if (op_namespace.empty() || op_namespace == op) return "";
  return LoadedObjectContaining(op_namespace);
}

}  // namespace kb::harness
