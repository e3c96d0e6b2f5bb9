#!/usr/bin/env bash
# The runtime's footprint on a device: libodt.so stripped, against a budget.
#
#   scripts/runtime-size.sh [--budget KB] LIBODT.so...
#
# Prints one line per library (its architecture from the ELF header, the
# stripped size in bytes and KB) and exits 1 when one is above the budget
# (default 340 KB, 1 KB = 1024 bytes). llvm-strip reads every architecture,
# so cross-built libraries are measured on this machine too.
set -euo pipefail
budget_kb=340
if [ "${1:-}" = "--budget" ]; then
  budget_kb=$2
  shift 2
fi
if [ $# = 0 ]; then
  echo "usage: $0 [--budget KB] LIBODT.so..." >&2
  exit 2
fi
strip_tool=$(command -v llvm-strip-22 || command -v /usr/lib/llvm-22/bin/llvm-strip ||
             command -v llvm-strip || true)
if [ -z "$strip_tool" ]; then
  echo "runtime-size: error: llvm-strip not found (Debian: llvm-22)" >&2
  exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for lib in "$@"; do
  if [ ! -f "$lib" ]; then
    echo "runtime-size: error: no file '$lib'" >&2
    exit 2
  fi
  arch=$(file -bL "$lib" | sed -n 's/^ELF [0-9]*-bit LSB [a-z ]*object, \([^,]*\),.*/\1/p')
  "$strip_tool" --strip-all -o "$tmp/lib.so" "$lib"
  bytes=$(stat -c %s "$tmp/lib.so")
  kb=$(( (bytes + 1023) / 1024 ))
  verdict="within the ${budget_kb} KB budget"
  if [ "$kb" -gt "$budget_kb" ]; then
    verdict="OVER the ${budget_kb} KB budget"
    status=1
  fi
  printf '%-28s %-14s %8d bytes  %4d KB stripped  %s\n' "$(basename "$lib")" \
         "${arch:-?}" "$bytes" "$kb" "$verdict"
done
exit $status
