#!/usr/bin/env python3
"""Cuts the shipped Fashion-MNIST subset from Debian's dataset-fashion-mnist:

  sudo apt-get install dataset-fashion-mnist
  python3 datasets/cut_fashion_mnist.py

writes datasets/fashion-mnist-subset/ with the first 1,000 training and the first
500 test examples, in the same gzipped IDX format as the full set.
"""
import gzip
import os
import struct

SRC = "/usr/share/datasets/fashion-mnist"
DST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fashion-mnist-subset")
os.makedirs(DST, exist_ok=True)
for prefix, count in (("train", 1000), ("t10k", 500)):
    with gzip.open(f"{SRC}/{prefix}-images-idx3-ubyte.gz") as f:
        magic, n, rows, cols = struct.unpack(">IIII", f.read(16))
        assert magic == 0x803, hex(magic)
        pixels = f.read(count * rows * cols)
    with gzip.GzipFile(f"{DST}/{prefix}-images-idx3-ubyte.gz", "wb", mtime=0) as f:
        f.write(struct.pack(">IIII", magic, count, rows, cols) + pixels)
    with gzip.open(f"{SRC}/{prefix}-labels-idx1-ubyte.gz") as f:
        magic, n = struct.unpack(">II", f.read(8))
        assert magic == 0x801, hex(magic)
        labels = f.read(count)
    with gzip.GzipFile(f"{DST}/{prefix}-labels-idx1-ubyte.gz", "wb", mtime=0) as f:
        f.write(struct.pack(">II", magic, count) + labels)
    print(prefix, count, "examples")
