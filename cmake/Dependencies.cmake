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
find_package(OpenMP QUIET)
find_package(Doxygen QUIET)

# CUDA is optional: enabled when nvcc is found (the toolkit's standard place is
# /usr/local/cuda). Week 6 uses it; everything else builds without.
include(CheckLanguage)
if(NOT DEFINED CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
  set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
endif()
check_language(CUDA)
set(KINDLING_HAS_CUDA OFF)
if(CMAKE_CUDA_COMPILER)
  set(KINDLING_HAS_CUDA ON)
endif()
message(STATUS "Kindling: CUDA toolkit ${KINDLING_HAS_CUDA}")
