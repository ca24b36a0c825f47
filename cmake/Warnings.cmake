# A stub ignores its arguments and may leave locals unused until it is filled in: the files of
# exercises/ (the engine's sources, CMakeLists.txt) compile with these. Only they: every other file
# then compiles with the same flags in both trees, and ccache serves it from either build.
set(KINDLING_STUB_WARNING_FLAGS -Wno-unused-parameter -Wno-unused-variable -Wno-unused-but-set-variable
  -Wno-unused-function)

# kindling_warnings(target): the kit's warning set, errors with KINDLING_WERROR=ON (./test, CI).
function(kindling_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
    -Wnon-virtual-dtor -Wcast-align -Woverloaded-virtual -Wimplicit-fallthrough)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    # GCC 12 reports false -Wrestrict errors inside std::string's operator+ at -O3 (GCC bug 105651).
    target_compile_options(${target} PRIVATE -Wno-restrict)
  endif()
  # Designated initializers may leave out members that have default initializers
  # (`{.dim = d}`); -Wextra's missing-field-initializers would flag every one.
  target_compile_options(${target} PRIVATE -Wno-missing-field-initializers)
  if(KINDLING_SANITIZE AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # Sanitizer instrumentation confuses GCC's flow analysis (false -Wmaybe-uninitialized
    # in std::regex and std::function); the sanitizers check the real thing at run time.
    target_compile_options(${target} PRIVATE -Wno-maybe-uninitialized)
  endif()
  if(KINDLING_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
