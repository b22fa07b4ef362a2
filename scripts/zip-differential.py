#!/usr/bin/python3
"""Differential ZIP corpus: build tricky archives and read each with independent ZIP readers.

Why
---
tamga must read a ZIP archive only when every mainstream ZIP reader would read the same entry
names and bytes; otherwise it must refuse (the classic attack is an archive whose "contract.txt"
is "Pay 100 EUR to Alice." for one reader and "Pay 999999 EUR to Mallory." for another). This
script generates several thousand hand-built archives (valid ones, known attack shapes, and
seeded random mutations of both) and records what five independent readers deliver for each.
The Swift XCTest reads every archive with tamga's reader in-process and compares: whenever tamga
accepts an archive, every reader here must have opened it and delivered exactly the same
entries.

Usage
-----
    /usr/bin/python3 scripts/zip-differential.py OUTDIR [--seed N] [--count N] [--jobs N] [--only FAMILY]

    --seed N       seed for random.Random (default 1); output is deterministic for a seed
    --count N      approximate total number of cases (default 3000)
    --jobs N       parallel workers running the readers (default 2)
    --only FAMILY  generate and read only this family; its cases get the same ids and bytes as
                   in a full run with the same --seed and --count

Standard library only. Needs /usr/bin/unzip (Debian package unzip), /usr/bin/bsdtar
(libarchive-tools) and /usr/bin/miniunzip (minizip); exits 2 naming the package if one is
missing, 0 otherwise (disagreements between readers are data, not failures).

Output
------
OUTDIR/cases/<id>.zip   one archive per case (id: zero-padded number, e.g. 00017)
OUTDIR/readings.json    {"readers": {name: version string},
                         "cases": [{"id": "00017", "file": "cases/00017.zip",
                                    "family": "appended-archive",
                                    "description": "short human text of what was done",
                                    "readers": {"python": R, "unzip": R, "bsdtar": R,
                                                "bsdtar-stream": R, "miniunzip": R}}, ...]}
  R = {"opened": bool, "entries": {NAMEHEX: SHA256HEX}, "error": "short text or empty"}

NAMEHEX is the hex of the entry name's raw bytes as that reader reports it (for extracting
readers: the path it wrote, relative to the extraction directory, "/"-separated; a name that
climbs out with ".." keeps its "../"). "entries" holds only regular files the reader actually
delivered bytes for (directories, symlinks and other special files are left out; special files
are mentioned in "error"). "opened" is true only when the reader got through the whole archive
without error; a reader that failed part-way has opened=false and still lists what it delivered.
With opened=true, "error" may still hold a warning (unzip exit status 1, bsdtar messages on
stderr with exit status 0). When a reader delivers one name twice, the later copy wins
(extractors overwrite; the Python reader does the same) and "error" gets a warning naming it
(python, bsdtar, bsdtar-stream and miniunzip list their deliveries; unzip -qq does not).

Readers
-------
python         zipfile.ZipFile (CPython 3.11) on the bytes; zf.open(info) for every infolist()
               entry (CRC checked). Names: orig_filename re-encoded as zipfile decoded it (utf-8
               when flag bit 11 is set, else cp437), i.e. the raw bytes.
unzip          Info-ZIP UnZip 6.0: unzip -o -qq FILE -d DIR; exit 0 or 1 (warnings) = opened.
bsdtar         libarchive, seekable mode: bsdtar -xvf FILE -C DIR (-v only to list deliveries).
bsdtar-stream  libarchive, streaming mode (local headers in order, like Java's ZipInputStream
               that SiVa/DSS use): the bytes through a pipe, bsdtar -xvf - -C DIR.
miniunzip      zlib's minizip (what libdigidocpp uses): miniunzip -x -o FILE -d DIR. It exits 0
               after most errors, so its output is parsed: any line other than its banner and
               "extracting:"/"creating directory:" progress counts as an error.

The external readers run in --jobs worker processes. Each worker drops to uid/gid 65534 when
started as root (so that a reader writing an absolute or "../" name as given cannot touch the
system; zlib's miniunz.c demo does no name checks, Debian's build strips such names),
has no controlling terminal (so no reader can stop to prompt for a password), a 64 MiB limit per
written file (RLIMIT_FSIZE) and a 10 s timeout per call; extraction happens in a private
directory on /dev/shm that is emptied after every call. A minizip run whose entry names would
land outside that directory somewhere writable is not started at all (error says so).

Families (the v_* variant functions, listed in FAMILIES): valid, appended-archive,
zip64-locator-injected, prefix, suffix, overlapping, duplicate-central, lying-local,
data-descriptor, zip64, comments, hidden-entries, names (kept small), mutations (most of the
count). "valid" holds only shapes every reader opens identically.

Reader quirks seen on Debian 12 (seed 1), useful when reading the results:
* python, unzip, bsdtar and miniunzip all take the last PK\5\6 (appended archive B wins);
  bsdtar-stream reads A's local headers and stops at A's central directory.
* python, bsdtar and miniunzip follow a ZIP64 end record + locator even when the EOCD is not
  saturated; python takes the 56 bytes right before the locator, the others the locator's
  offset; unzip mostly fails on such archives.
* miniunzip exits 0 after errors; it ignores flag bit 0 without a password; Debian's minizip
  never applies a central ZIP64 extra; it refuses an empty archive and nthis != ntotal.
* bsdtar (seekable) names entries by the local header and fails on bytes after a deflate stream
  inside the compressed size; bsdtar-stream cannot end a stored bit-3 entry without a signed
  descriptor, stops such an entry at the first plausible PK\7\8, and rejects 64-bit descriptors
  on small entries; both bsdtar modes turn NFD names into NFC and honour 0x7075 (as unzip does).
* Debian's python3.11 has the backported "Overlapped entries" check.
"""

import argparse
import concurrent.futures
import functools
import hashlib
import io
import json
import os
import platform
import random
import resource
import select
import signal
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
import time
import unicodedata
import zipfile
import zlib

# ---------------------------------------------------------------------------------------------
# ZIP records, written by hand
# ---------------------------------------------------------------------------------------------

SIG_LOCAL = b"PK\x03\x04"
SIG_CENTRAL = b"PK\x01\x02"
SIG_EOCD = b"PK\x05\x06"
SIG_Z64EOCD = b"PK\x06\x06"
SIG_Z64LOC = b"PK\x06\x07"
SIG_DD = b"PK\x07\x08"

STORED, DEFLATE = 0, 8
SAT16, SAT32 = 0xFFFF, 0xFFFFFFFF
DOS_TIME = 0x6000                                  # 12:00:00
DOS_DATE = ((2024 - 1980) << 9) | (1 << 5) | 1     # 2024-01-01
MADE_BY_UNIX = (3 << 8) | 30                       # host 3 = Unix, so eattr holds a mode
FILE_ATTR = 0o100644 << 16
DIR_ATTR = (0o40755 << 16) | 0x10

MIMETYPE = b"application/vnd.etsi.asic-e+zip"
ALICE = b"Pay 100 EUR to Alice."
MALLORY = b"Pay 999999 EUR to Mallory."


@functools.lru_cache(maxsize=4096)
def deflate(data, level=6):
    """Raw deflate (no zlib header), as ZIP method 8 stores it."""
    c = zlib.compressobj(level, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def z64_extra(values):
    """ZIP64 extended information extra field (id 0x0001) holding the given 8-byte values."""
    return struct.pack("<HH", 1, 8 * len(values)) + b"".join(struct.pack("<Q", v) for v in values)


def unicode_path_extra(header_name, unicode_name, crc=None):
    """Info-ZIP Unicode Path extra field (0x7075): version 1, CRC-32 of the header name, UTF-8."""
    crc = zlib.crc32(header_name) if crc is None else crc
    body = struct.pack("<BI", 1, crc) + unicode_name
    return struct.pack("<HH", 0x7075, len(body)) + body


def ext_time_extra():
    """Extended timestamp extra field (0x5455) with mtime: a common, harmless extra field."""
    return struct.pack("<HHBI", 0x5455, 5, 1, 1704110400)


def unix_extra():
    """Info-ZIP Unix UID/GID extra field (0x7875): another common one."""
    return struct.pack("<HHBBIBI", 0x7875, 11, 1, 4, 1000, 4, 1000)


class Entry:
    """One archive entry with the knobs the families need.

    dd: None, "sig" (descriptor with PK\\7\\8), "nosig" or "missing" (bit 3 set, no descriptor).
    dd64: 8-byte sizes in the descriptor (automatic when z64l is set).
    dd_real: keep the real CRC/sizes in the local header although bit 3 is set.
    z64l / z64c: None, "sat" (header fields 0xFFFFFFFF, values in a ZIP64 extra) or "unsat"
        (ZIP64 extra present though not needed; header holds the real values).
    lo / co / ddo: overrides of local header, central header and descriptor fields by name.
    raw: bytes stored as the entry's compressed data instead of compressing data.
    tail: bytes appended inside the compressed region (after the deflate stream ends).
    """

    def __init__(self, name, data=b"", method=DEFLATE, *, level=6, dd=None, dd64=False,
                 dd_real=False, z64l=None, z64c=None, flags=0, xl=b"", xc=b"", comment=b"",
                 utf8=None, eattr=None, lo=None, co=None, ddo=None, raw=None, tail=b""):
        self.name = name.encode("utf-8") if isinstance(name, str) else name
        self.data, self.method, self.level = data, method, level
        self.dd, self.dd64, self.dd_real = dd, dd64, dd_real
        self.z64l, self.z64c = z64l, z64c
        self.xflags = flags
        self.utf8 = (not self.name.isascii()) if utf8 is None else utf8
        self.xl, self.xc, self.comment = xl, xc, comment
        self.eattr = eattr
        self.lo, self.co, self.ddo = dict(lo or {}), dict(co or {}), dict(ddo or {})
        self.raw, self.tail = raw, tail

    @property
    def flags(self):
        return self.xflags | (0x800 if self.utf8 else 0) | (0x8 if self.dd else 0)

    @property
    def body(self):
        if self.raw is not None:
            b = self.raw
        elif self.method == DEFLATE:
            b = deflate(self.data, self.level)
        else:
            b = self.data
        return b + self.tail

    @property
    def crc(self):
        return zlib.crc32(self.data)

    def version(self):
        return 45 if (self.z64l or self.z64c or self.dd64) else 20


def local_header(e):
    body = e.body
    crc, cs, us = e.crc, len(body), len(e.data)
    if e.dd and not e.dd_real:
        crc = cs = us = 0
    extra = e.xl
    if e.z64l:
        extra = z64_extra([us, cs]) + extra
        if e.z64l == "sat":
            cs = us = SAT32
    f = dict(version=e.version(), flags=e.flags, method=e.method, time=DOS_TIME, date=DOS_DATE,
             crc=crc, csize=cs, usize=us, name=e.name, extra=extra)
    f.update(e.lo)
    return struct.pack("<4sHHHHHIIIHH", SIG_LOCAL, f["version"], f["flags"], f["method"],
                       f["time"], f["date"], f["crc"], f["csize"], f["usize"],
                       f.get("nlen", len(f["name"])), f.get("xlen", len(f["extra"]))
                       ) + f["name"] + f["extra"]


def descriptor(e):
    if e.dd in (None, "missing"):
        return b""
    f = dict(crc=e.crc, csize=len(e.body), usize=len(e.data))
    f.update(e.ddo)
    fmt = "<IQQ" if (e.dd64 or e.z64l) else "<III"
    return (SIG_DD if e.dd == "sig" else b"") + struct.pack(fmt, f["crc"], f["csize"], f["usize"])


def local_record(e):
    return local_header(e) + e.body + descriptor(e)


def central_header(e, offset):
    cs, us, off = len(e.body), len(e.data), offset
    extra = e.xc
    if e.z64c:
        extra = z64_extra([us, cs, off]) + extra
        if e.z64c == "sat":
            cs = us = off = SAT32
    is_dir = e.name.endswith(b"/")
    f = dict(made=MADE_BY_UNIX, version=e.version(), flags=e.flags, method=e.method,
             time=DOS_TIME, date=DOS_DATE, crc=e.crc, csize=cs, usize=us, name=e.name,
             extra=extra, comment=e.comment, disk=0, iattr=0,
             eattr=e.eattr if e.eattr is not None else (DIR_ATTR if is_dir else FILE_ATTR),
             offset=off)
    f.update(e.co)
    return struct.pack("<4sHHHHHHIIIHHHHHII", SIG_CENTRAL, f["made"], f["version"], f["flags"],
                       f["method"], f["time"], f["date"], f["crc"], f["csize"], f["usize"],
                       f.get("nlen", len(f["name"])), f.get("xlen", len(f["extra"])),
                       f.get("clen", len(f["comment"])), f["disk"], f["iattr"], f["eattr"],
                       f["offset"]) + f["name"] + f["extra"] + f["comment"]


def eocd_record(n, cdsize, cdoff, comment=b"", *, clen=None, nthis=None, disk=0, cddisk=0):
    return struct.pack("<4sHHHHIIH", SIG_EOCD, disk, cddisk, n if nthis is None else nthis, n,
                       cdsize, cdoff, len(comment) if clen is None else clen) + comment


def z64_record(n, cdsize, cdoff, ext=b"", *, size=None, nthis=None, disk=0, cddisk=0,
               made=45, version=45):
    return struct.pack("<4sQHHIIQQQQ", SIG_Z64EOCD, 44 + len(ext) if size is None else size,
                       made, version, disk, cddisk, n if nthis is None else nthis, n, cdsize,
                       cdoff) + ext


def z64_locator(offset, *, disk=0, ndisks=1):
    return struct.pack("<4sIQI", SIG_Z64LOC, disk, offset, ndisks)


def locals_blob(entries, start=0, shift=0):
    """Local records back to back; returns (bytes, offsets as written in the central headers)."""
    out, offs = bytearray(), []
    for e in entries:
        offs.append(start + len(out) - shift)
        out += local_record(e)
    return bytes(out), offs


def cd_blob(entries, offsets):
    return b"".join(central_header(e, o) for e, o in zip(entries, offsets))


class Built:
    """A built archive and where its parts are (absolute file positions)."""

    def __init__(self, data, offsets, cd_pos, cd_size, eocd_pos, z64_pos=None):
        self.data, self.offsets = data, offsets
        self.cd_pos, self.cd_size, self.eocd_pos, self.z64_pos = cd_pos, cd_size, eocd_pos, z64_pos


def build(entries, *, comment=b"", prefix=b"", shift=0, gaps=None, before_cd=b"", after_cd=b"",
          z64end=None, z64o=None, loco=None, eocd=None, suffix=b"", cd_entries=None):
    """A correct archive from entries, with hooks for the mutations.

    prefix/shift: bytes before the first local header; offsets are written as position - shift
        (shift 0 = corrected, self-extractor style; shift len(prefix) = uncorrected).
    gaps: {index: bytes} inserted before entry index (not listed anywhere).
    z64end: None, "unsat" (ZIP64 end record + locator, EOCD keeps real values) or "sat"
        (EOCD fields saturated); z64o / loco / eocd: overrides for those records.
    cd_entries: list of (entry, index of the local record it points at) to write as the central
        directory instead of one record per entry.
    """
    out = bytearray(prefix)
    offsets = []
    for i, e in enumerate(entries):
        if gaps and i in gaps:
            out += gaps[i]
        offsets.append(len(out) - shift)
        out += local_record(e)
    out += before_cd
    cd_pos = len(out)
    if cd_entries is None:
        cd = cd_blob(entries, offsets)
        n = len(entries)
    else:
        cd = b"".join(central_header(e, offsets[i]) for e, i in cd_entries)
        n = len(cd_entries)
    out += cd
    out += after_cd
    z64_pos = None
    if z64end:
        z64_pos = len(out)
        f = dict(n=n, cdsize=len(cd), cdoff=cd_pos - shift)
        f.update(z64o or {})
        out += z64_record(f.pop("n"), f.pop("cdsize"), f.pop("cdoff"), **f)
        l = dict(offset=z64_pos - shift)
        l.update(loco or {})
        out += z64_locator(l.pop("offset"), **l)
    f = dict(n=n, cdsize=len(cd), cdoff=cd_pos - shift, comment=comment)
    if z64end == "sat":
        f.update(n=SAT16, cdsize=SAT32, cdoff=SAT32)
    f.update(eocd or {})
    eocd_pos = len(out)
    out += eocd_record(f.pop("n"), f.pop("cdsize"), f.pop("cdoff"), f.pop("comment"), **f)
    out += suffix
    return Built(bytes(out), offsets, cd_pos, len(cd), eocd_pos, z64_pos)


def set_u16(data, pos, value):
    return data[:pos] + struct.pack("<H", value & SAT16) + data[pos + 2:]


# ---------------------------------------------------------------------------------------------
# Content
# ---------------------------------------------------------------------------------------------

WORDS = ("the of and to in contract party payment shall amount due date signed agreement "
         "seller buyer goods delivery invoice euro clause term notice law court annex").split()


def text(rng, lo=20, hi=400):
    n = rng.randint(lo, hi)
    out, size = [], 0
    while size < n:
        w = rng.choice(WORDS)
        out.append(w)
        size += len(w) + 1
    return (" ".join(out) + ".\n").encode()


def binary(rng, n):
    return rng.randbytes(n)


def manifest(names):
    lines = ['<?xml version="1.0" encoding="UTF-8" standalone="no" ?>',
             '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:'
             'manifest:1.0" manifest:version="1.2">',
             '<manifest:file-entry manifest:full-path="/" manifest:media-type="'
             'application/vnd.etsi.asic-e+zip"/>']
    for n in names:
        lines.append('<manifest:file-entry manifest:full-path="%s" manifest:media-type='
                     '"text/plain"/>' % n)
    lines.append("</manifest:manifest>")
    return ("\n".join(lines) + "\n").encode()


def signature_xml(rng):
    blob = rng.randbytes(rng.randint(200, 1500)).hex()
    return ('<?xml version="1.0" encoding="UTF-8"?><asic:XAdESSignatures xmlns:asic="http://'
            'uri.etsi.org/02918/v1.2.1#"><ds:Signature xmlns:ds="http://www.w3.org/2000/09/'
            'xmldsig#" Id="S0"><ds:SignatureValue>%s</ds:SignatureValue></ds:Signature>'
            '</asic:XAdESSignatures>' % blob).encode()


def asice_entries(rng, contract=ALICE, *, vary=True):
    """A typical ASiC-E: stored mimetype first, contract.txt (index 1), manifest, signature."""
    c_method = rng.choice((STORED, DEFLATE)) if vary else DEFLATE
    files = [Entry("contract.txt", contract, c_method)]
    if vary and rng.random() < 0.3:
        files.append(Entry("annex.bin", binary(rng, rng.randint(10, 3000)),
                           rng.choice((STORED, DEFLATE))))
    names = [f.name.decode() for f in files]
    return ([Entry("mimetype", MIMETYPE, STORED)] + files +
            [Entry("META-INF/manifest.xml", manifest(names)),
             Entry("META-INF/signatures0.xml", signature_xml(rng))])


def mallory_entry(rng, name="contract.txt"):
    return Entry(name, MALLORY, rng.choice((STORED, DEFLATE)))


# ---------------------------------------------------------------------------------------------
# Families. Each variant is a function rng -> (description, archive bytes). A family's cases
# cycle through its variants; every call draws fresh content and incidental shape from rng.
# ---------------------------------------------------------------------------------------------

def v_valid_asice(rng):
    return "typical ASiC-E (stored mimetype, deflated files)", build(asice_entries(rng)).data


def v_valid_asice_dd(rng):
    es = asice_entries(rng, vary=False)
    for e in es[1:]:
        e.dd = "sig"
    return "ASiC-E, deflated entries with signed data descriptors", build(es).data


def v_valid_asice_dd_nosig(rng):
    es = asice_entries(rng, vary=False)
    for e in es[1:]:
        e.dd = "nosig"
    return "ASiC-E, deflated entries with unsigned data descriptors", build(es).data


def v_valid_stored(rng):
    es = [Entry("f%d.txt" % i, text(rng), STORED) for i in range(rng.randint(1, 6))]
    return "all entries stored", build(es).data


def v_valid_deflated(rng):
    es = [Entry("f%d.txt" % i, text(rng), DEFLATE, level=rng.randint(0, 9))
          for i in range(rng.randint(1, 6))]
    return "all entries deflated, random levels 0-9", build(es).data


def v_valid_dirs(rng):
    es = [Entry("META-INF/", b"", STORED), Entry("a/", b"", STORED),
          Entry("a/b.txt", text(rng)), Entry("a/c/d.txt", text(rng), STORED)]
    return "directory entries and nested files", build(es).data


def v_valid_empty(rng):
    es = [Entry("empty-stored.txt", b"", STORED), Entry("empty-deflated.txt", b"", DEFLATE),
          Entry("x.txt", text(rng))]
    return "empty files, stored and deflated", build(es).data


def v_valid_single(rng):
    return "one deflated entry", build([Entry("contract.txt", text(rng))]).data


def v_empty_archive(rng):
    return "empty archive (only an EOCD; minizip refuses it, unzip warns)", build([]).data


def v_valid_comment(rng):
    es = asice_entries(rng)
    return "archive comment (plain text)", build(es, comment=text(rng, 5, 200).strip()).data


def v_valid_entry_comments(rng):
    es = asice_entries(rng)
    for e in es[1:]:
        e.comment = text(rng, 3, 60).strip()
    return "entry comments in the central directory", build(es).data


def v_valid_extras(rng):
    es = asice_entries(rng)
    for e in es[1:]:
        e.xl = ext_time_extra() + unix_extra()
        e.xc = ext_time_extra()
    return "extended-timestamp and unix extra fields", build(es).data


def v_valid_utf8_flag(rng):
    es = asice_entries(rng)
    for e in es:
        e.utf8 = True
    return "ASCII names with flag bit 11 (UTF-8) set", build(es).data


def v_valid_many(rng):
    es = [Entry("dir%d/file%03d.txt" % (i % 4, i), text(rng, 0, 100), rng.choice((0, 8)))
          for i in range(rng.randint(30, 120))]
    return "many small entries", build(es).data


def v_valid_large(rng):
    big = text(rng, 50000, 150000) * rng.randint(1, 3)
    es = [Entry("big.txt", big), Entry("rand.bin", binary(rng, rng.randint(20000, 80000)),
                                       rng.choice((0, 8)))]
    return "large entries (compressible text, random bytes)", build(es).data


def v_valid_binary(rng):
    es = [Entry("b%d.bin" % i, binary(rng, rng.randint(1, 4000)), rng.choice((0, 8)))
          for i in range(rng.randint(1, 5))]
    return "random binary content", build(es).data


def v_valid_z64_unsat_extras(rng):
    es = asice_entries(rng)
    for e in es[1:]:
        e.z64l = e.z64c = "unsat"
    return "ZIP64 extra fields present though not needed (header holds real values)", \
        build(es).data


def v_z64_central_sat(rng):
    es = asice_entries(rng)
    for e in es[1:]:
        e.z64l = e.z64c = "sat"
    return ("well-formed ZIP64 entries: header sizes/offset 0xFFFFFFFF, values in ZIP64 "
            "extras (minizip cannot read these)"), \
        build(es, z64end="sat").data


def v_valid_z64_end_unsat(rng):
    return "ZIP64 end record + locator, EOCD with real (unsaturated) values", \
        build(asice_entries(rng), z64end="unsat").data


def v_valid_z64_end_sat(rng):
    return "ZIP64 end record + locator, EOCD fields saturated", \
        build(asice_entries(rng), z64end="sat").data


def v_z64_streamed(rng):
    es = asice_entries(rng, vary=False)
    for e in es[1:]:
        e.dd, e.z64l, e.z64c = "sig", "sat", "sat"
    return ("well-formed streamed ZIP64 entries: bit 3, ZIP64 extras, 64-bit descriptors "
            "(minizip cannot read these)"), \
        build(es, z64end="sat").data


VALID = [v_valid_asice, v_valid_asice_dd, v_valid_asice_dd_nosig, v_valid_stored,
         v_valid_deflated, v_valid_dirs, v_valid_empty, v_valid_single, v_valid_comment,
         v_valid_entry_comments, v_valid_extras, v_valid_utf8_flag, v_valid_many,
         v_valid_large, v_valid_binary, v_valid_z64_unsat_extras, v_valid_z64_end_unsat,
         v_valid_z64_end_sat]
# Well-formed shapes that some reader refuses, so they are not in "valid" (all readers must open
# those) but in the family named in the comment:
#   v_empty_archive (duplicate-central): minizip's unzOpen fails on 0 entries; unzip warns.
#   v_z64_central_sat, v_z64_streamed (zip64): Debian's minizip 1.1 never applies a central
#   ZIP64 extra (the sizes/offset stay 0xFFFFFFFF), so it fails with -103 (UNZ_BADZIPFILE).


# --- appended-archive -------------------------------------------------------------------------

def _appended(rng, *, relative=False, b_clen=None, desc):
    """A (Alice) + B (Mallory) where A's comment length covers all of B exactly."""
    a = build(asice_entries(rng))
    b_entries = [mallory_entry(rng)]
    shift = len(a.data) if relative else 0
    eocd = {} if b_clen is None else {"clen": b_clen}
    b = build(b_entries, prefix=a.data, shift=shift, eocd=eocd)
    tail = b.data[len(a.data):]
    data = set_u16(a.data, a.eocd_pos + 20, len(tail)) + tail
    return desc, data


def v_app_absolute(rng):
    return _appended(rng, desc="A's comment covers appended archive B (Mallory), B's offsets "
                               "absolute")


def v_app_relative(rng):
    return _appended(rng, relative=True, desc="A's comment covers appended archive B "
                                              "(Mallory), B's offsets relative to B")


def v_app_missing_byte(rng):
    return _appended(rng, b_clen=1, desc="appended B whose EOCD claims a 1-byte comment that "
                                          "is missing")


def v_app_plain_concat(rng):
    a = build(asice_entries(rng))
    b = build([mallory_entry(rng)], prefix=a.data)
    return "A then B concatenated, A's comment length 0 (not covering B)", b.data


def _stored_blob_with(rng, hidden, *, with_cd=False, blob_name="annex.bin"):
    """Entries of A where a stored entry's data holds hidden records; returns (entries,
    position of hidden bytes inside the blob data)."""
    pad1, pad2 = binary(rng, rng.randint(0, 40)), binary(rng, rng.randint(0, 40))
    es = asice_entries(rng)
    blob = Entry(blob_name, pad1 + hidden + pad2, STORED)
    return es[:2] + [blob] + es[2:], len(pad1)


def v_app_cd_into_data(rng):
    m = mallory_entry(rng)
    hidden_local = local_record(m)
    es, inner = _stored_blob_with(rng, hidden_local)
    a = build(es)
    blob_i = 2
    blob_data_pos = a.offsets[blob_i] + 30 + len(es[blob_i].name)
    hidden_pos = blob_data_pos + inner
    cd = central_header(es[0], a.offsets[0]) + central_header(m, hidden_pos)
    tail = cd + eocd_record(2, len(cd), len(a.data))
    data = set_u16(a.data, a.eocd_pos + 20, len(tail)) + tail
    return ("appended B (CD + EOCD only) whose contract.txt points at a local header hidden "
            "in A's stored annex.bin"), data


def v_app_only_eocd_fewer(rng):
    es = asice_entries(rng, vary=False)
    es.insert(2, mallory_entry(rng, "contract2.txt"))
    a = build(es)
    # B = just an EOCD listing A's central directory minus its first record (mimetype).
    first = len(central_header(es[0], a.offsets[0]))
    tail = eocd_record(len(es) - 1, a.cd_size - first, a.cd_pos + first)
    data = set_u16(a.data, a.eocd_pos + 20, len(tail)) + tail
    return "appended B is only an EOCD pointing into A's CD, skipping its first record", data


def v_app_only_eocd_hidden_cd(rng):
    m = mallory_entry(rng)
    # The blob holds Mallory's local record and a CD for it; offsets fixed after placement.
    loc = local_record(m)
    dummy_cd = central_header(m, 0)
    es, inner = _stored_blob_with(rng, loc + dummy_cd)
    a = build(es)
    blob_data_pos = a.offsets[2] + 30 + len(es[2].name)
    hidden_pos = blob_data_pos + inner
    # Re-make the blob now that positions are known (same length, so positions stay valid).
    real_cd = central_header(m, hidden_pos)
    es[2].data = es[2].data[:inner] + loc + real_cd + es[2].data[inner + len(loc) +
                                                               len(dummy_cd):]
    a = build(es)
    tail = eocd_record(1, len(real_cd), hidden_pos + len(loc))
    data = set_u16(a.data, a.eocd_pos + 20, len(tail)) + tail
    return "appended B is only an EOCD pointing at a CD hidden in A's stored annex.bin", data


def v_app_comment_sig_only(rng):
    return "A's comment is just a PK\\5\\6 signature", \
        build(asice_entries(rng), comment=SIG_EOCD).data


def _comment_record(rng, kind):
    m = mallory_entry(rng)
    if kind == "central":
        return central_header(m, 0)
    if kind == "local":
        return local_record(m)
    if kind == "z64":
        return z64_record(1, 46, 0)
    if kind == "locator":
        return z64_locator(0)
    return z64_record(1, 46, 0) + z64_locator(0)


def v_app_comment_records(rng):
    kind = rng.choice(("central", "local", "z64", "locator", "z64+locator"))
    rec = _comment_record(rng, kind)
    pre, post = rng.choice(((b"", b""), (b"note ", b""), (b"", b" end"), (b"x", b"y")))
    return ("A's comment holds a %s record" % kind), \
        build(asice_entries(rng), comment=pre + rec + post).data


APPENDED = [v_app_absolute, v_app_relative, v_app_missing_byte, v_app_plain_concat,
            v_app_cd_into_data, v_app_only_eocd_fewer, v_app_only_eocd_hidden_cd,
            v_app_comment_sig_only, v_app_comment_records]


# --- zip64-locator-injected -------------------------------------------------------------------

def _z64inj(rng):
    """Locals of A (Alice) + Mallory's contract.txt; CD A lists A, CD B lists Mallory instead."""
    a = asice_entries(rng)
    m = mallory_entry(rng)
    locs, offs = locals_blob(a + [m])
    cd_a = cd_blob(a, offs[:len(a)])
    b = [a[0], m] + a[2:]
    cd_b = cd_blob(b, [offs[0], offs[-1]] + offs[2:len(a)])
    return a, b, locs, cd_a, cd_b


def v_z64inj_basic(rng):
    a, b, locs, cd_a, cd_b = _z64inj(rng)
    pos_b = len(locs) + len(cd_a)
    z = pos_b + len(cd_b)
    data = (locs + cd_a + cd_b + z64_record(len(b), len(cd_b), pos_b) + z64_locator(z) +
            eocd_record(len(a), len(cd_a), len(locs)))
    return ("ZIP64 end record + locator between CD and EOCD point at another CD (Mallory); "
            "EOCD unsaturated points at A"), data


def v_z64inj_saturated(rng):
    a, b, locs, cd_a, cd_b = _z64inj(rng)
    pos_b = len(locs) + len(cd_a)
    z = pos_b + len(cd_b)
    which = rng.choice(("all", "count", "offset"))
    n, size, off = len(a), len(cd_a), len(locs)
    if which in ("all", "count"):
        n = SAT16
    if which in ("all", "offset"):
        size, off = SAT32, SAT32
    data = (locs + cd_a + cd_b + z64_record(len(b), len(cd_b), pos_b) + z64_locator(z) +
            eocd_record(n, size, off))
    return "injected ZIP64 record (Mallory's CD), EOCD saturated (%s)" % which, data


def v_z64inj_not_adjacent(rng):
    a, b, locs, cd_a, cd_b = _z64inj(rng)
    pos_b = len(locs)
    pos_a = pos_b + len(cd_b)
    z = pos_a + len(cd_a)
    data = (locs + cd_b + cd_a + z64_record(len(b), len(cd_b), pos_b) + z64_locator(z) +
            eocd_record(len(a), len(cd_a), pos_a))
    return "ZIP64 record points at Mallory's CD which is not right before it", data


def v_z64inj_locator_alone(rng):
    a = asice_entries(rng)
    locs, offs = locals_blob(a)
    cd = cd_blob(a, offs)
    target = rng.choice((0, len(locs), len(locs) + len(cd), rng.randint(0, len(locs))))
    data = locs + cd + z64_locator(target) + eocd_record(len(a), len(cd), len(locs))
    return "ZIP64 locator without a ZIP64 end record (locator offset %d)" % target, data


def v_z64inj_counts(rng):
    a = asice_entries(rng)
    locs, offs = locals_blob(a)
    cd = cd_blob(a, offs)
    n = rng.choice((len(a) - 1, len(a) + 1, 0, 1, 2 ** 32 + len(a)))
    z = len(locs) + len(cd)
    data = (locs + cd + z64_record(n, len(cd), len(locs)) + z64_locator(z) +
            eocd_record(len(a), len(cd), len(locs)))
    return "ZIP64 record points at the real CD but counts %d entries (EOCD %d)" % (n, len(a)), \
        data


def v_z64inj_extensible(rng):
    a, b, locs, cd_a, cd_b = _z64inj(rng)
    pos_b = len(locs) + len(cd_a)
    z = pos_b + len(cd_b)
    ext = struct.pack("<HI", 0x0099, rng.randint(0, 99)) + binary(rng, rng.randint(4, 40))
    data = (locs + cd_a + cd_b + z64_record(len(b), len(cd_b), pos_b, ext) + z64_locator(z) +
            eocd_record(len(a), len(cd_a), len(locs)))
    return ("ZIP64 record with extensible data points at Mallory's CD (a reader that reads "
            "the 56 bytes before the locator misses it)"), data


def v_z64inj_two_records(rng):
    a, b, locs, cd_a, cd_b = _z64inj(rng)
    # locals + CD B + R1(->B) + CD A + R2(->A) + locator(->R1) + EOCD(->A)
    pos_b = len(locs)
    r1 = pos_b + len(cd_b)
    pos_a = r1 + 56
    r2 = pos_a + len(cd_a)
    data = (locs + cd_b + z64_record(len(b), len(cd_b), pos_b) + cd_a +
            z64_record(len(a), len(cd_a), pos_a) + z64_locator(r1) +
            eocd_record(len(a), len(cd_a), pos_a))
    return ("two ZIP64 records: locator points at one (Mallory's CD), the one right before "
            "the locator points at A's CD"), data


def v_z64inj_locator_wrong(rng):
    a = asice_entries(rng)
    locs, offs = locals_blob(a)
    cd = cd_blob(a, offs)
    z = len(locs) + len(cd)
    delta = rng.choice((-1, 1, 4, -56, 20, 1000))
    data = (locs + cd + z64_record(len(a), len(cd), len(locs)) +
            z64_locator(max(0, z + delta)) + eocd_record(len(a), len(cd), len(locs)))
    return "ZIP64 locator offset off by %d from the (correct) ZIP64 record" % delta, data


def v_z64inj_disks(rng):
    a = asice_entries(rng)
    locs, offs = locals_blob(a)
    cd = cd_blob(a, offs)
    z = len(locs) + len(cd)
    ndisks, disk = rng.choice(((0, 0), (2, 0), (1, 1), (2, 1)))
    data = (locs + cd + z64_record(len(a), len(cd), len(locs)) +
            z64_locator(z, disk=disk, ndisks=ndisks) + eocd_record(len(a), len(cd), len(locs)))
    return "ZIP64 locator with total disks %d, record disk %d" % (ndisks, disk), data


Z64INJ = [v_z64inj_basic, v_z64inj_saturated, v_z64inj_not_adjacent, v_z64inj_locator_alone,
          v_z64inj_counts, v_z64inj_extensible, v_z64inj_two_records, v_z64inj_locator_wrong,
          v_z64inj_disks]


# --- prefix ---------------------------------------------------------------------------------

def _junk(rng):
    kind = rng.choice(("random", "text", "shell", "zeros"))
    n = rng.randint(1, 2000)
    if kind == "random":
        return kind, binary(rng, n)
    if kind == "text":
        return kind, text(rng, n, n)
    if kind == "shell":
        return kind, b"#!/bin/sh\nexec unzip \"$0\"\n" + text(rng, 0, n)
    return kind, b"\0" * n


def v_prefix_junk_corrected(rng):
    kind, j = _junk(rng)
    return "%d bytes of %s junk before the archive, offsets corrected" % (len(j), kind), \
        build(asice_entries(rng), prefix=j).data


def v_prefix_junk_uncorrected(rng):
    kind, j = _junk(rng)
    return "%d bytes of %s junk before the archive, offsets not corrected" % (len(j), kind), \
        build(asice_entries(rng), prefix=j, shift=len(j)).data


def v_prefix_archive(rng):
    other = build(asice_entries(rng, MALLORY)).data
    shift = rng.choice((0, len(other)))
    return ("another whole archive (Mallory) before A, A's offsets %s" %
            ("corrected" if shift == 0 else "not corrected")), \
        build(asice_entries(rng), prefix=other, shift=shift).data


def v_prefix_fake_local(rng):
    j = SIG_LOCAL + binary(rng, rng.randint(0, 60))
    shift = rng.choice((0, len(j)))
    return "prefix starting with a PK\\3\\4 fragment, offsets %s" % (
        "corrected" if shift == 0 else "not corrected"), \
        build(asice_entries(rng), prefix=j, shift=shift).data


def v_prefix_spanning_marker(rng):
    shift = rng.choice((0, 4))
    return "PK00 spanning marker before the first local header, offsets %s" % (
        "corrected" if shift == 0 else "not corrected"), \
        build(asice_entries(rng), prefix=b"PK00", shift=shift).data


PREFIX = [v_prefix_junk_corrected, v_prefix_junk_uncorrected, v_prefix_archive,
          v_prefix_fake_local, v_prefix_spanning_marker]


# --- suffix ---------------------------------------------------------------------------------

def v_suffix_junk(rng):
    kind, j = _junk(rng)
    return "%d bytes of %s junk after the EOCD (comment length 0)" % (len(j), kind), \
        build(asice_entries(rng), suffix=j).data


def v_suffix_comment_short(rng):
    c = text(rng, 10, 300)
    d = rng.randint(1, min(20, len(c)))
    return "comment length %d but %d bytes follow the EOCD" % (len(c) - d, len(c)), \
        build(asice_entries(rng), comment=c, eocd={"clen": len(c) - d}).data


def v_suffix_comment_long(rng):
    c = text(rng, 0, 300)
    d = rng.randint(1, 20)
    return "comment length %d but only %d bytes follow the EOCD" % (len(c) + d, len(c)), \
        build(asice_entries(rng), comment=c, eocd={"clen": len(c) + d}).data


def v_suffix_partial_eocd(rng):
    s = SIG_EOCD + binary(rng, rng.randint(0, 17))
    return "a truncated PK\\5\\6 record (%d bytes) after the EOCD" % len(s), \
        build(asice_entries(rng), suffix=s).data


def v_suffix_second_eocd(rng):
    b = build(asice_entries(rng))
    eocd = b.data[b.eocd_pos:b.eocd_pos + 22]
    return "a second copy of the EOCD after the first", b.data + eocd


def v_suffix_padding(rng):
    b = build(asice_entries(rng))
    pad = (-len(b.data)) % rng.choice((512, 4096))
    return "zero padding after the EOCD to a block boundary (%d bytes)" % pad, \
        b.data + b"\0" * (pad or 512)


SUFFIX = [v_suffix_junk, v_suffix_comment_short, v_suffix_comment_long, v_suffix_partial_eocd,
          v_suffix_second_eocd, v_suffix_padding]


# --- overlapping ----------------------------------------------------------------------------

def v_overlap_two_names(rng):
    es = asice_entries(rng)
    alias = Entry("other.txt", es[1].data, es[1].method)
    cd = [(e, i) for i, e in enumerate(es)] + [(alias, 1)]
    return "two central entries (contract.txt, other.txt) point at the same local header", \
        build(es, cd_entries=cd).data


def v_overlap_same_name(rng):
    es = asice_entries(rng)
    cd = [(e, i) for i, e in enumerate(es)]
    cd.insert(2, (es[1], 1))
    return "contract.txt listed twice, both pointing at the same local header", \
        build(es, cd_entries=cd).data


def v_overlap_quoted(rng):
    # annex.bin (stored) covers its own data + contract.txt's whole local record; the central
    # directory also lists contract.txt at its (nested) local header.
    es = asice_entries(rng, vary=False)
    inner = es[1]
    pad = binary(rng, rng.randint(0, 100))
    outer = Entry("annex.bin", pad + local_record(inner), STORED)
    locs_before = local_record(es[0])
    outer_pos = len(locs_before)
    inner_pos = outer_pos + 30 + len(outer.name) + len(pad)
    rest_entries = es[2:]
    locs = locs_before + local_record(outer)
    rest, rest_offs = locals_blob(rest_entries, start=len(locs))
    locs += rest
    listed = [(es[0], 0), (outer, outer_pos), (inner, inner_pos)] + list(zip(rest_entries,
                                                                             rest_offs))
    cd = b"".join(central_header(e, o) for e, o in listed)
    data = locs + cd + eocd_record(len(listed), len(cd), len(locs))
    return "stored annex.bin's data contains contract.txt's whole local record, both listed", \
        data


def v_overlap_data_into_next(rng):
    es = asice_entries(rng, vary=False)
    es[1] = Entry("contract.txt", ALICE, STORED)
    nxt = len(local_header(es[2]))
    k = rng.randint(1, nxt)
    es[1].co.update(csize=len(ALICE) + k, usize=len(ALICE) + k)
    if rng.random() < 0.5:
        es[1].lo.update(csize=len(ALICE) + k, usize=len(ALICE) + k)
    return ("contract.txt's sizes reach %d bytes into the next local header (CRC of the short "
            "data)" % k), build(es).data


def v_overlap_cd_into_data(rng):
    es = asice_entries(rng, vary=False)
    last = es[-1] = Entry("META-INF/signatures0.xml", signature_xml(rng), STORED)
    k = rng.randint(1, 60)
    last.co.update(csize=len(last.data) + k, usize=len(last.data) + k)
    last.lo.update(csize=len(last.data) + k, usize=len(last.data) + k)
    return "the last stored entry's sizes reach %d bytes into the central directory" % k, \
        build(es).data


def v_overlap_local_back(rng):
    es = asice_entries(rng)
    b = build(es)
    k = rng.randint(1, 20)
    data = b.data
    # Re-point the third central record k bytes earlier (into the previous entry's data).
    pos = b.cd_pos
    for i in range(2):
        pos += len(central_header(es[i], b.offsets[i]))
    data = data[:pos + 42] + struct.pack("<I", b.offsets[2] - k) + data[pos + 46:]
    return "a central entry's offset points %d bytes back into the previous entry's data" % k, \
        data


OVERLAP = [v_overlap_two_names, v_overlap_same_name, v_overlap_quoted, v_overlap_data_into_next,
           v_overlap_cd_into_data, v_overlap_local_back]


# --- duplicate-central ----------------------------------------------------------------------

def v_dup_central(rng):
    es = asice_entries(rng)
    idx = rng.randrange(len(es))
    where = rng.choice(("adjacent", "end"))
    cd = [(e, i) for i, e in enumerate(es)]
    if where == "adjacent":
        cd.insert(idx + 1, (es[idx], idx))
    else:
        cd.append((es[idx], idx))
    adjust = rng.choice(("count+size", "size only", "neither"))
    b = build(es, cd_entries=cd)
    data = b.data
    single = len(central_header(es[idx], b.offsets[idx]))
    if adjust != "count+size":
        data = set_u16(data, b.eocd_pos + 8, len(es))
        data = set_u16(data, b.eocd_pos + 10, len(es))
    if adjust == "neither":
        data = data[:b.eocd_pos + 12] + struct.pack("<I", b.cd_size - single) + \
            data[b.eocd_pos + 16:]
    return "central record of %s repeated (%s), EOCD adjusted: %s" % (
        es[idx].name.decode(), where, adjust), data


def v_dup_whole_cd(rng):
    es = asice_entries(rng)
    cd = [(e, i) for i, e in enumerate(es)] * 2
    return "the whole central directory twice, counts doubled", build(es, cd_entries=cd).data


def v_dup_fewer(rng):
    es = asice_entries(rng)
    n = rng.randint(0, len(es) - 1)
    return "EOCD counts %d of %d central records" % (n, len(es)), \
        build(es, eocd={"n": n}).data


def v_dup_more(rng):
    es = asice_entries(rng)
    n = len(es) + rng.randint(1, 3)
    return "EOCD counts %d but the CD has %d records" % (n, len(es)), \
        build(es, eocd={"n": n}).data


def v_dup_nthis(rng):
    es = asice_entries(rng)
    nthis = rng.choice((0, len(es) - 1, len(es) + 1))
    return "EOCD entries-on-this-disk %d differs from total %d" % (nthis, len(es)), \
        build(es, eocd={"nthis": nthis}).data


DUPLICATE = [v_dup_central, v_dup_whole_cd, v_dup_fewer, v_dup_more, v_dup_nthis,
             v_empty_archive]


# --- lying-local ----------------------------------------------------------------------------

def v_lie_name_same_len(rng):
    es = asice_entries(rng)
    e = es[1]
    alt = rng.choice((b"contrakt.txt", b"Contract.txt", b"contract.TXT", b"contract.tx\0"))
    e.lo["name"] = alt
    return "local name %r, central name contract.txt" % alt.decode(), build(es).data


def v_lie_name_other_len(rng):
    es = asice_entries(rng)
    alt = rng.choice((b"c.txt", b"contract.txt.exe", b"a/contract.txt", b""))
    es[1].lo["name"] = alt
    return "local name %r (other length), central name contract.txt" % alt.decode(), \
        build(es).data


def v_lie_method(rng):
    es = asice_entries(rng)
    e = es[1]
    other = rng.choice((STORED if e.method == DEFLATE else DEFLATE, 12, 14, 99))
    e.lo["method"] = other
    return "local method %d, central method %d" % (other, e.method), build(es).data


def v_lie_flags(rng):
    es = asice_entries(rng)
    e = es[rng.choice((1, 1, 2))]
    bit = rng.choice((0, 3, 11, 0, 3, 11, 1, 2, 4, 5, 6, 12, 13, 14, 15))
    side = rng.choice(("local", "central"))
    target = e.lo if side == "local" else e.co
    target["flags"] = e.flags ^ (1 << bit)
    return "flag bit %d toggled in the %s header only (entry %s)" % (
        bit, side, e.name.decode()), build(es).data


def v_lie_crc(rng):
    es = asice_entries(rng)
    e = es[1]
    bad = rng.choice((0, e.crc ^ 1, zlib.crc32(MALLORY)))
    e.lo["crc"] = bad
    return "local CRC 0x%08x differs from central" % bad, build(es).data


def v_lie_sizes(rng):
    es = asice_entries(rng)
    e = es[rng.choice((1, 2, 3))]
    field = rng.choice(("csize", "usize", "both"))
    real_c, real_u = len(e.body), len(e.data)
    k = rng.choice((-5, -1, 1, 7, 100))
    if field in ("csize", "both"):
        e.lo["csize"] = max(0, real_c + k)
    if field in ("usize", "both"):
        e.lo["usize"] = max(0, real_u + k) if rng.random() < 0.8 else 0
    return "local %s off by %d (entry %s)" % (field, k, e.name.decode()), build(es).data


def v_lie_extra(rng):
    es = asice_entries(rng)
    e = es[rng.choice((0, 1, 2))]
    kind = rng.choice(("local-only extra", "central-only extra", "local xlen too long",
                       "local xlen too short"))
    if kind == "local-only extra":
        e.xl = rng.choice((ext_time_extra(), unix_extra(), struct.pack("<HH", 0xCAFE, 0),
                           struct.pack("<HH", 0x9999, 4) + b"abcd"))
    elif kind == "central-only extra":
        e.xc = rng.choice((ext_time_extra(), unix_extra()))
    elif kind == "local xlen too long":
        e.lo["xlen"] = rng.randint(1, 30)
    else:
        e.xl = ext_time_extra()
        e.lo["xlen"] = rng.randint(0, len(e.xl) - 1)
    return "%s (entry %s)" % (kind, e.name.decode()), build(es).data


def v_lie_stream_other_bytes(rng):
    # The data region holds Alice's text + more; one header covers all of it, the other only
    # Alice's text, so a streaming reader (local header) and a central-directory reader
    # deliver different bytes under the same name.
    es = asice_entries(rng, vary=False)
    more = rng.choice((b" Also pay 999999 EUR to Mallory.", b"0000",
                       b"\nPay 999999 EUR to Mallory."))
    e = Entry("contract.txt", ALICE + more, STORED)
    short = dict(csize=len(ALICE), usize=len(ALICE), crc=zlib.crc32(ALICE))
    longer = rng.choice(("local", "central"))
    if longer == "local":
        e.co.update(short)
    else:
        e.lo.update(short)
    es[1] = e
    return ("stored contract.txt: %s header covers Alice's text + %r, the other header only "
            "Alice's text" % (longer, more.decode())), build(es).data


def v_lie_version(rng):
    es = asice_entries(rng)
    v = rng.choice((10, 45, 63, 99, 0, 0x0314))
    es[1].lo["version"] = v
    return "local version-needed %d, central 20" % v, build(es).data


def v_lie_time(rng):
    es = asice_entries(rng)
    es[1].lo.update(time=rng.getrandbits(16), date=rng.getrandbits(16))
    return "local DOS time/date differ from central (benign)", build(es).data


LYING = [v_lie_name_same_len, v_lie_name_other_len, v_lie_method, v_lie_flags, v_lie_crc,
         v_lie_sizes, v_lie_extra, v_lie_stream_other_bytes,
         v_lie_version, v_lie_time]


# --- data-descriptor ------------------------------------------------------------------------

def _dd_entries(rng, method=DEFLATE, dd="sig"):
    es = asice_entries(rng, vary=False)
    idx = rng.choice((1, 2, 3))
    e = es[idx]
    e.method, e.dd = method, dd
    return es, e


def v_dd_lying(rng):
    es, e = _dd_entries(rng, dd=rng.choice(("sig", "nosig")))
    field = rng.choice(("crc", "csize", "usize"))
    real = {"crc": e.crc, "csize": len(e.body), "usize": len(e.data)}[field]
    e.ddo[field] = rng.choice((0, real + 1, max(0, real - 1), real ^ 0x80000000))
    return "descriptor (%s) lies about %s, entry %s" % (e.dd, field, e.name.decode()), \
        build(es).data


def v_dd_missing(rng):
    es, e = _dd_entries(rng, method=rng.choice((DEFLATE, DEFLATE, STORED)), dd="missing")
    e.dd_real = rng.random() < 0.5
    return "bit 3 set but no descriptor (%s, local sizes %s), entry %s" % (
        "deflate" if e.method else "stored", "real" if e.dd_real else "zero",
        e.name.decode()), build(es).data


def v_dd_plain(rng):
    es, e = _dd_entries(rng, dd=rng.choice(("sig", "nosig")))
    e.dd_real = rng.random() < 0.5
    return "deflated %s with a correct %s descriptor, local sizes %s" % (
        e.name.decode(), e.dd, "real" if e.dd_real else "zero"), build(es).data


def v_dd_64_small(rng):
    es, e = _dd_entries(rng, dd=rng.choice(("sig", "nosig")))
    e.dd64 = True
    e.co["version"] = 20
    e.lo["version"] = 20
    return "64-bit descriptor (%s) on a small non-ZIP64 entry %s" % (e.dd, e.name.decode()), \
        build(es).data


def v_dd_stored(rng):
    es, e = _dd_entries(rng, method=STORED, dd=rng.choice(("sig", "nosig")))
    e.dd_real = rng.random() < 0.3
    return "stored %s with bit 3 and a %s descriptor (local sizes %s)" % (
        e.name.decode(), e.dd, "real" if e.dd_real else "zero"), build(es).data


def v_dd_stored_fake_sig(rng):
    es = asice_entries(rng, vary=False)
    fake = SIG_DD + struct.pack("<III", zlib.crc32(ALICE), len(ALICE), len(ALICE))
    data = ALICE + fake + b" and also pay 999999 EUR to Mallory."
    es[1] = Entry("contract.txt", data, STORED, dd="sig")
    return "stored contract.txt with bit 3 whose data contains a plausible PK\\7\\8 " \
           "descriptor for its first bytes", build(es).data


def v_dd_trailing_in_region(rng):
    es = asice_entries(rng, vary=False)
    e = es[rng.choice((1, 2, 3))]
    e.tail = rng.choice((binary(rng, rng.randint(1, 40)), b"\0" * rng.randint(1, 40),
                         local_record(mallory_entry(rng))))
    e.dd = rng.choice((None, "sig", "nosig"))
    return "%d bytes after the deflate stream inside %s's compressed size (descriptor: %s)" % (
        len(e.tail), e.name.decode(), e.dd), build(es).data


def v_dd_stream_longer(rng):
    es = asice_entries(rng, vary=False)
    e = es[rng.choice((1, 2, 3))]
    e.dd = rng.choice((None, "sig", "nosig"))
    k = rng.randint(1, min(8, len(e.body)))
    e.co["csize"] = len(e.body) - k
    if e.dd:
        e.ddo["csize"] = len(e.body) - k
    else:
        e.lo["csize"] = len(e.body) - k
    return "deflate stream runs %d bytes past %s's compressed size (descriptor: %s)" % (
        k, e.name.decode(), e.dd), build(es).data


def v_dd_on_stored_mimetype(rng):
    es = asice_entries(rng)
    es[0].dd = rng.choice(("sig", "nosig"))
    return "stored mimetype with bit 3 and a %s descriptor" % es[0].dd, build(es).data


DATADESC = [v_dd_lying, v_dd_missing, v_dd_plain, v_dd_64_small, v_dd_stored,
            v_dd_stored_fake_sig, v_dd_trailing_in_region, v_dd_stream_longer,
            v_dd_on_stored_mimetype]


# --- zip64 ----------------------------------------------------------------------------------

def _z64_pick(rng):
    es = asice_entries(rng)
    return es, es[rng.choice((1, 2, 3))]


def v_z64_sat_local_only(rng):
    es, e = _z64_pick(rng)
    e.z64l = "sat"
    return "local header ZIP64-saturated, central plain (entry %s)" % e.name.decode(), \
        build(es).data


def v_z64_sat_central_only(rng):
    es, e = _z64_pick(rng)
    e.z64c = "sat"
    return "central header ZIP64-saturated, local plain (entry %s)" % e.name.decode(), \
        build(es).data


def v_z64_unsat_mixed(rng):
    es, e = _z64_pick(rng)
    e.z64l, e.z64c = rng.choice((("unsat", None), (None, "unsat"), ("unsat", "sat"),
                                 ("sat", "unsat")))
    return "ZIP64 extras: local %s, central %s (entry %s)" % (e.z64l, e.z64c,
                                                              e.name.decode()), build(es).data


def v_z64_extra_missing(rng):
    es, e = _z64_pick(rng)
    side = rng.choice(("local", "central", "both"))
    field = rng.choice(("csize", "usize", "offset", "all"))
    for d, where in ((e.lo, "local"), (e.co, "central")):
        if side not in (where, "both"):
            continue
        for f in (("csize", "usize", "offset") if field == "all" else (field,)):
            if f == "offset" and where == "local":
                continue
            d[f] = SAT32
    return "%s header %s 0xFFFFFFFF with no ZIP64 extra (entry %s)" % (side, field,
                                                                      e.name.decode()), \
        build(es).data


def v_z64_partial(rng):
    es, e = _z64_pick(rng)
    field = rng.choice(("csize", "usize", "offset"))
    vals = {"usize": len(e.data), "csize": len(e.body)}
    if field == "offset":
        b = build(es)
        vals["offset"] = b.offsets[es.index(e)]
    e.xc = z64_extra([vals[field]])
    e.co[field] = SAT32
    return "central %s saturated with a ZIP64 extra holding only it (entry %s)" % (
        field, e.name.decode()), build(es).data


def v_z64_wrong_values(rng):
    es, e = _z64_pick(rng)
    real = [len(e.data), len(e.body)]
    k = rng.choice((1, -1, 100, 2 ** 32))
    which = rng.randrange(2)
    real[which] = max(0, real[which] + k)
    e.xc = z64_extra(real + [0])
    e.co.update(usize=SAT32, csize=SAT32)
    return "central ZIP64 extra %s off by %d (entry %s)" % (("usize", "csize")[which], k,
                                                           e.name.decode()), build(es).data


def v_z64_swapped(rng):
    es, e = _z64_pick(rng)
    e.method = DEFLATE
    e.xl = z64_extra([len(e.body), len(e.data)])      # csize, usize: wrong order
    e.lo.update(usize=SAT32, csize=SAT32)
    return "local ZIP64 extra with csize and usize swapped (entry %s)" % e.name.decode(), \
        build(es).data


def v_z64_ffff_count(rng):
    es = asice_entries(rng)
    with_rec = rng.choice((True, False))
    if with_rec:
        return "EOCD count 0xFFFF, ZIP64 end record holds the real count", \
            build(es, z64end="unsat", eocd={"n": SAT16}).data
    return "EOCD count 0xFFFF without any ZIP64 end record", \
        build(es, eocd={"n": SAT16}).data


def v_z64_disagree(rng):
    es = asice_entries(rng)
    field = rng.choice(("n", "cdsize", "cdoff", "nthis"))
    b = build(es)
    real = {"n": len(es), "cdsize": b.cd_size, "cdoff": b.cd_pos, "nthis": len(es)}[field]
    k = rng.choice((1, -1, 46, 2 ** 32))
    sat = rng.choice((True, False))
    return "ZIP64 end record %s off by %d, EOCD %s" % (
        field, k, "saturated" if sat else "unsaturated"), \
        build(es, z64end="sat" if sat else "unsat", z64o={field: max(0, real + k)}).data


def v_z64_record_size(rng):
    es = asice_entries(rng)
    size = rng.choice((0, 43, 45, 100, 2 ** 40))
    return "ZIP64 end record size field %d (no extensible data)" % size, \
        build(es, z64end=rng.choice(("sat", "unsat")), z64o={"size": size}).data


def v_z64_big_extra(rng):
    es, e = _z64_pick(rng)
    b = build(es)
    off = b.offsets[es.index(e)]
    kind = rng.choice(("with disk number", "length too short", "length too long"))
    vals = struct.pack("<QQQ", len(e.data), len(e.body), off)
    if kind == "with disk number":
        e.xc = struct.pack("<HH", 1, 28) + vals + struct.pack("<I", 0)
    elif kind == "length too short":
        e.xc = struct.pack("<HH", 1, 16) + vals[:16]
    else:
        e.xc = struct.pack("<HH", 1, 32) + vals
    e.co.update(usize=SAT32, csize=SAT32, offset=SAT32)
    return "central ZIP64 extra %s (entry %s)" % (kind, e.name.decode()), build(es).data


ZIP64 = [v_z64_central_sat, v_z64_streamed, v_z64_sat_local_only, v_z64_sat_central_only,
         v_z64_unsat_mixed, v_z64_extra_missing,
         v_z64_partial, v_z64_wrong_values, v_z64_swapped, v_z64_ffff_count, v_z64_disagree,
         v_z64_record_size, v_z64_big_extra]


# --- comments -------------------------------------------------------------------------------

def v_comment_plain(rng):
    n = rng.choice((1, 10, 1000, 65535))
    c = (text(rng, n, n) * 2)[:n]
    return "archive comment of %d bytes" % n, build(asice_entries(rng), comment=c).data


def v_comment_sig_inside(rng):
    sig = rng.choice((SIG_EOCD, SIG_CENTRAL, SIG_LOCAL, SIG_Z64EOCD, SIG_Z64LOC, SIG_DD))
    c = text(rng, 5, 60) + sig + text(rng, 0, 60)
    return "archive comment containing the signature %r" % sig, \
        build(asice_entries(rng), comment=c).data


def v_comment_fake_eocd_same(rng):
    es = asice_entries(rng)
    b = build(es)
    fake = eocd_record(len(es), b.cd_size, b.cd_pos)
    c = text(rng, 0, 40) + fake
    return "archive comment ends with an EOCD copy pointing at the same CD", \
        build(es, comment=c).data


def v_comment_fake_eocd_other(rng):
    es = asice_entries(rng)
    b = build(es)
    first = len(central_header(es[0], 0))
    fake = eocd_record(len(es) - 1, b.cd_size - first, b.cd_pos + first)
    return "archive comment ends with an EOCD skipping the first central record", \
        build(es, comment=text(rng, 0, 40) + fake).data


def v_comment_entry_sigs(rng):
    es = asice_entries(rng)
    sig = rng.choice((SIG_EOCD, SIG_CENTRAL, SIG_LOCAL))
    es[1].comment = b"note " + sig + b" " + text(rng, 0, 30)
    return "entry comment on contract.txt containing %r" % sig, build(es).data


def v_comment_entry_long(rng):
    es = asice_entries(rng)
    es[-1].comment = text(rng, 3000, 8000)
    return "long entry comment on the last entry", build(es).data


def v_comment_entry_eocd(rng):
    es = asice_entries(rng)
    es[-1].comment = eocd_record(0, 0, 0)
    return "the last entry's comment is an empty-archive EOCD", build(es).data


COMMENTS = [v_comment_plain, v_comment_sig_inside, v_comment_fake_eocd_same,
            v_comment_fake_eocd_other, v_comment_entry_sigs, v_comment_entry_long,
            v_comment_entry_eocd]


# --- hidden-entries -------------------------------------------------------------------------

def v_hidden_gap(rng):
    es = asice_entries(rng)
    hid = rng.choice((mallory_entry(rng, "hidden.txt"), mallory_entry(rng)))
    where = rng.randint(1, len(es) - 1)
    return "unlisted local entry %s in a gap before entry %d" % (hid.name.decode(), where), \
        build(es, gaps={where: local_record(hid)}).data


def v_hidden_before_cd(rng):
    es = asice_entries(rng)
    hid = rng.choice((mallory_entry(rng, "hidden.txt"), mallory_entry(rng)))
    return "unlisted local entry %s after the last entry, before the CD" % hid.name.decode(), \
        build(es, before_cd=local_record(hid)).data


def v_hidden_first(rng):
    es = asice_entries(rng)
    hid = rng.choice((mallory_entry(rng, "hidden.txt"), mallory_entry(rng),
                      Entry("mimetype", b"application/zip", STORED)))
    return "unlisted local entry %s at offset 0, listed entries after it" % hid.name.decode(), \
        build(es, gaps={0: local_record(hid)}).data


def v_hidden_uncounted(rng):
    es = asice_entries(rng)
    es.append(mallory_entry(rng, "hidden.txt"))
    b = build(es)
    last = len(central_header(es[-1], b.offsets[-1]))
    mode = rng.choice(("count", "count+size"))
    eocd = {"n": len(es) - 1}
    if mode == "count+size":
        eocd["cdsize"] = b.cd_size - last
    return "last central record (hidden.txt) not covered by the EOCD (%s)" % mode, \
        build(es, eocd=eocd).data


def v_hidden_garbage_gap(rng):
    es = asice_entries(rng)
    where = rng.randint(1, len(es) - 1)
    return "unlisted garbage bytes between local records", \
        build(es, gaps={where: binary(rng, rng.randint(1, 200))}).data


HIDDEN = [v_hidden_gap, v_hidden_before_cd, v_hidden_first, v_hidden_uncounted,
          v_hidden_garbage_gap]


# --- names (kept small: extraction maps are not 1:1 here) -----------------------------------

def _names_case(rng, specs, desc):
    """specs: list of (name bytes, utf8 flag, extra)."""
    es = [Entry("mimetype", MIMETYPE, STORED)]
    for name, utf8, xtra in specs:
        es.append(Entry(name, text(rng, 10, 60), rng.choice((STORED, DEFLATE)), utf8=utf8,
                        xl=xtra, xc=xtra))
    return desc, build(es).data


def v_names_case(rng):
    return _names_case(rng, [(b"contract.txt", False, b""), (b"Contract.txt", False, b"")],
                       "names equal after case folding")


def v_names_nfc_nfd(rng):
    nfc = unicodedata.normalize("NFC", "caf\u00e9.txt").encode()
    nfd = unicodedata.normalize("NFD", "caf\u00e9.txt").encode()
    return _names_case(rng, [(nfc, True, b""), (nfd, True, b"")],
                       "names equal after Unicode normalisation (NFC and NFD)")


def v_names_utf8_flag(rng):
    name = rng.choice(("caf\u00e9.txt", "\u043a\u043e\u043d\u0442\u0440\u0430\u043a\u0442.txt",
                       "\u5951\u7d04.txt")).encode()
    flag = rng.choice((True, False))
    return _names_case(rng, [(name, flag, b"")],
                       "non-ASCII UTF-8 name, flag bit 11 %s" % ("set" if flag else "unset"))


def v_names_non_utf8(rng):
    flag = rng.choice((True, False))
    return _names_case(rng, [(b"caf\xe9.txt", flag, b"")],
                       "name with a non-UTF-8 byte (0xE9), bit 11 %s" % (
                           "set" if flag else "unset"))


def v_names_unicode_path(rng):
    header = rng.choice((b"contract.txt", b"caf\x82.txt"))
    good_crc = rng.choice((True, False))
    xtra = unicode_path_extra(header, b"other.txt", None if good_crc else 0x12345678)
    return _names_case(rng, [(header, False, xtra)],
                       "name %r with a 0x7075 Unicode Path extra naming other.txt (CRC %s)" % (
                           header.decode("latin-1"), "matches" if good_crc else "wrong"))


def v_names_paths(rng):
    name = rng.choice((b"/abs.txt", b"../up.txt", b"a/../../up.txt", b"a\\b.txt", b"./a.txt",
                       b"a//b.txt", b"a/./b.txt", b"nul\0.txt", b"C:/x.txt", b"trail.txt ",
                       b"x" * 300 + b".txt", b"a/b/", b"\\abs.txt"))
    return _names_case(rng, [(name, False, b"")], "entry name %r" % name.decode("latin-1"))


NAMES = [v_names_case, v_names_nfc_nfd, v_names_utf8_flag, v_names_non_utf8,
         v_names_unicode_path, v_names_paths]


# --- mutations ------------------------------------------------------------------------------

# Field layouts (offset, width, name) of each record's fixed part, for targeted mutations.
RECORD_FIELDS = {
    SIG_LOCAL: (30, [(4, 2, "version"), (6, 2, "flags"), (8, 2, "method"), (10, 2, "time"),
                     (12, 2, "date"), (14, 4, "crc"), (18, 4, "csize"), (22, 4, "usize"),
                     (26, 2, "nlen"), (28, 2, "xlen")]),
    SIG_CENTRAL: (46, [(4, 2, "made"), (6, 2, "version"), (8, 2, "flags"), (10, 2, "method"),
                       (12, 2, "time"), (14, 2, "date"), (16, 4, "crc"), (20, 4, "csize"),
                       (24, 4, "usize"), (28, 2, "nlen"), (30, 2, "xlen"), (32, 2, "clen"),
                       (34, 2, "disk"), (36, 2, "iattr"), (38, 4, "eattr"),
                       (42, 4, "offset")]),
    SIG_EOCD: (22, [(4, 2, "disk"), (6, 2, "cddisk"), (8, 2, "nthis"), (10, 2, "ntotal"),
                    (12, 4, "cdsize"), (16, 4, "cdoff"), (20, 2, "clen")]),
    SIG_Z64EOCD: (56, [(4, 4, "size"), (16, 4, "disk"), (20, 4, "cddisk"), (24, 4, "nthis"),
                       (32, 4, "ntotal"), (40, 4, "cdsize"), (48, 4, "cdoff"),
                       (52, 4, "cdoff-high")]),
    SIG_Z64LOC: (20, [(4, 4, "disk"), (8, 4, "offset"), (12, 4, "offset-high"),
                      (16, 4, "ndisks")]),
    SIG_DD: (16, [(4, 4, "crc"), (8, 4, "csize"), (12, 4, "usize")]),
}
SIG_NAMES = {SIG_LOCAL: "local", SIG_CENTRAL: "central", SIG_EOCD: "eocd",
             SIG_Z64EOCD: "zip64-eocd", SIG_Z64LOC: "locator", SIG_DD: "descriptor"}


def find_records(data):
    """All (position, signature) of record signatures with room for their fixed part."""
    recs = []
    for sig, (fixed, _) in RECORD_FIELDS.items():
        i = data.find(sig)
        while i >= 0:
            if i + fixed <= len(data):
                recs.append((i, sig))
            i = data.find(sig, i + 1)
    recs.sort()
    return recs


def _interesting(rng, v, width, data_len, off):
    mask = (1 << (8 * width)) - 1
    cands = [0, 1, v + 1, v - 1, v + rng.randint(2, 64), v - rng.randint(2, 64), mask,
             mask >> 1, 1 << (8 * width - 1), rng.getrandbits(8 * width), v * 2, data_len,
             data_len - off, v ^ (1 << rng.randrange(8 * width))]
    return rng.choice(cands) & mask


def mutate_field(rng, data):
    recs = find_records(data)
    if not recs:
        return mutate_byte(rng, data)
    pos, sig = rng.choice(recs)
    fixed, fields = RECORD_FIELDS[sig]
    off, width, name = rng.choice(fields)
    p = pos + off
    fmt = "<H" if width == 2 else "<I"
    old = struct.unpack(fmt, data[p:p + width])[0]
    if name == "flags":
        new = old ^ (1 << rng.choice((0, 1, 2, 3, 3, 3, 11, 11, 4, 5, 6, 12, 13, 15)))
    elif name == "method":
        new = rng.choice((0, 8, 1, 9, 12, 14, 93, 99, rng.getrandbits(16)))
    else:
        new = _interesting(rng, old, width, len(data), p)
    if new == old:
        new ^= 1
    desc = "%s@%d %s 0x%x->0x%x" % (SIG_NAMES[sig], pos, name, old, new)
    return data[:p] + struct.pack(fmt, new) + data[p + width:], desc


def mutate_byte(rng, data):
    if not data:
        return data, "empty"
    recs = find_records(data)
    if recs and rng.random() < 0.85:
        pos, sig = rng.choice(recs)
        fixed = RECORD_FIELDS[sig][0]
        # Mostly the fixed header, sometimes the name/extra that follow it.
        p = pos + rng.randrange(4 if rng.random() < 0.9 else 0, fixed + 16)
        p = min(p, len(data) - 1)
    else:
        p = rng.randrange(len(data))
    if rng.random() < 0.5:
        new = data[p] ^ (1 << rng.randrange(8))
        how = "flip"
    else:
        new = rng.choice((0, 0xFF, 0x50, 0x4B, rng.randrange(256)))
        if new == data[p]:
            new ^= 0xFF
        how = "set"
    return data[:p] + bytes([new]) + data[p + 1:], "%s byte@%d 0x%02x->0x%02x" % (
        how, p, data[p], new)


def mutate_truncate(rng, data):
    recs = find_records(data)
    if recs and rng.random() < 0.5:
        pos, _ = rng.choice(recs)
        n = max(0, min(len(data) - 1, pos + rng.randint(-4, 30)))
    else:
        n = rng.randrange(len(data)) if data else 0
    return data[:n], "truncate to %d of %d" % (n, len(data))


def mutate_record(rng, data):
    recs = find_records(data)
    if not recs:
        return mutate_truncate(rng, data)
    i = rng.randrange(len(recs))
    start = recs[i][0]
    end = recs[i + 1][0] if i + 1 < len(recs) else len(data)
    chunk = data[start:end]
    name = SIG_NAMES[recs[i][1]]
    if rng.random() < 0.5:
        return data[:start] + data[end:], "delete %s record@%d (%d bytes)" % (name, start,
                                                                              len(chunk))
    return data[:end] + chunk + data[end:], "duplicate %s record@%d (%d bytes)" % (
        name, start, len(chunk))


MUTATORS = [(mutate_field, 5), (mutate_byte, 3), (mutate_truncate, 1), (mutate_record, 1)]


def v_mutation(rng):
    # Base: a valid archive half the time, otherwise an attack or edge shape.
    if rng.random() < 0.5:
        fam, variants = "valid", [v for v in VALID if v is not v_valid_large]
    else:
        fam, variants = rng.choice(MUTATION_BASES)
    base_desc, data = rng.choice(variants)(rng)
    ops = []
    for _ in range(rng.choice((1, 1, 1, 2, 2, 3))):
        fn = rng.choices([m for m, _ in MUTATORS], [w for _, w in MUTATORS])[0]
        data, d = fn(rng, data)
        ops.append(d)
    return "%s [%s: %s]" % ("; ".join(ops), fam, base_desc), data


# Family table: (name, weight of --count, cap, variants). Mutations take the rest of the count.
FAMILIES = [
    ("valid", 0.05, None, VALID),
    ("appended-archive", 0.04, None, APPENDED),
    ("zip64-locator-injected", 0.03, None, Z64INJ),
    ("prefix", 0.02, None, PREFIX),
    ("suffix", 0.02, None, SUFFIX),
    ("overlapping", 0.025, None, OVERLAP),
    ("duplicate-central", 0.02, None, DUPLICATE),
    ("lying-local", 0.05, None, LYING),
    ("data-descriptor", 0.05, None, DATADESC),
    ("zip64", 0.04, None, ZIP64),
    ("comments", 0.02, None, COMMENTS),
    ("hidden-entries", 0.02, None, HIDDEN),
    ("names", 0.025, 100, NAMES),
    ("mutations", None, None, [v_mutation]),
]
MUTATION_BASES = [(name, vs) for name, _, _, vs in FAMILIES
                  if name not in ("valid", "names", "mutations")]


def plan(count):
    """Number of cases per family for a total of about count."""
    out = []
    fixed = 0
    for name, weight, cap, variants in FAMILIES:
        if weight is None:
            continue
        n = max(1, round(count * weight))
        if cap:
            n = min(n, cap)
        out.append((name, n, variants))
        fixed += n
    out.append(("mutations", max(1, count - fixed), [v_mutation]))
    return out


# ---------------------------------------------------------------------------------------------
# Readers (run in worker processes)
# ---------------------------------------------------------------------------------------------

FSIZE_LIMIT = 64 << 20
TIMEOUT = 10
NOBODY = 65534
READER_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
_TROOT = None          # this worker's private directory
_OUT = None            # this worker's file for the readers' output


def _init_worker(tmpbase):
    global _TROOT, _OUT
    try:
        os.setsid()    # no controlling terminal: no reader can prompt for a password
    except OSError:
        pass
    resource.setrlimit(resource.RLIMIT_FSIZE, (FSIZE_LIMIT, FSIZE_LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if os.geteuid() == 0:
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)
    os.umask(0o022)
    _TROOT = tempfile.mkdtemp(prefix="w", dir=tmpbase)
    os.chdir(_TROOT)
    _OUT = tempfile.TemporaryFile(dir=_TROOT)


def _result(opened, entries, error):
    return {"opened": bool(opened), "entries": entries, "error": error}


def _short(text, limit=300):
    text = " | ".join(l.strip() for l in text.splitlines() if l.strip())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _duplicates(names):
    """Warning text for names delivered more than once (only the last copy is in entries)."""
    seen = {}
    for n in names:
        seen[n] = seen.get(n, 0) + 1
    return ["warning: %r delivered %d times, entries holds the last" % (n, k)
            for n, k in seen.items() if k > 1]


def read_python(data):
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except Exception as e:                       # noqa: BLE001 - any failure is a refusal
        return _result(False, {}, _short("%s: %s" % (type(e).__name__, e)))
    entries, errors, names = {}, [], []
    for info in zf.infolist():
        raw = info.orig_filename.encode("utf-8" if info.flag_bits & 0x800 else "cp437")
        if raw.endswith(b"/"):
            continue
        names.append(raw.decode("latin-1"))
        h, total = hashlib.sha256(), 0
        try:
            with zf.open(info) as f:
                while True:
                    chunk = f.read(1 << 20)
                    if not chunk:
                        break
                    total += len(chunk)
                    if total > FSIZE_LIMIT:
                        raise ValueError("entry larger than %d bytes" % FSIZE_LIMIT)
                    h.update(chunk)
        except Exception as e:                   # noqa: BLE001
            errors.append("%s: %s: %s" % (raw.decode("latin-1"), type(e).__name__, e))
            continue
        entries[raw.hex()] = h.hexdigest()
    return _result(not errors, entries, _short("; ".join(errors + _duplicates(names))))


def _readable(path, mode):
    """Make path usable although an archive may have set mode 0 on it (we own the files)."""
    try:
        os.chmod(path, mode)
    except OSError:
        pass


def _collect(top, base):
    """Regular files under top -> {hex(path relative to base): sha256}, plus odd-file notes."""
    entries, odd = {}, []
    stack = [top]
    while stack:
        cur = stack.pop()
        try:
            items = list(os.scandir(cur))
        except PermissionError:
            _readable(cur, 0o700)
            items = list(os.scandir(cur))
        for de in items:
            st = os.lstat(de.path)
            rel = os.path.relpath(de.path, base)
            if stat.S_ISDIR(st.st_mode):
                if not st.st_mode & stat.S_IXUSR or not st.st_mode & stat.S_IRUSR:
                    _readable(de.path, 0o700)
                stack.append(de.path)
            elif stat.S_ISREG(st.st_mode):
                if not st.st_mode & stat.S_IRUSR:
                    _readable(de.path, 0o600)
                h = hashlib.sha256()
                with open(de.path, "rb") as f:
                    for chunk in iter(lambda: f.read(1 << 20), b""):
                        h.update(chunk)
                entries[rel.hex()] = h.hexdigest()
            else:
                odd.append("%s is not a regular file" % rel.decode("latin-1"))
    return entries, odd


def _rmtree(path):
    def fix(func, p, _exc):
        _readable(os.path.dirname(p), 0o700)
        _readable(p, 0o700)
        func(p)
    if os.path.lexists(path):
        shutil.rmtree(path, onerror=fix)


def _unsafe_for_minizip(data, dest):
    """True when some central record's name would make minizip write outside our directory
    somewhere writable (miniunz.c does not check names; belt and braces on top of nobody)."""
    troot = os.fsencode(_TROOT) + b"/"
    i = data.find(SIG_CENTRAL)
    while i >= 0 and i + 46 <= len(data):
        nlen = struct.unpack("<H", data[i + 28:i + 30])[0]
        name = data[i + 46:i + 46 + nlen][:255].split(b"\0")[0]
        target = os.path.normpath(os.path.join(os.fsencode(dest), name))
        if not (target + b"/").startswith(troot):
            probe = target
            while probe and not os.path.lexists(probe):
                probe = os.path.dirname(probe)
            if os.access(probe or b"/", os.W_OK):
                return True
        i = data.find(SIG_CENTRAL, i + 1)
    return False


def _spawn(argv, stdin_data):
    """Run argv (stdout and stderr into one file, stdin /dev/null or a pipe fed stdin_data) with
    a timeout; returns (exit code, or None after a timeout, output text).

    posix_spawn + pidfd instead of subprocess.run: about 12,000 spawns per run, and this is
    measurably cheaper than subprocess's pipe/poll machinery."""
    out = _OUT
    out.seek(0)
    out.truncate()
    actions = [(os.POSIX_SPAWN_DUP2, out.fileno(), 1), (os.POSIX_SPAWN_DUP2, out.fileno(), 2)]
    rfd = wfd = None
    if stdin_data is None:
        actions.insert(0, (os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0))
    else:
        rfd, wfd = os.pipe()               # both close-on-exec; dup2 onto 0 clears it for 0
        actions.insert(0, (os.POSIX_SPAWN_DUP2, rfd, 0))
    # Default SIGPIPE/SIGXFSZ in the reader, as subprocess or a shell would give it (Python
    # ignores both): a reader that hits the file-size limit is killed by SIGXFSZ.
    pid = os.posix_spawn(argv[0], argv, READER_ENV, file_actions=actions,
                         setsigdef=(signal.SIGPIPE, signal.SIGXFSZ))
    pidfd = os.pidfd_open(pid)
    deadline = time.monotonic() + TIMEOUT
    rc = None
    try:
        if wfd is not None:
            os.close(rfd)
            os.set_blocking(wfd, False)
            view = memoryview(stdin_data)
            # Feed the pipe without ever blocking: the reader may stop reading or exit early.
            while view:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                ready, writable, _ = select.select([pidfd], [wfd], [], left)
                if ready:
                    break
                try:
                    view = view[os.write(wfd, view[:1 << 16]):]
                except BlockingIOError:
                    pass
                except BrokenPipeError:
                    break
            os.close(wfd)
            wfd = None
        ready, _, _ = select.select([pidfd], [], [], max(0.0, deadline - time.monotonic()))
        if ready:
            rc = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        else:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    finally:
        os.close(pidfd)
        if wfd is not None:
            os.close(wfd)
    out.seek(0)
    text = out.read(1 << 20).decode("utf-8", "replace")
    if rc is None:
        text = "timeout after %d s; %s" % (TIMEOUT, text)
    return rc, text


def _run_extractor(reader, argv, stdin_data, judge, archive):
    # Extract five levels down so that "../" names stay inside this worker's directory.
    top = os.path.join(_TROOT, "x")
    dest = os.path.join(top, "a", "b", "c", "d", reader)
    os.makedirs(dest)
    argv = [a.replace("DIR", dest) for a in argv]
    rc, out = _spawn(argv, stdin_data)
    entries, odd = _collect(os.fsencode(top), os.fsencode(dest))
    _rmtree(top)
    out = out.replace(dest, "DIR").replace(archive, "FILE").replace(_TROOT, "TMP")
    opened, error, delivered = judge(rc, out)
    notes = ([error] if error else []) + odd + _duplicates(delivered)
    return _result(opened, entries, _short("; ".join(notes)))


def _signal_text(rc):
    return "killed by signal %d" % -rc if rc is not None and rc < 0 else "exit %s" % rc


# Each judge returns (opened, error text, names the reader said it delivered, for spotting a
# name delivered twice; unzip -qq lists nothing).

def judge_unzip(rc, out):
    # 0 = fine, 1 = warnings only (processing completed), anything else = error.
    if rc == 0:
        return True, _short(out), []
    if rc == 1:
        return True, _short(out) or "exit 1 (warning)", []
    return False, _short("%s: %s" % (_signal_text(rc), out) if out else _signal_text(rc)), []


def judge_bsdtar(rc, out):
    # With -v bsdtar prints "x NAME" per entry, and "x NAME: message" when that entry failed.
    lines = [l for l in out.splitlines() if l.strip()]
    delivered = [l[2:] for l in lines if l.startswith("x ") and ": " not in l[2:]]
    msgs = "\n".join(l for l in lines if not l.startswith("x ") or ": " in l[2:])
    if rc == 0:
        return True, _short(msgs), delivered
    text = "%s: %s" % (_signal_text(rc), msgs) if msgs else _signal_text(rc)
    return False, _short(text), delivered


MINIZIP_ROUTINE = ("MiniUnz ", "more info at ", " extracting: ", "creating directory: ")


def judge_miniunzip(rc, out):
    # miniunzip exits 0 after most errors (do_extract always returns 0), so any line other
    # than the banner, "FILE opened" and progress lines counts as an error.
    lines = [l for l in out.splitlines() if l.strip()]
    bad = [l for l in lines if not l.startswith(MINIZIP_ROUTINE) and l != "FILE opened"]
    delivered = [l[len(" extracting: "):] for l in lines if l.startswith(" extracting: ")]
    if rc == 0 and not bad:
        return True, "", delivered
    msg = "; ".join(l.strip() for l in bad)
    if rc != 0:
        msg = "%s: %s" % (_signal_text(rc), msg) if msg else _signal_text(rc)
    return False, _short(msg), delivered


def read_chunk(items):
    return [read_case(item) for item in items]


def read_case(item):
    cid, data = item
    archive = os.path.join(_TROOT, "in.zip")
    with open(archive, "wb") as f:
        f.write(data)
    res = {"python": read_python(data)}
    res["unzip"] = _run_extractor("unzip", ["/usr/bin/unzip", "-o", "-qq", archive, "-d", "DIR"],
                                  None, judge_unzip, archive)
    res["bsdtar"] = _run_extractor("bsdtar", ["/usr/bin/bsdtar", "-xvf", archive, "-C", "DIR"],
                                   None, judge_bsdtar, archive)
    res["bsdtar-stream"] = _run_extractor("bsdtar-stream",
                                          ["/usr/bin/bsdtar", "-xvf", "-", "-C", "DIR"],
                                          data, judge_bsdtar, archive)
    dest = os.path.join(_TROOT, "x", "a", "b", "c", "d", "miniunzip")
    if _unsafe_for_minizip(data, dest):
        res["miniunzip"] = _result(False, {}, "not run: an entry name would be written "
                                              "outside the extraction directory")
    else:
        res["miniunzip"] = _run_extractor("miniunzip", ["/usr/bin/miniunzip", "-x", "-o",
                                                        archive, "-d", "DIR"],
                                          None, judge_miniunzip, archive)
    os.unlink(archive)
    return cid, res


# ---------------------------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------------------------

TOOLS = [("/usr/bin/unzip", "unzip"), ("/usr/bin/bsdtar", "libarchive-tools"),
         ("/usr/bin/miniunzip", "minizip")]


def _first_line(argv):
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, timeout=TIMEOUT, env=READER_ENV)
        return p.stdout.decode("utf-8", "replace").strip().splitlines()[0].strip()
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return "unknown"


def _deb_version(pkg):
    try:
        p = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", pkg],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=TIMEOUT)
        return p.stdout.decode().strip() or "?"
    except (OSError, subprocess.TimeoutExpired):
        return "?"


def reader_versions():
    unzip = _first_line(["/usr/bin/unzip", "-v"])
    bsdtar = _first_line(["/usr/bin/bsdtar", "--version"])
    mini = _first_line(["/usr/bin/miniunzip"])
    return {
        "python": "CPython %s zipfile (Debian libpython3.11-stdlib %s)" % (
            platform.python_version(), _deb_version("libpython3.11-stdlib")),
        "unzip": "%s (Debian unzip %s)" % (unzip, _deb_version("unzip")),
        "bsdtar": "%s (Debian libarchive-tools %s)" % (bsdtar, _deb_version("libarchive-tools")),
        "bsdtar-stream": "%s, streaming from a pipe" % bsdtar,
        "miniunzip": "%s (Debian minizip %s)" % (mini.split(",")[0], _deb_version("minizip")),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=3000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", choices=[f[0] for f in FAMILIES])
    args = ap.parse_args()

    missing = [pkg for path, pkg in TOOLS if not os.access(path, os.X_OK)]
    if missing:
        print("zip-differential: missing readers; install the Debian package(s): %s" %
              " ".join(missing), file=sys.stderr)
        return 2

    t0 = time.monotonic()
    cases_dir = os.path.join(args.outdir, "cases")
    os.makedirs(cases_dir, exist_ok=True)
    for old in os.listdir(cases_dir):
        if old.endswith(".zip"):
            os.unlink(os.path.join(cases_dir, old))

    # Generate and read in one pipeline: chunks of cases go to the worker pool as soon as they
    # are written. Every family has its own generator seeded from (seed, family), so --only
    # reproduces exactly the cases of a full run; ids follow the full plan.
    shm = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    tmpbase = tempfile.mkdtemp(prefix="zip-differential-", dir=shm)
    if os.geteuid() == 0:
        os.chown(tmpbase, NOBODY, NOBODY)
    cases, per_family, futures, chunk = [], {}, [], []
    t_gen = 0.0
    readings = {}
    try:
        with concurrent.futures.ProcessPoolExecutor(max_workers=max(1, args.jobs),
                                                    initializer=_init_worker,
                                                    initargs=(tmpbase,)) as pool:
            next_id = 0
            for family, n, variants in plan(args.count):
                if args.only and family != args.only:
                    next_id += n
                    continue
                rng = random.Random("%d/%s" % (args.seed, family))
                for i in range(n):
                    t = time.monotonic()
                    desc, data = variants[i % len(variants)](rng)
                    cid = "%05d" % next_id
                    next_id += 1
                    with open(os.path.join(cases_dir, cid + ".zip"), "wb") as f:
                        f.write(data)
                    t_gen += time.monotonic() - t
                    cases.append({"id": cid, "file": "cases/%s.zip" % cid, "family": family,
                                  "description": desc})
                    chunk.append((cid, data))
                    if len(chunk) == 8:
                        futures.append(pool.submit(read_chunk, chunk))
                        chunk = []
                per_family[family] = n
            if chunk:
                futures.append(pool.submit(read_chunk, chunk))
            for fut in futures:
                for cid, res in fut.result():
                    readings[cid] = res
    finally:
        _rmtree(tmpbase)
    for c in cases:
        c["readers"] = readings[c["id"]]

    out_path = os.path.join(args.outdir, "readings.json")
    with open(out_path + ".tmp", "w") as f:
        # One case per line: valid JSON that still diffs well.
        f.write('{"readers": %s,\n "cases": [\n' % json.dumps(reader_versions(), sort_keys=True))
        f.write(",\n".join(json.dumps(c, sort_keys=True) for c in cases))
        f.write("\n]}\n")
    os.replace(out_path + ".tmp", out_path)

    elapsed = time.monotonic() - t0
    print("zip-differential: %d cases in %.1f s (%.1f s of it generating, %d jobs): %s "
          "-> %s" % (len(cases), elapsed, t_gen, args.jobs,
                     ", ".join("%s %d" % kv for kv in per_family.items()), out_path),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
