# Cross-compiling odt's runtime with clang-22 and lld for ODT_CROSS_TRIPLE
# (set by the per-target files next to this one). The target's C library and
# libstdc++ come from Debian's cross packages (g++-<triple>: headers and
# libraries under /usr/<triple> and /usr/lib/gcc-cross/<triple>), which
# clang's driver finds by itself for --target=<triple>. Programs built this
# way run under qemu-user: `qemu-<arch> -L /usr/<triple> PROGRAM`.
#
#   cmake -G Ninja -S . -B build-aarch64 -DODT_BUILD_COMPILER=OFF \
#         -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
set(CMAKE_SYSTEM_NAME Linux)

find_program(ODT_CROSS_CLANG clang-22 clang PATHS /usr/lib/llvm-22/bin)
find_program(ODT_CROSS_CLANGXX clang++-22 clang++ PATHS /usr/lib/llvm-22/bin)
if(NOT ODT_CROSS_CLANG OR NOT ODT_CROSS_CLANGXX)
  message(FATAL_ERROR "odt cross build: clang-22 not found (Debian: clang-22)")
endif()
set(CMAKE_C_COMPILER "${ODT_CROSS_CLANG}")
set(CMAKE_CXX_COMPILER "${ODT_CROSS_CLANGXX}")
set(CMAKE_C_COMPILER_TARGET ${ODT_CROSS_TRIPLE})
set(CMAKE_CXX_COMPILER_TARGET ${ODT_CROSS_TRIPLE})
set(CMAKE_EXE_LINKER_FLAGS_INIT -fuse-ld=lld)
set(CMAKE_SHARED_LINKER_FLAGS_INIT -fuse-ld=lld)
set(CMAKE_MODULE_LINKER_FLAGS_INIT -fuse-ld=lld)

if(NOT EXISTS "/usr/${ODT_CROSS_TRIPLE}/include/stdio.h")
  message(FATAL_ERROR "odt cross build: no C library for ${ODT_CROSS_TRIPLE} "
                      "in /usr/${ODT_CROSS_TRIPLE} (Debian: g++-${ODT_CROSS_TRIPLE})")
endif()
set(CMAKE_FIND_ROOT_PATH "/usr/${ODT_CROSS_TRIPLE}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# How tests run the target's programs on this machine.
find_program(ODT_CROSS_QEMU qemu-${CMAKE_SYSTEM_PROCESSOR})
if(ODT_CROSS_QEMU)
  set(CMAKE_CROSSCOMPILING_EMULATOR "${ODT_CROSS_QEMU};-L;/usr/${ODT_CROSS_TRIPLE}")
endif()
