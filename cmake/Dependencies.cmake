# Finds every dependency with find_package. A missing one stops configuration
# with the Debian package that provides it.
macro(kindling_require package debian_package)
  find_package(${package} ${ARGN} QUIET)
  if(NOT ${package}_FOUND)
    message(FATAL_ERROR
      "Kindling needs ${package}, which was not found.\n"
      "On Debian or Ubuntu: sudo apt-get install ${debian_package}\n"
      "(./grade and ./test install it themselves when run as root.)")
  endif()
endmacro()

kindling_require(Threads libc6-dev)
kindling_require(Eigen3 libeigen3-dev NO_MODULE)
kindling_require(GTest libgtest-dev)
kindling_require(benchmark libbenchmark-dev)
kindling_require(nlohmann_json nlohmann-json3-dev)
kindling_require(CLI11 libcli11-dev)
kindling_require(Boost libboost-context-dev CONFIG COMPONENTS context)  # week 6: fibers for the CUDA simulator
kindling_require(Gloo libgloo-dev CONFIG)  # week 7: collectives across processes (PyTorch's CPU backend)
find_package(OpenMP QUIET)
find_package(Doxygen QUIET)

# CUDA is optional: enabled when nvcc is found (the toolkit's standard place is
# /usr/local/cuda), unless KINDLING_CUDA is OFF. Week 4's pinned memory uses the
# runtime library (cudaHostAlloc when a device is present); week 6 compiles kernels.
set(KINDLING_CUDA "AUTO" CACHE STRING "CUDA: AUTO (when nvcc is found) or OFF")
set_property(CACHE KINDLING_CUDA PROPERTY STRINGS AUTO OFF)
set(KINDLING_HAS_CUDA OFF)
if(NOT KINDLING_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  if(NOT DEFINED CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    get_filename_component(kindling_cuda_bin "${CMAKE_CUDA_COMPILER}" DIRECTORY)
    get_filename_component(CUDAToolkit_ROOT "${kindling_cuda_bin}" DIRECTORY)
    find_package(CUDAToolkit QUIET)
    if(CUDAToolkit_FOUND)
      set(KINDLING_HAS_CUDA ON)
    endif()
  endif()
endif()
if(KINDLING_HAS_CUDA)
  # Week 6's kernels compile for the device too. Architectures: the A100 and the H100 (CUDA 13's
  # oldest target is 7.5); a machine without a GPU cannot detect its own. nvcc's C++ standard
  # is passed by hand (cmake/Kernels.cmake): CMake 3.25 drops CUDA_STANDARD 20 for nvcc.
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 80 90)
  endif()
  if(KINDLING_CCACHE_LAUNCHER AND NOT CMAKE_CUDA_COMPILER_LAUNCHER)
    set(CMAKE_CUDA_COMPILER_LAUNCHER ${KINDLING_CCACHE_LAUNCHER})
  endif()
  enable_language(CUDA)
  message(STATUS "Kindling: CUDA ${CUDAToolkit_VERSION} (${CUDAToolkit_LIBRARY_DIR}); CUDA tests skip without a device")
else()
  message(STATUS "Kindling: without CUDA (KINDLING_CUDA=${KINDLING_CUDA}); pinned memory is mlock'ed")
endif()
