"""Seeds of the diff fuzz target (fuzz/diff_fuzz.cpp): [word size index][page words, u16
big-endian][twin][page][optional encoded diff]. Word size index: 0:4 1:8 2:1 3:2 4:3 5:16."""
import pathlib
import random
import struct
import sys

out = pathlib.Path(sys.argv[1])
random.seed(17)


def seed(name, wsi, words, ws, twin, page, enc=b""):
    assert len(twin) == len(page) == words * ws
    (out / name).write_bytes(bytes([wsi, words >> 8, words & 0xFF]) + twin + page + enc)


# A 4 KB page of 4-byte words: a rewritten stretch, single bytes, every third byte of a stretch.
twin = bytes(random.randrange(256) for _ in range(4096))
page = bytearray(twin)
for i in range(100, 164):
    page[i] ^= 0xFF
page[1000] ^= 1
page[4095] ^= 0x80
for i in range(2048, 2600, 3):
    page[i] ^= 0x5A
seed("page4k_w4", 0, 1024, 4, twin, bytes(page))
# 16 words of 8 bytes, some bytes of a word changed (a masked run); a valid masked encoding.
twin = bytes(range(128))
page = bytearray(twin)
page[9] = page[10] = 0xEE
page[40:56] = b"\x11" * 16
seed("w8_masked", 1, 16, 8, twin, bytes(page), struct.pack("<II", 1, 2 | 0x80000000) + bytes(16) + bytes([0x0F, 0xF0]))
# Byte words, the whole page rewritten; an unmasked run, then a truncated one.
seed("w1_all", 2, 64, 1, bytes(64), bytes([7] * 64), struct.pack("<II", 3, 4) + b"abcd" + struct.pack("<II", 60, 4))
# 3-byte words (no fast path), every other word changed.
page = bytearray(99)
for w in range(0, 33, 2):
    page[w * 3 + 1] = 1
seed("w3_alternate", 4, 33, 3, bytes(99), bytes(page))
