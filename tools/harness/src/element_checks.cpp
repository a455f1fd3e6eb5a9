#include "kbuild/harness/element_checks.h"

#include <cmath>
#include <cstring>

namespace kb::harness {

PoisonPattern PoisonFor(DType dtype, std::size_t element_size) {
  switch (dtype) {
    case DType::kFloat64:
      return {0x7FFA11ED0BADBAD5ull, 8};
    case DType::kFloat32:
      return {0x7FD1DEADull, 4};
    case DType::kFloat16:
      return {0x7E5Bull, 2};
    case DType::kBFloat16:
      return {0x7FDBull, 2};
    case DType::kOther:
      break;
  }
  return {0xA5A5A5A5A5A5A5A5ull, element_size};
}

PoisonPattern GuardFor(DType dtype, std::size_t element_size) {
  switch (dtype) {
    case DType::kFloat64:
      return {0x7FF8BEEF0BEEF0BEull, 8};
    case DType::kFloat32:
      return {0x7FCBEEF0ull, 4};
    case DType::kFloat16:
      return {0x7E3Cull, 2};
    case DType::kBFloat16:
      return {0x7FCCull, 2};
    case DType::kOther:
      break;
  }
  return {0x5A5A5A5A5A5A5A5Aull, element_size};
}

void FillPoison(void* data, std::size_t count, PoisonPattern pattern) {
  auto* bytes = static_cast<unsigned char*>(data);
  for (std::size_t i = 0; i < count; ++i) {
    // Little-endian: the low bytes of `bits` are the element's bytes.
    std::memcpy(bytes + i * pattern.element_size, &pattern.bits, pattern.element_size);
  }
}

PoisonScan ScanPoison(const void* data, std::size_t count, PoisonPattern pattern) {
  PoisonScan scan;
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < count; ++i) {
    if (std::memcmp(bytes + i * pattern.element_size, &pattern.bits, pattern.element_size) != 0) {
      continue;
    }
    if (scan.count++ == 0) scan.first_index = static_cast<std::int64_t>(i);
  }
  return scan;
}

std::uint64_t HashBytes(const void* data, std::size_t size) {
  // FNV-1a over 8-byte words, then the tail bytes: a byte at a time took
  // seconds per input of a 2^31-element case.
  std::uint64_t hash = 0xcbf29ce484222325ull;
  const auto* bytes = static_cast<const unsigned char*>(data);
  std::size_t i = 0;
  for (; i + sizeof(std::uint64_t) <= size; i += sizeof(std::uint64_t)) {
    std::uint64_t word;
    std::memcpy(&word, bytes + i, sizeof(word));
    hash ^= word;
    hash *= 0x100000001b3ull;
  }
  for (; i < size; ++i) {
    hash ^= bytes[i];
    hash *= 0x100000001b3ull;
  }
  return hash;
}

namespace {

// NaN matches NaN; an infinity matches the same infinity.
bool SameNonFinite(double got, double want) {
  if (std::isnan(want)) return std::isnan(got);
  return got == want;
}

}  // namespace

ErrorStats CompareValues(std::span<const double> got, std::span<const double> want,
                         Tolerance tolerance) {
  ErrorStats stats;
  double diff_sq = 0, want_sq = 0;
  for (std::size_t i = 0; i < got.size() && i < want.size(); ++i) {
    const double g = got[i], w = want[i];
    const auto index = static_cast<std::int64_t>(i);
    if (!std::isfinite(g) || !std::isfinite(w)) {
      if (!SameNonFinite(g, w) && stats.nonfinite++ == 0) stats.first_nonfinite = index;
      continue;
    }
    const double err = std::fabs(g - w);
    diff_sq += err * err;
    want_sq += w * w;
    if (err > stats.max_abs_error) stats.max_abs_error = err;
    if (err > tolerance.atol + tolerance.rtol * std::fabs(w) && stats.mismatches++ == 0) {
      stats.first_mismatch = index;
      stats.first_got = g;
      stats.first_want = w;
    }
  }
  stats.rel_l2_error = want_sq > 0 ? std::sqrt(diff_sq / want_sq) : std::sqrt(diff_sq);
  return stats;
}

}  // namespace kb::harness
