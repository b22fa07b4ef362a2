#!/usr/bin/env python3
"""Builds the ZIP shapes that once made tamga read one archive where other readers read another.

    make-ambiguous-zip.py SHAPE IN.asice OUT.asice TEXT

SHAPE is one of:
  appended                       a second archive (contract.txt = TEXT) after IN, IN's end-record
                                 comment covering it exactly: readers that take the last end record
                                 read TEXT, a reader that takes the end record whose comment runs to
                                 the end of the file reads IN
  appended-missing-comment-byte  the same, with the second end record claiming a 1-byte comment
                                 that is not there
  zip64-locator                  a ZIP64 end record and locator between IN's central directory and
                                 its end record, pointing at another central directory (TEXT):
                                 Python's zipfile follows it, readers that look at ZIP64 only for
                                 saturated fields do not
  trailing-bytes                 three bytes after the end record that its comment does not cover
  plain-comment                  a text comment (no record signature): one reading, still valid

The second archive's entry is stored, with offsets absolute in OUT. Test tool (standard library only).
"""

import struct, sys, zlib
shape, src, dst, text = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].encode()
a = bytearray(open(src, "rb").read())
eocd = a.rfind(b"PK\x05\x06")
assert eocd == len(a) - 22, "the base archive has no comment"

def archive(base, name=b"contract.txt", data=text):
    """A stored one-entry archive whose first byte will sit at offset base."""
    crc = zlib.crc32(data)
    local = struct.pack("<IHHHHHIIIHH", 0x04034b50, 20, 0x800, 0, 0, 0x21, crc, len(data), len(data), len(name), 0) + name + data
    central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 20, 20, 0x800, 0, 0, 0x21, crc, len(data), len(data),
                          len(name), 0, 0, 0, 0, 0, base) + name
    return local, central

if shape in ("appended", "appended-missing-comment-byte"):
    local, central = archive(len(a))
    missing = 1 if shape == "appended-missing-comment-byte" else 0
    b = local + central + struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, 1, 1, len(central), len(a) + len(local), missing)
    struct.pack_into("<H", a, eocd + 20, len(b))          # A's comment covers all of B
    out = a + b
elif shape == "zip64-locator":
    # [A's entries][A's central directory][Mallory's entry and central directory]
    # [ZIP64 end record -> Mallory's directory][locator][A's end record, unchanged]
    cd_end = eocd
    local, central = archive(cd_end)
    injected = local + central
    m_cd = cd_end + len(local)
    z64 = struct.pack("<IQHHIIQQQQ", 0x06064b50, 44, 45, 45, 0, 0, 1, 1, len(central), m_cd)
    locator = struct.pack("<IIQI", 0x07064b50, 0, cd_end + len(injected), 1)
    out = a[:cd_end] + injected + z64 + locator + a[eocd:]
elif shape == "trailing-bytes":
    out = a + b"PAD"
elif shape == "plain-comment":
    comment = b"signed with tamga"
    struct.pack_into("<H", a, eocd + 20, len(comment))
    out = a + comment
else:
    raise SystemExit("unknown shape " + shape)
open(dst, "wb").write(out)
