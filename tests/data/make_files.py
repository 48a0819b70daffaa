#!/usr/bin/python3
"""Writes the small files of tests/data/files/ that ctformer's readers must take as their own
makers write them: .npy files by numpy itself (numpy.save and numpy.lib.format), and a .safetensors
file laid out by the format's rules (tensors ordered by dtype size then name, the JSON header
padded with spaces to a multiple of 8 bytes, as huggingface/safetensors writes it; Debian has no
safetensors package). tests/runtime/files_test.cpp reads them back.

Run with Debian's interpreter, which sees python3-numpy (CI needs none of it: the files are committed):
    /usr/bin/python3 tests/data/make_files.py tests/data/files
"""
import json
import os
import struct
import sys

import numpy as np


def values(shape, dtype=np.float32):
    """0.5·i - 3 for i = 0, 1, ...: each element tells its flat index, the test knows every value."""
    count = int(np.prod(shape)) if shape else 1
    return (0.5 * np.arange(count) - 3).astype(dtype).reshape(shape)


def npy_files(out):
    for name, array in [("f4_2x3", values((2, 3))), ("f4_2x3x4", values((2, 3, 4))), ("f4_5", values((5,))),
                        ("f4_scalar", values(())), ("f4_0x3", values((0, 3))),
                        ("f4_big_endian", values((2, 3), ">f4")), ("f8_2x3", values((2, 3), np.float64)),
                        ("i4_2x3", values((2, 3), np.int32)), ("f4_fortran", np.asfortranarray(values((2, 3))))]:
        np.save(os.path.join(out, name + ".npy"), array)
    ids = np.array([[0, 5, 50256], [7, 2147483647, -1]], np.int64)  # token ids, the largest int32 among them
    for name, array in [("i8_2x3", ids), ("i8_big_endian", ids.astype(">i8")), ("i4_ids_2x3", ids.astype(np.int32)),
                        ("i8_past_int32", np.array([1, 2 ** 31], np.int64))]:
        np.save(os.path.join(out, name + ".npy"), array)
    with open(os.path.join(out, "f4_2x3_version2.npy"), "wb") as f:
        np.lib.format.write_array(f, values((2, 3)), version=(2, 0))


def safetensors_file(out):
    tensors = {"b.f32": values((2, 3)), "a.f16": values((4,), np.float16),
               "c.bf16": (values((2, 2)).view(np.uint32) >> 16).astype(np.uint16)}  # bfloat16: the high half
    dtypes = {"b.f32": "F32", "a.f16": "F16", "c.bf16": "BF16"}
    order = sorted(tensors, key=lambda n: (-tensors[n].dtype.itemsize, n))
    header, data = {"__metadata__": {"format": "pt"}}, b""
    for name in order:
        raw = tensors[name].astype(tensors[name].dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": dtypes[name], "shape": list(tensors[name].shape),
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(os.path.join(out, "three_dtypes.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "files")
    os.makedirs(out, exist_ok=True)
    npy_files(out)
    safetensors_file(out)
    print("numpy", np.__version__, "->", out)
