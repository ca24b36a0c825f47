#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora (corpus/<target>/) and the reproducers of the defects
fuzzing found (crashes/<target>/), from the kit's own files and small hand-made inputs. Python's
standard library only; run from anywhere: python3 grader/fuzz/make_seeds.py"""
import gzip
import json
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def put(kind, target, name, data):
    d = os.path.join(HERE, kind, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def idx(magic, dims, payload):
    return struct.pack(">I", magic) + b"".join(struct.pack(">I", d) for d in dims) + payload


def safetensors(header, data, crc=True):
    """A Kindling checkpoint (crc=True: sealed as encode() seals it) or a plain safetensors file."""
    header = dict(header)
    if crc:
        header["__metadata__"] = dict(header.get("__metadata__", {}), **{"kindling.crc32": "00000000"})
    text = json.dumps(header, separators=(",", ":"))
    text += " " * ((8 - len(text) % 8) % 8)
    if crc:
        c = zlib.crc32(data, zlib.crc32(text.encode()))
        text = text.replace('"kindling.crc32":"00000000"', '"kindling.crc32":"%08x"' % c)
    return struct.pack("<Q", len(text)) + text.encode() + data


def take_apart(file_bytes):
    """load_checkpoint's input: the header with its CRC zeroed (the target re-seals it), a 0 byte, the data."""
    n = struct.unpack("<Q", file_bytes[:8])[0]
    header = file_bytes[8:8 + n].decode()
    meta = json.loads(header).get("__metadata__", {})
    if "kindling.crc32" in meta:
        header = header.replace(meta["kindling.crc32"], "00000000", 1)
    return header.encode() + b"\0" + file_bytes[8 + n:]


# ---- idx: byte 0 is the mode (0-2: read_idx with 1-3 dims; 3: FashionMNIST) ----
labels = idx(0x801, [5], bytes([0, 3, 9, 1, 2]))
images = idx(0x803, [5, 2, 3], bytes(range(30)))
put("corpus", "idx", "labels", b"\x00" + labels)
put("corpus", "idx", "matrix", b"\x01" + idx(0x802, [3, 4], bytes(12)))
put("corpus", "idx", "images", b"\x02" + images)
put("corpus", "idx", "images-gz", b"\x02" + gzip.compress(images, mtime=0))
put("corpus", "idx", "fashion-mnist", b"\x03" + struct.pack(">H", len(images)) + images + labels)
put("corpus", "idx", "fashion-mnist-gz",
    b"\x03" + struct.pack(">H", len(gzip.compress(images, mtime=0))) + gzip.compress(images, mtime=0) +
    gzip.compress(labels, mtime=0))
# found by fuzzing: 16 bytes that claim 1 x 65536 x 65536 images (the old reader zeroed 4 GiB first)
put("crashes", "idx", "claims-4gib", b"\x02" + idx(0x803, [1, 65536, 65536], b""))
put("crashes", "idx", "claims-8gib", b"\x02" + idx(0x803, [2, 65536, 65536], b"\x07" * 100))
put("crashes", "idx", "dim-0xffffffff", b"\x00" + idx(0x801, [0xFFFFFFFF], b"abc"))
# found by fuzzing: {4, 2^31, 2^31} wraps to 0 in 64 bits; FashionMNIST then overflowed numel_of
wrap = idx(0x803, [4, 1 << 31, 1 << 31], b"")
put("crashes", "idx", "dims-wrap-to-zero", b"\x02" + wrap)
put("crashes", "idx", "dims-wrap-fashion-mnist", b"\x03" + struct.pack(">H", len(wrap)) + wrap +
    idx(0x801, [4], bytes(4)))

# ---- csv: byte 0 is the label column (value % 5 - 2) and, in bit 7, whether line 1 is a header ----
with open(os.path.join(ROOT, "grader/tests/week04/data/tiny_images.csv"), "rb") as f:
    put("corpus", "csv", "tiny-images", b"\x84" + f.read())  # column 0 (0x84 % 5 - 2), header
put("corpus", "csv", "last-column", b"\x01" + b"1.5,2,3\r\n4,5e-1,6\n\n7,8,9\n")  # column -1
put("corpus", "csv", "ragged", b"\x80" + b"a,b\n1,2\n3\n")
for name, label in [("label-2p63", b"0x1p63"), ("label-1e300", b"1e300"), ("label-inf", b"inf"),
                    ("label-nan", b"nan"), ("label-minus-1e19", b"-1e19")]:
    # found by fuzzing: an undefined float-to-integer cast in the reference
    put("crashes", "csv", name, b"\x84" + b"label,x\n1,2\n" + label + b",3\n")

# ---- checkpoint_decode: a file's bytes ----
for name in ["python_written.safetensors", "python_checkpoint.safetensors"]:
    with open(os.path.join(ROOT, "grader/tests/week05/data", name), "rb") as f:
        put("corpus", "checkpoint_decode", name, f.read())
put("corpus", "checkpoint_decode", "kindling-every-dtype", safetensors({
    "b": {"dtype": "BOOL", "shape": [2], "data_offsets": [0, 2]},
    "f": {"dtype": "F32", "shape": [1, 2], "data_offsets": [2, 10]},
    "d": {"dtype": "F64", "shape": [], "data_offsets": [10, 18]},
    "i": {"dtype": "I64", "shape": [1], "data_offsets": [18, 26]},
    "j": {"dtype": "I32", "shape": [0, 3], "data_offsets": [26, 26]},
    "u": {"dtype": "U8", "shape": [3], "data_offsets": [26, 29]},
    "__metadata__": {"epoch": "2"}}, b"\x01\x00" + struct.pack("<ffdqBBB", 1.5, -2, 0.25, -7, 1, 2, 3)))
# found by fuzzing: a zero size makes the byte count 0 and the strides overflow; sealed with a valid CRC
put("crashes", "checkpoint_decode", "zero-size-huge-strides",
    safetensors({"a": {"dtype": "F32", "shape": [0, 1 << 62, 1 << 62], "data_offsets": [0, 0]}}, b""))
# found by fuzzing: BOOL bytes other than 0 and 1 (no CRC: a safetensors file from elsewhere)
put("crashes", "checkpoint_decode", "bool-byte-2",
    safetensors({"m": {"dtype": "BOOL", "shape": [3], "data_offsets": [0, 3]}}, b"\x01\x02\x01", crc=False))
put("crashes", "checkpoint_decode", "bool-byte-2-sealed",
    safetensors({"m": {"dtype": "BOOL", "shape": [3], "data_offsets": [0, 3]}}, b"\x01\xff\x01"))

# ---- load_checkpoint: header, 0, data (the target seals the CRC) ----
with open(os.path.join(ROOT, "grader/tests/week05/data/python_checkpoint.safetensors"), "rb") as f:
    put("corpus", "load_checkpoint", "python-adam-two-groups", take_apart(f.read()))
put("crashes", "load_checkpoint", "zero-size-huge-strides", take_apart(
    safetensors({"model.weight": {"dtype": "F32", "shape": [0, 1 << 62, 1 << 62], "data_offsets": [0, 0]}}, b"")))

# ---- grader_state: grade-state.json, history.jsonl or hints.json ----
task = {"id": "week01.view", "title": "view", "status": "passed", "points": 5.0, "max_points": 5.0,
        "perf_points": 1.5, "perf_measured": True, "perf_value": 2.5, "perf_message": "speedup 2.5",
        "message": "", "tests_passed": 4, "tests_skipped": 0, "tests_total": 4, "seconds": 0.12}
put("corpus", "grader_state", "grade-state.json", json.dumps({"tree": "exercises", "tasks": [
    task, dict(task, id="week01.reshape", status="failed", message="Expected equality", points=0)]}, indent=1).encode())
put("corpus", "grader_state", "history.jsonl", b'{"time":"2026-11-25T10:00:00Z","score":5.0,"max_score":21.0,'
    b'"passed":1,"total":3}\n{"time":"2026-11-25T10:05:00Z","score":10.0,"max_score":21.0,"passed":2,"total":3}\n')
put("corpus", "grader_state", "hints.json", b'{"week01.view": 2, "week05.adam": 1}\n')
# found by fuzzing: an undefined double-to-int conversion of a count
put("crashes", "grader_state", "tests-passed-1e300", json.dumps({"tasks": [dict(task, tests_passed=1e300)]}).encode())
put("crashes", "grader_state", "history-passed-1e300", b'{"time":"t","score":1,"max_score":2,"passed":1e300,"total":1}\n')

# ---- grader_results: a test program's GoogleTest JSON or a benchmark's JSON ----
put("corpus", "grader_results", "gtest.json", json.dumps({"testsuites": [{"name": "week01_view", "testsuite": [
    {"name": "A", "result": "COMPLETED"}, {"name": "B", "result": "SKIPPED"},
    {"name": "C", "failures": [{"failure": "view_test.cpp:12\nExpected equality", "type": ""}]},
    {"name": "D", "failures": [{"failure": "[not implemented] week01.view: see exercises/...", "type": ""}]}]}]}).encode())
put("corpus", "grader_results", "bench.json", json.dumps({"context": {}, "benchmarks": [
    {"name": "BM_View_median", "aggregate_name": "median", "speedup": 2.5, "ratio": 1.2},
    {"name": "BM_View_mean", "aggregate_name": "mean", "speedup": 9.0}]}).encode())
# found by fuzzing: results of an unexpected shape threw out of the whole grading run
put("crashes", "grader_results", "testsuites-of-numbers", b'{"testsuites":[1]}')
put("crashes", "grader_results", "counter-is-a-string",
    b'{"benchmarks":[{"name":"BM_View","aggregate_name":"median","speedup":"fast"}]}')
