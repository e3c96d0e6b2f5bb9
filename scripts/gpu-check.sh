#!/usr/bin/env bash
# The GPU device check, part 1 (this machine): everything the check needs on
# a machine with an NVIDIA GPU, compiled here (odt-compile stays on the CPU
# machine: that is the point of compiling ahead of time).
#
#   scripts/gpu-check.sh [--build DIR] [--out DIR] [--arch sm_90]
#                        [--models ort_mlp,mlp,...]
#
# OUT (default build/gpu-check) gets:
#   bin/odt-run                      (the runtime linked in; no LLVM)
#   models/<name>/gpu/               the GPU build (odt-compile --gpu-arch):
#                                    libmodel.so and model.json
#   models/<name>/checkpoint, input.npy, labels.npy
#   models/<name>/manifest.json      the steps, the learning rate and the
#                                    losses to match: ORT's golden losses for
#                                    ORT's MLP, the CPU build's for the bench
#                                    zoo's models (same artifacts, same data)
#   A name MODEL@PRECISION (mlp@tf32x3) is a GPU build with
#   --gpu-precision=PRECISION (tensor cores), whose losses must match a
#   --gpu-loops-on-cpu build at the same precision (the tensor cores'
#   rounding emulated lane by lane): the only check of the mma.sync
#   fragments' layout; not timed against PyTorch.
#   python/                          bench/zoo.py and zoo/*.py (the modules)
#   gpu-check-device.py              part 2, run on the device machine:
#       python3 OUT/gpu-check-device.py OUT --out RESULTS
#
# The bench zoo's artifacts (PyTorch exports, ORT's or odt's
# generate-artifacts) are made once with the peers' Python
# (scripts/setup-peers.sh) and kept in $ODT_GPU_CHECK_ZOO (default
# ~/.cache/odt/gpu-check-zoo). OUT is replaced only when complete.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
out=$root/build/gpu-check
arch=sm_90
models=ort_mlp,mlp,lenet5,transformer,mobilenetv2,resnet18_cifar,mlp@tf32x3,transformer@tf32,transformer@bf16
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --out) out=$2; shift 2 ;;
    --arch) arch=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    *) echo "gpu-check: unknown argument '$1'" >&2
       sed -n '2,22p' "$0" >&2
       exit 2 ;;
  esac
done
odt_compile=$build/bin/odt-compile
odt_run=$build/bin/odt-run
for tool in "$odt_compile" "$odt_run"; do
  [ -x "$tool" ] || { echo "gpu-check: error: no $tool (scripts/build.sh)" >&2; exit 2; }
done
shared=$(cd "$root/../shared" 2>/dev/null && pwd) ||
  { echo "gpu-check: error: no ../shared next to the clone" >&2; exit 2; }
peers_python=${ODT_PEERS_PYTHON:-$build/peers/bin/python}
zoo_cache=${ODT_GPU_CHECK_ZOO:-$HOME/.cache/odt/gpu-check-zoo}

staging=$out.partial
rm -rf "$staging"
mkdir -p "$staging/bin" "$staging/models"
cp "$odt_run" "$staging/bin/"
cp "$root/scripts/gpu-check-device.py" "$staging/"
# The PyTorch modules of the zoo, for PyTorch's own timing on the device
# (bench/zoo.py finds zoo/ next to its folder).
mkdir -p "$staging/python/bench" "$staging/python/zoo"
cp "$root/bench/zoo.py" "$staging/python/bench/"
cp "$root/zoo/models.py" "$root/zoo/check.py" "$root/zoo/export.py" "$staging/python/zoo/"
work=$(mktemp -d)
trap 'rm -rf "$work" "$staging"' EXIT

# The batch each zoo model is checked and timed at (the issue's sizes: the
# MLP at 64, the encoder at 8; the others as bench/run.py times them).
batch_of() {
  case "$1" in
    mlp|lenet5) echo 64 ;;
    transformer) echo 8 ;;
    *) echo 32 ;;
  esac
}

# Writes a model's manifest: its inputs, steps, learning rate and losses.
manifest() { # DIR STEPS LR REFERENCE LOSSES_JSONL [TORCH_NAME BATCH]
  "$peers_python" - "$@" <<'EOF'
import json, sys
folder, steps, lr, reference, losses = sys.argv[1:6]
torch_name = sys.argv[6] if len(sys.argv) > 6 else None
batch = int(sys.argv[7]) if len(sys.argv) > 7 else None
values = []
for line in open(losses):
    line = line.strip()
    if line.startswith("{"):
        values.append(json.loads(line)["loss"])
if len(values) != int(steps):
    sys.exit("gpu-check: %s: %d losses for %s steps" % (losses, len(values), steps))
json.dump({"steps": int(steps), "lr": float(lr), "reference": reference,
           "losses": values, "torch_model": torch_name, "batch": batch},
          open(folder + "/manifest.json", "w"), indent=1)
EOF
}

IFS=, read -r -a names <<< "$models"
for name in "${names[@]}"; do
  dest=$staging/models/$name
  mkdir -p "$dest"
  echo "gpu-check: $name"
  if [ "$name" = ort_mlp ]; then
    tapi=$shared/conformance/ort/training_api
    artifacts=(--train "$tapi/training_model.onnx" --eval "$tapi/eval_model.onnx"
               --optimizer "$tapi/adamw.onnx" --checkpoint "$tapi/checkpoint.ckpt")
    cp "$tapi/checkpoint.ckpt" "$dest/checkpoint"
    "$peers_python" "$root/test/e2e/make_ort_data.py" "$tapi" "$work/ort"
    cp "$work/ort/input-0.npy" "$dest/input.npy"
    cp "$work/ort/labels.npy" "$dest/labels.npy"
    input_name=input-0
    "$peers_python" - "$work/ort" > "$work/$name.losses" <<'EOF'
import json, sys
import numpy as np
for i in (1, 2):
    print(json.dumps({"step": i, "loss": float(np.load("%s/loss_%d.npy" % (sys.argv[1], i)))}))
EOF
    "$odt_compile" "${artifacts[@]}" --gpu-arch="$arch" -o "$dest/gpu" --quiet
    manifest "$dest" 2 0.001 "ORT 1.19.2's golden losses" "$work/$name.losses"
  else
    # MODEL@PRECISION: the zoo model MODEL with its products on tensor cores.
    precision=fp32
    case "$name" in
      *@*) precision=${name#*@}; name_base=${name%@*} ;;
      *) name_base=$name ;;
    esac
    batch=$(batch_of "$name_base")
    zoo=$zoo_cache/$name_base
    if [ ! -f "$zoo/input_b$batch.npy" ]; then
      [ -x "$peers_python" ] ||
        { echo "gpu-check: error: no $peers_python (scripts/setup-peers.sh build/peers)" >&2; exit 2; }
      mkdir -p "$zoo_cache"
      "$peers_python" "$root/bench/zoo.py" "$zoo_cache" --only "$name_base" \
        > "$work/zoo.log" 2>&1 || { cat "$work/zoo.log" >&2; exit 1; }
    fi
    folder=$zoo
    case "$name_base" in
      mobilenetv2|resnet18_cifar)
        folder=$zoo/odt
        if [ ! -f "$folder/checkpoint" ]; then
          "$odt_compile" generate-artifacts "$zoo/forward.onnx" -o "$folder" \
            --loss CrossEntropyLoss --quiet
        fi ;;
    esac
    cp "$folder/checkpoint" "$dest/checkpoint"
    cp "$zoo/input_b$batch.npy" "$dest/input.npy"
    cp "$zoo/labels_b$batch.npy" "$dest/labels.npy"
    input_name=input
    "$odt_compile" "$folder" --gpu-arch="$arch" --gpu-precision="$precision" \
      -o "$dest/gpu" --quiet
    # The CPU build of the same artifacts gives the losses to match; at
    # another precision, the GPU loops run on the CPU with the tensor
    # cores' rounding emulated.
    reference="odt's CPU build"
    cpu_options=()
    if [ "$precision" != fp32 ]; then
      reference="odt's CPU build (--gpu-loops-on-cpu, $precision emulated)"
      cpu_options=(--gpu-loops-on-cpu --gpu-precision="$precision")
    fi
    "$odt_compile" "$folder" "${cpu_options[@]}" -o "$work/$name.cpu" --quiet
    "$odt_run" train "$work/$name.cpu" --checkpoint "$dest/checkpoint" \
      --input "input=$dest/input.npy" --input "labels=$dest/labels.npy" \
      --steps 8 --json > "$work/$name.losses"
    if [ "$precision" = fp32 ]; then
      manifest "$dest" 8 0.001 "$reference" "$work/$name.losses" "$name" "$batch"
    else
      manifest "$dest" 8 0.001 "$reference" "$work/$name.losses"
    fi
  fi
  echo "$input_name" > "$dest/input_name"
  # libmodel.so holds the kernels (PTX and cubin) and the descriptor; the
  # rest of the build is for reading, and the folder must stay small (the
  # device tool carries 64 MiB).
  rm -f "$dest/gpu/model.o" "$dest/gpu/model.h" "$dest/gpu/"*.ptx "$dest/gpu/"*.cubin
done
rm -rf "$out"
mv "$staging" "$out"
trap 'rm -rf "$work"' EXIT
echo "gpu-check: $(du -sh "$out" | cut -f1) in $out; on the device machine:"
echo "  python3 $out/gpu-check-device.py $out --out \$OUT"
