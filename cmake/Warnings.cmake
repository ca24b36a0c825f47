# kindling_stub_warnings(FILE... [OF KERNEL]): a stub ignores its arguments and may leave locals
# unused until it is filled in, so the files of exercises/ and the grader's task stubs
# (build/.../task-stubs/) among FILE compile without those warnings; OF: FILE is the simulator
# wrapper of KERNEL, which decides. Only they: every other file then compiles with the same flags
# in both trees, and ccache serves it from either build. (Source properties belong to the folder
# that sets them: call it where the target that compiles FILE is made.)
function(kindling_stub_warnings)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "OF" "")
  foreach(file IN LISTS arg_UNPARSED_ARGUMENTS)
    set(judged ${file})
    if(arg_OF)
      set(judged ${arg_OF})
    endif()
    string(FIND "${judged}" "${CMAKE_SOURCE_DIR}/exercises/" in_exercises)
    string(FIND "${judged}" "${CMAKE_BINARY_DIR}/task-stubs/" is_stub)
    if(in_exercises EQUAL 0 OR is_stub EQUAL 0)
      set_property(SOURCE ${file} APPEND PROPERTY COMPILE_OPTIONS -Wno-unused-parameter -Wno-unused-variable
        -Wno-unused-but-set-variable -Wno-unused-function)
    endif()
  endforeach()
endfunction()

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
