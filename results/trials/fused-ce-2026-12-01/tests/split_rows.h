// Row shapes shared by the norm templates' tests for rows that do not start
// on a 16-byte boundary, which take the head / body / tail split
// (common/row_span.h). Contiguous rows of a size that is not a multiple of
// the vector start at a different distance from a boundary row after row,
// so 4099 rows put every head length (0-7 elements; fp32 0-3) through each
// shape, on every path of the row plan (bf16 / fp16, 8-element vectors):
//   2047, 2049, 4095     block per row, 2 vectors each (1 for 5 rows)
//   2046, 22, 14         rows with 7 + 7 edge elements (the most); 22 and
//                        14 on 4-lane groups, 4 edge elements per lane
//   9, 7, 1              one full vector or none: all head and tail
//   33, 57, 99, 255      4 / 8 / 16 / 32 lanes per row
//   301, 1001            a warp per row, 2 / 4 vectors per lane
//   9999, 40001          a block with 8 vectors per thread; two passes
// 4099 rows: more than the GPU holds at once, a prime count.
#pragma once

#include <cstdint>
#include <vector>

inline std::vector<std::vector<int64_t>> SplitRowShapes() {
  return {{4099, 2047}, {5, 2047},   {4099, 2049}, {1031, 4095}, {4099, 2046},
          {4099, 22},   {4099, 14},  {4099, 9},    {4099, 7},    {4099, 1},
          {4099, 33},   {4099, 57},  {4099, 99},   {4099, 255},  {4099, 301},
          {4099, 1001}, {67, 9999},  {3, 40001}};
}

// More than 2^31 elements in split rows (64-bit offsets): ~95 GB of GPU
// memory with the float64 reference, ~1 min; one dtype.
inline std::vector<std::vector<int64_t>> HugeSplitRowShapes() {
  return {{(int64_t{1} << 21) + 1, 1025}};
}
