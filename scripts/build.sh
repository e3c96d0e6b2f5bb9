#!/usr/bin/env bash
# Configures and builds odt into ${ODT_BUILD_DIR:-build} (Ninja, clang-22, ccache).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${ODT_BUILD_DIR:-$root/build}"
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release
fi
cmake --build "$build" -- -j"$(nproc)"
