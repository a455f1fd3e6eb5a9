// KERNELS_COMMON_HOST_DEVICE marks the library's plain-C++ helpers that
// device code calls too (row spans, FastDivmod): __host__ __device__ under
// nvcc, nothing for the host compiler, so host tests build them with g++.
#pragma once

#ifdef __CUDACC__
#define KERNELS_COMMON_HOST_DEVICE __host__ __device__
#else
#define KERNELS_COMMON_HOST_DEVICE
#endif
