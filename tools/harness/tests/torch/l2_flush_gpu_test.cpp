// The read half of the L2 flush (utility_kernels.h, timing.cpp's L2Flusher)
// on a real GPU: it runs over a buffer of any size and changes nothing in
// it, whatever the buffer holds. Skips without a CUDA device.
#include <ATen/ATen.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <string>

#include "../../src/utility_kernels.h"

namespace kb::harness {
namespace {

class ReadKernelOnGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (c10::cuda::device_count() == 0)
      GTEST_SKIP() << "no CUDA device: the read kernel needs a GPU";
  }
};

void ExpectReadLeavesUnchanged(const at::Tensor& buffer) {
  const at::Tensor before = buffer.clone();
  const std::int64_t bytes = buffer.numel() * 4;
  std::string error;
  ASSERT_EQ(LaunchReadKernel(buffer.data_ptr(), bytes, 8 * 132,
                             c10::cuda::getCurrentCUDAStream().stream(), &error),
            cudaSuccess)
      << error;
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << bytes << " bytes";
  EXPECT_TRUE(at::equal(buffer, before)) << bytes << " bytes";
}

const at::TensorOptions kInts = at::TensorOptions().dtype(at::kInt).device(at::kCUDA);

TEST_F(ReadKernelOnGpu, ReadsBuffersOfAnySizeAndWritesNothing) {
  for (const std::int64_t bytes :
       {std::int64_t{16}, std::int64_t{4096} + 16, std::int64_t{96} << 20}) {
    ExpectReadLeavesUnchanged(at::randint(-(1LL << 31), 1LL << 31, {bytes / 4}, kInts));
  }
}

// One vector whose words sum (xor) to the kernel's "impossible" value: the
// store it guards must not happen, since the harness passes no sink.
TEST_F(ReadKernelOnGpu, TheImpossibleSumStoresNothing) {
  ExpectReadLeavesUnchanged(at::tensor({0x12345678, 0, 0, 0}, kInts));
}

}  // namespace
}  // namespace kb::harness
