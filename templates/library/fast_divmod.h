// Division by a divisor fixed for a launch, as a multiply-high and a shift
// (Granlund and Montgomery's round-up method): a kernel that splits its
// thread index into (token, head, chunk) pays 3 instructions per quotient,
// where `/` and `%` on int64 run a 64-bit division routine (a 32-bit one when
// both operands fit, picked at run time), before the thread can issue its
// first load. Contract: the host builds FastDivmod(d) for 1 <= d < 2^32 and
// passes it by value; Divide / DivMod take n < 2^32 and give exactly n / d
// and n % d. Plain C++ on the host (host-tested), __device__ code under nvcc.
#pragma once

#include <cstdint>

#include "host_device.h"

namespace kernels_common {

struct FastDivmod {
  uint32_t divisor = 1;
  uint32_t multiplier = 0;  // 2^32 (2^shift - d) / d + 1, below 2^32
  uint32_t shift = 0;       // ceil(log2(d))

  FastDivmod() = default;
  explicit FastDivmod(uint32_t d) : divisor(d) {
    while ((uint64_t{1} << shift) < d) ++shift;
    multiplier =
        static_cast<uint32_t>(((uint64_t{1} << 32) * ((uint64_t{1} << shift) - d)) / d + 1);
  }

  // n / d: the quotient is (mulhi(n, m) + n) >> shift, summed in 64 bits so
  // n near 2^32 does not wrap.
  KERNELS_COMMON_HOST_DEVICE uint32_t Divide(uint32_t n) const {
#ifdef __CUDA_ARCH__
    const uint32_t high = __umulhi(n, multiplier);
#else
    const auto high = static_cast<uint32_t>((uint64_t{n} * multiplier) >> 32);
#endif
    return static_cast<uint32_t>((uint64_t{high} + n) >> shift);
  }

  // Sets quotient = n / d and returns n % d.
  KERNELS_COMMON_HOST_DEVICE uint32_t DivMod(uint32_t n, uint32_t* quotient) const {
    *quotient = Divide(n);
    return n - *quotient * divisor;
  }
};

}  // namespace kernels_common
