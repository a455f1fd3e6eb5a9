// FastDivmod (common/fast_divmod.h) on the host: the rope kernels split every
// thread index with it, so a wrong quotient for any divisor or index would
// send a thread to another token's head. Every divisor up to 4096, powers of
// two and their neighbours up to 2^32 - 1, random ones, each against `/` and `%` at
// random dividends and at the ends of the range (0, d - 1, d, 2^32 - 1).
#include "../{{python_name}}_cuda/common/fast_divmod.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace {

using kernels_common::FastDivmod;

void ExpectExact(uint32_t d, std::mt19937& rng) {
  const FastDivmod f(d);
  std::vector<uint32_t> n = {0u, d - 1, d, d + 1, 0xffffffffu, 0xfffffffeu, 0x80000000u,
                             0x7fffffffu, 0xffffffffu / d * d, 0xffffffffu / d * d - 1};
  std::uniform_int_distribution<uint32_t> any;
  for (int i = 0; i < 200; ++i) n.push_back(any(rng));
  for (uint32_t x : n) {
    uint32_t q = 0;
    const uint32_t r = f.DivMod(x, &q);
    ASSERT_EQ(q, x / d) << x << " / " << d;
    ASSERT_EQ(r, x % d) << x << " % " << d;
  }
}

TEST(FastDivmod, EveryDivisorUpTo4096) {
  std::mt19937 rng(20261203);
  for (uint32_t d = 1; d <= 4096; ++d) ExpectExact(d, rng);
}

TEST(FastDivmod, PowersOfTwoAndNeighboursUpTo2To32) {
  std::mt19937 rng(7);
  for (int k = 1; k <= 32; ++k) {
    const uint64_t p = uint64_t{1} << k;
    for (uint64_t d : {p - 1, p, p + 1}) {
      if (d <= 0xffffffffu) ExpectExact(static_cast<uint32_t>(d), rng);
    }
  }
}

TEST(FastDivmod, RandomDivisors) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<uint32_t> divisor(1, 0xffffffffu);
  for (int i = 0; i < 2000; ++i) ExpectExact(divisor(rng), rng);
}

}  // namespace
