# find_package(ncp2): the TreadMarks API for programs run on the NCP2 emulator.
#   add_executable(jacobi jacobi.c)
#   target_link_libraries(jacobi PRIVATE ncp2::tmk)
# ncp2::tmk brings <tmk.h>, the runtime library, line information (-g) and, with clang 14, the
# instruction-counting pass of the deterministic time model (other compilers: a warning, and
# computation is charged only with `ncp2 run --time-model measured`). docs/tmk-programs.md.
include("${CMAKE_CURRENT_LIST_DIR}/ncp2Targets.cmake")
get_filename_component(_ncp2_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(_ncp2_plugin "${_ncp2_prefix}/lib/ncp2/libncp2_count_pass.so")
set_property(TARGET ncp2::tmk APPEND PROPERTY INTERFACE_COMPILE_OPTIONS -g)
set(_ncp2_compiler_ok TRUE)
foreach(_lang C CXX)
  if(CMAKE_${_lang}_COMPILER_LOADED AND NOT (CMAKE_${_lang}_COMPILER_ID STREQUAL "Clang"
                                             AND CMAKE_${_lang}_COMPILER_VERSION VERSION_GREATER_EQUAL 14
                                             AND CMAKE_${_lang}_COMPILER_VERSION VERSION_LESS 15))
    set(_ncp2_compiler_ok FALSE)
  endif()
endforeach()
if(_ncp2_compiler_ok AND EXISTS "${_ncp2_plugin}")
  set_property(TARGET ncp2::tmk APPEND PROPERTY INTERFACE_COMPILE_OPTIONS "-fpass-plugin=${_ncp2_plugin}")
else()
  message(WARNING "ncp2: instruction counting needs clang 14 (CC=clang-14 CXX=clang++-14); without it "
                  "computation is charged only with `ncp2 run --time-model measured`")
endif()
set(ncp2_FOUND TRUE)
