# Included before project() by the root build and by the Python package's
# (python/CMakeLists.txt): the same version, compilers, ccache, C++17 and
# default build type for both.

# odt's version, for project(VERSION): the file VERSION at the root is its one
# source (pyproject.toml reads it too).
file(STRINGS "${CMAKE_CURRENT_LIST_DIR}/../VERSION" ODT_VERSION LIMIT_COUNT 1
     REGEX "^[0-9]+\\.[0-9]+\\.[0-9]+$")
if(NOT ODT_VERSION)
  message(FATAL_ERROR "odt: VERSION must hold MAJOR.MINOR.PATCH")
endif()

# odt is built with clang-22 and lld (the same LLVM release as the MLIR it
# links). Respect a compiler chosen by the user; otherwise prefer Debian's
# clang-22. A toolchain file (cmake/toolchains/) chooses its own.
if(NOT DEFINED CMAKE_CXX_COMPILER AND NOT DEFINED ENV{CXX} AND NOT CMAKE_TOOLCHAIN_FILE)
  find_program(ODT_CLANGXX clang++-22 PATHS /usr/lib/llvm-22/bin)
  find_program(ODT_CLANG clang-22 PATHS /usr/lib/llvm-22/bin)
  if(ODT_CLANGXX AND ODT_CLANG)
    set(CMAKE_CXX_COMPILER "${ODT_CLANGXX}")
    set(CMAKE_C_COMPILER "${ODT_CLANG}")
  endif()
endif()

find_program(CCACHE_PROGRAM ccache)
if(CCACHE_PROGRAM)
  set(CMAKE_C_COMPILER_LAUNCHER "${CCACHE_PROGRAM}")
  set(CMAKE_CXX_COMPILER_LAUNCHER "${CCACHE_PROGRAM}")
endif()

set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE Release CACHE STRING "" FORCE)
endif()
