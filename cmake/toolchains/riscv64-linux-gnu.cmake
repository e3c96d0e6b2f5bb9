# 64-bit RISC-V Linux (Debian riscv64, RV64GC, lp64d): see ClangCross.cmake.
set(CMAKE_SYSTEM_PROCESSOR riscv64)
set(ODT_CROSS_TRIPLE riscv64-linux-gnu)
include(${CMAKE_CURRENT_LIST_DIR}/ClangCross.cmake)
