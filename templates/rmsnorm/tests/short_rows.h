// Short-row shapes shared by the norm templates' tests: many rows of at most
// 256 elements, several per warp (common/row_plan.h). Lanes per row in bf16 /
// fp16 (8-element vectors): 24 -> 4, 64 -> 8, 72 (9 vectors) and 128 -> 16,
// 256 -> 32; 100 (4-element vectors) -> 32; 33 (scalars) -> a warp with 2 per
// lane. fp32 (4-element vectors): 24 -> 8, 64 -> 16, 128 -> 32, 256 -> a warp
// with 2 per lane. 100,003 rows: more than 65,535.
#pragma once

#include <cstdint>
#include <vector>

inline std::vector<std::vector<int64_t>> ShortRowShapes() {
  return {{100003, 128}, {20011, 64}, {4099, 256}, {4099, 24}, {4099, 72}, {4099, 100}, {4099, 33}};
}

// Misaligned views of short rows take narrower vectors: 128 scalars, a warp
// per row with 4 per lane; 64, 2 per lane.
inline std::vector<std::vector<int64_t>> ShortRowOffsetShapes() {
  return {{9001, 128}, {20011, 64}};
}
