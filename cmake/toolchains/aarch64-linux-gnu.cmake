# 64-bit Arm Linux (Debian arm64): see ClangCross.cmake.
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(ODT_CROSS_TRIPLE aarch64-linux-gnu)
include(${CMAKE_CURRENT_LIST_DIR}/ClangCross.cmake)
