#!/usr/bin/env bash
# Makes (idempotently) the Python environment of odt's peers and exporters:
# PyTorch 2.15 from PyPI, onnx, onnxscript and ONNX Runtime 1.19.2 training,
# pinned in scripts/peers-requirements.txt.
#
#   bash scripts/setup-peers.sh [LINK] [REQUIREMENTS]
#
# REQUIREMENTS (default scripts/peers-requirements.txt) may name another
# pinned set made the same way (scripts/flower-requirements.txt: Flower, for
# the federated-learning test); its line "# check: IMPORTS" says what the
# venv must import, and the venv is named after the file
# (<name>-requirements.txt -> <name>-<hash>).
#
# The venv lives outside the clone, in a cache folder keyed by the
# requirements file's hash: ${ODT_PEERS_CACHE:-${XDG_CACHE_HOME:-~/.cache}/odt}/
# peers-<hash>, so CI and later sessions on the same machine reuse it (the
# wheels weigh ~5.5 GB). LINK (default ${ODT_BUILD_DIR:-build}/peers) is made
# a symbolic link to it: the test suite and bench/ run <LINK>/bin/python.
# Prints the venv's python as its last line.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
requirements="${2:-$root/scripts/peers-requirements.txt}"
[ -f "$requirements" ] || { echo "odt setup-peers: error: no file $requirements" >&2; exit 1; }
name="$(basename "$requirements" -requirements.txt)"
check="$(sed -n 's/^# check: //p' "$requirements" | head -1)"
check="${check:-import torch, onnx, onnxscript, onnxruntime.training.api}"
link="${1:-${ODT_BUILD_DIR:-$root/build}/$name}"
cache="${ODT_PEERS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/odt}"
base_python=/usr/bin/python3

say() { echo "odt setup-peers: $*" >&2; }
die() { echo "odt setup-peers: error: $*" >&2; exit 1; }

hash="$(sha256sum "$requirements" | cut -c1-12)"
venv="$cache/$name-$hash"
stamp="$venv/.odt-complete"

# The stamp is written last: a venv interrupted half-way is made again.
# Everything runs <venv>/bin/python (never the venv's scripts), so the venv
# stays usable if its cache folder is moved.
venv_ok() {
  [ -f "$stamp" ] && [ -x "$venv/bin/python" ] &&
    "$venv/bin/python" -c "$check" >/dev/null 2>&1
}

if venv_ok; then
  say "$venv: present"
else
  [ -x "$base_python" ] || die "$base_python is missing (run scripts/setup.sh first)"
  "$base_python" -c 'import sys; sys.exit(0 if sys.version_info[:2] <= (3, 11) else 1)' ||
    die "onnxruntime-training-cpu 1.19.2 has wheels for Python <= 3.11 only; $base_python is $("$base_python" -V 2>&1)"
  "$base_python" -c 'import ensurepip' 2>/dev/null ||
    die "$base_python cannot create venvs (install python3-venv: scripts/setup.sh)"
  mkdir -p "$cache"
  rm -rf "$venv"
  say "creating $venv from PyPI (the peers: about 5.5 GB of wheels, a few minutes)"
  "$base_python" -m venv "$venv" || die "could not create a venv in $venv"
  if ! "$venv/bin/python" -m pip install --disable-pip-version-check --no-input \
      --quiet -r "$requirements" >&2; then
    die "pip could not install $requirements (is PyPI reachable? see pip's message above)"
  fi
  "$venv/bin/python" -c "$check" ||
    die "$venv cannot import the peers (see the error above)"
  touch "$stamp"
  say "$venv ready"
fi

mkdir -p "$(dirname "$link")"
if [ "$(readlink "$link" 2>/dev/null)" != "$venv" ]; then
  rm -rf "$link"
  ln -s "$venv" "$link"
fi
echo "$venv/bin/python"
