// Whether a huge case (more than 2^31 elements) fits on the device: it is
// skipped, with the reason, rather than failed when it does not.
#pragma once

#include <c10/core/Device.h>

#include <cstdint>
#include <string>

#include "kbuild/harness/case.h"

namespace kb::harness {

// "" when `free_bytes` covers `needed`; else why the case is skipped.
std::string MemorySkipReason(std::int64_t needed, std::int64_t free_bytes);

// MemorySkipReason for HugeCaseDeviceBytes(c) against the device's free
// memory (after the caching allocator returns what it holds). "" for CPU.
std::string HugeCaseSkipReason(c10::Device device, const Case& c);

}  // namespace kb::harness
