# The kbuild test/benchmark harness, for a kernel project's generated CMake:
#
#   include(<KBUILD_HOME>/tools/harness/harness.cmake)
#   target_link_libraries(my_tests PRIVATE kbuild_harness GTest::gtest_main)
#
# The caller must set, before the include:
#   KBUILD_TORCH_INCLUDE_DIRS  torch/include (and torch/include/torch/csrc/api/include)
#   KBUILD_TORCH_LIBRARIES     c10, torch, torch_cpu, torch_cuda, c10_cuda (names or paths)
#   KBUILD_TORCH_LIBRARY_DIR   torch/lib (for the link path and the run path)
# With KBUILD_HARNESS_CORE_ONLY=ON only the torch-free core is defined (CI
# machines without torch test it).
# With KBUILD_HARNESS_PREBUILT_DIR set, both libraries are imported from
# <dir>/libkbuild_harness_core.a and <dir>/libkbuild_harness.a instead of
# compiled here, with the same usage requirements: kbuild builds them once per
# torch/CUDA/kbuild version into KBUILD_CACHE_DIR/harness/ (its
# core/harness_library.h), so a kernel project compiles only its own files.
#
# Targets: kbuild_harness_core (stats, tolerances, JSON, physics, regression
# compare, the host-ahead timing rule: no torch, no CUDA) and kbuild_harness (CheckOp, RegisterBenchmark).
include_guard(GLOBAL)

set(KBUILD_HARNESS_DIR "${CMAKE_CURRENT_LIST_DIR}")
find_package(nlohmann_json 3 REQUIRED)

# What a target linking a harness library gets: PUBLIC when it is compiled
# here, INTERFACE when it is imported (it has no compile of its own).
if(KBUILD_HARNESS_PREBUILT_DIR)
  set(KBUILD_HARNESS_USAGE INTERFACE)
else()
  set(KBUILD_HARNESS_USAGE PUBLIC)
endif()

# kbuild_harness_library(<name> <sources>...): compiled from the sources, or
# imported from KBUILD_HARNESS_PREBUILT_DIR/lib<name>.a.
function(kbuild_harness_library name)
  if(KBUILD_HARNESS_PREBUILT_DIR)
    add_library(${name} STATIC IMPORTED)
    # SYSTEM FALSE: -I, not -isystem, for the harness headers, as when compiled here.
    set_target_properties(${name} PROPERTIES
      IMPORTED_LOCATION "${KBUILD_HARNESS_PREBUILT_DIR}/lib${name}.a" SYSTEM FALSE)
  else()
    add_library(${name} STATIC ${ARGN})
  endif()
endfunction()

kbuild_harness_library(kbuild_harness_core
  ${KBUILD_HARNESS_DIR}/src/tolerance.cpp
  ${KBUILD_HARNESS_DIR}/src/stats.cpp
  ${KBUILD_HARNESS_DIR}/src/element_checks.cpp
  ${KBUILD_HARNESS_DIR}/src/physics.cpp
  ${KBUILD_HARNESS_DIR}/src/results.cpp
  ${KBUILD_HARNESS_DIR}/src/file_write.cpp
  ${KBUILD_HARNESS_DIR}/src/regression.cpp
  ${KBUILD_HARNESS_DIR}/src/provenance.cpp
  ${KBUILD_HARNESS_DIR}/src/host_ahead.cpp)
target_include_directories(kbuild_harness_core ${KBUILD_HARNESS_USAGE} ${KBUILD_HARNESS_DIR}/include)
target_compile_features(kbuild_harness_core ${KBUILD_HARNESS_USAGE} cxx_std_20)
target_link_libraries(kbuild_harness_core ${KBUILD_HARNESS_USAGE}
  nlohmann_json::nlohmann_json ${CMAKE_DL_LIBS})
if(NOT KBUILD_HARNESS_PREBUILT_DIR)
  # Not on kbuild_harness: torch's headers would bury its warnings.
  target_compile_options(kbuild_harness_core PRIVATE -Wall -Wextra)
endif()

if(NOT KBUILD_HARNESS_CORE_ONLY)
  foreach(var KBUILD_TORCH_INCLUDE_DIRS KBUILD_TORCH_LIBRARIES KBUILD_TORCH_LIBRARY_DIR)
    if(NOT ${var})
      message(FATAL_ERROR "harness.cmake: ${var} is not set; the including project must set it "
                          "(see the comment at the top of ${CMAKE_CURRENT_LIST_FILE})")
    endif()
  endforeach()
  find_package(CUDAToolkit REQUIRED)
  find_package(benchmark REQUIRED)

  kbuild_harness_library(kbuild_harness
    ${KBUILD_HARNESS_DIR}/src/case.cpp
    ${KBUILD_HARNESS_DIR}/src/arg_factory.cpp
    ${KBUILD_HARNESS_DIR}/src/dispatch.cpp
    ${KBUILD_HARNESS_DIR}/src/launch_record.cpp
    ${KBUILD_HARNESS_DIR}/src/cuda_sync.cpp
    ${KBUILD_HARNESS_DIR}/src/trial.cpp
    ${KBUILD_HARNESS_DIR}/src/chunked_compare.cpp
    ${KBUILD_HARNESS_DIR}/src/huge_case_memory.cpp
    ${KBUILD_HARNESS_DIR}/src/check_op.cpp
    ${KBUILD_HARNESS_DIR}/src/device_compare.cpp
    ${KBUILD_HARNESS_DIR}/src/bench_value_check.cpp
    ${KBUILD_HARNESS_DIR}/src/timing.cpp
    ${KBUILD_HARNESS_DIR}/src/utility_kernels.cpp
    ${KBUILD_HARNESS_DIR}/src/peak.cpp
    ${KBUILD_HARNESS_DIR}/src/reference_case.cpp
    ${KBUILD_HARNESS_DIR}/src/benchmark.cpp)
  target_include_directories(kbuild_harness ${KBUILD_HARNESS_USAGE} ${KBUILD_TORCH_INCLUDE_DIRS})
  # pip's torch is built with the C++11 ABI; mixing ABIs fails at link time.
  target_compile_definitions(kbuild_harness ${KBUILD_HARNESS_USAGE} _GLIBCXX_USE_CXX11_ABI=1)
  target_link_directories(kbuild_harness ${KBUILD_HARNESS_USAGE} ${KBUILD_TORCH_LIBRARY_DIR})
  target_link_libraries(kbuild_harness ${KBUILD_HARNESS_USAGE}
    kbuild_harness_core ${KBUILD_TORCH_LIBRARIES} CUDA::cudart CUDA::cupti benchmark::benchmark)
  target_link_options(kbuild_harness ${KBUILD_HARNESS_USAGE}
    "LINKER:-rpath,${KBUILD_TORCH_LIBRARY_DIR}")
endif()

# Links a project's op library so its TORCH_LIBRARY registration runs even
# though no symbol of it is referenced (otherwise --as-needed drops it).
function(kbuild_harness_link_ops target ops_library)
  target_link_libraries(${target} PRIVATE "-Wl,--no-as-needed" ${ops_library} "-Wl,--as-needed")
endfunction()
