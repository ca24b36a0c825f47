#!/usr/bin/env bash
# kit.train_cuda: `kindling-train --device cuda` trains the MLP and the CNN on the CUDA simulator (a
# short, small configuration each), the loss falls, and every epoch's training and test losses agree
# with the same run on the CPU within 1e-3 (the device adds in other orders).
# Usage: train_cuda.sh KINDLING_TRAIN BUILD_DIR
set -euo pipefail
train=$1
out=$2/kit-results/train-cuda
mkdir -p "$out"
# "cnn epoch 1: train loss 2.2585 acc 16.41% | test loss 2.0773 acc 27.50% | 0.8 s" -> "2.2585 2.0773"
losses() { sed -n 's/^[a-z]* epoch [0-9]*: train loss \([0-9.]*\) .* test loss \([0-9.]*\) .*/\1 \2/p' "$1"; }
for run in "mlp 200" "cnn 64"; do
  read -r model tests <<< "$run"
  args=(--model "$model" --epochs 3 --max-batches 4 --batch-size 32 --test-examples "$tests" --seed 0)
  "$train" "${args[@]}" --device cpu --out "$out/cpu" > "$out/$model-cpu.log"
  "$train" "${args[@]}" --device cuda --out "$out/cuda" > "$out/$model-cuda.log"
  cat "$out/$model-cuda.log"
  grep -q "on simulator\|on device" "$out/$model-cuda.log" || { echo "the run does not say where it ran"; exit 1; }
  paste <(losses "$out/$model-cpu.log") <(losses "$out/$model-cuda.log") | awk -v model="$model" '
    { n++; d1 = $1 - $3; d2 = $2 - $4; if (d1 < 0) d1 = -d1; if (d2 < 0) d2 = -d2
      if (d1 > 1e-3 || d2 > 1e-3) { printf "%s epoch %d: cpu %s %s, cuda %s %s\n", model, n, $1, $2, $3, $4; bad = 1 }
      if (n == 1) first = $3; last = $3 }
    END { if (n != 3) { print model ": expected 3 epochs, got " n; exit 1 }
          if (last >= first) { print model ": the loss did not fall on cuda: " first " -> " last; exit 1 }
          if (bad) exit 1
          print model ": cuda agrees with cpu on 3 epochs; training loss " first " -> " last }'
done
