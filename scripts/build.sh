#!/usr/bin/env bash
# Configures and builds odt into ${ODT_BUILD_DIR:-build} (Ninja, clang-22, ccache).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${ODT_BUILD_DIR:-$root/build}"
# ccache (~/.cache/ccache) keys on paths relative to the clone, so a fresh
# clone elsewhere (CI) reuses the objects of earlier builds: a cold build
# takes about 45 minutes on 2 cores, a cached one a few.
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=true
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release
fi
cmake --build "$build" -- -j"$(nproc)"
