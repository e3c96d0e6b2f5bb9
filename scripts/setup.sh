#!/usr/bin/env bash
# Installs every package odt needs to build and test, idempotently, on Debian 12.
# Safe to run repeatedly: apt-get skips what is already installed.
set -euo pipefail

packages=(
  # toolchain (compiler-rt: the sanitizers and libFuzzer of test/sanitizers
  # and fuzz/)
  cmake ninja-build ccache clang-22 lld-22 libclang-rt-22-dev
  # LLVM / MLIR 22 (shared libraries libLLVM.so / libMLIR.so) and lit/FileCheck
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools liblld-22-dev
  # odt-compile's allocator, tcmalloc (tools/odt-compile/CMakeLists.txt)
  libgoogle-perftools-dev
  # ONNX protobuf schema for the importer
  libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata
  # checkpoints
  libflatbuffers-dev flatbuffers-compiler
  # tests
  libgtest-dev libgmock-dev
  # python for the reference scripts (numpy references, default model
  # generation); PyTorch, the exporters and ONNX Runtime come from PyPI into
  # a cached venv (scripts/setup-peers.sh), never from Debian
  python3 python3-numpy python3-onnx python3-flatbuffers python3-venv
  # the main job's data: scikit-learn's handwritten digits
  python3-sklearn
  # shipping to devices (test/package, test/cross): pkg-config for the
  # installed package, Debian's cross C/C++ libraries for aarch64 and riscv64
  # (clang-22 compiles; these give it the targets' libc and libstdc++), and
  # qemu-user to run what was built for them
  pkg-config qemu-user g++-aarch64-linux-gnu g++-riscv64-linux-gnu file
  # OpenBLAS: the GEMM reference of the benchmarks; it also becomes the
  # libblas.so.3 of Debian's numpy (the default reference BLAS is 10x slower)
  libopenblas0-pthread
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "odt setup: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "odt setup: all packages present"
fi
