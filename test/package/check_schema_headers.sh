#!/usr/bin/env bash
# runtime/schema/generated/ (used by builds without flatc) must be flatc's
# output for runtime/schema/*.fbs today.
#
#   check_schema_headers.sh FLATC RUNTIME_DIR FLATC_FLAGS...
set -euo pipefail
flatc=$1 runtime=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for schema in checkpoint model; do
  "$flatc" "$@" -o "$tmp" "$runtime/schema/$schema.fbs"
  cmp "$tmp/${schema}_generated.h" "$runtime/schema/generated/${schema}_generated.h" || {
    echo "FAIL: runtime/schema/generated/${schema}_generated.h is not flatc's output:" \
         "copy $tmp/${schema}_generated.h there"
    exit 1
  }
done
echo "runtime/schema/generated: equal to $("$flatc" --version)'s output"
