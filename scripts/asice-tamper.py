#!/usr/bin/env python3
"""asice-tamper.py — make a modified copy of an ASiC-E container for negative tests.

usage: asice-tamper.py IN.asice OUT.asice OPERATION ARGS...

Operations (the zip is rewritten with the same entry order and compression methods):
  flip-byte NAME [OFFSET]      flip the lowest bit of byte OFFSET (default 0) of entry NAME
  sub NAME REGEX REPLACEMENT   re.sub on the UTF-8 text of entry NAME (first match only);
                               fails if nothing matched
  sigvalue [NAME]              flip one bit in the middle of the first ds:SignatureValue of
                               signature file NAME (default: the first META-INF/*signatures*.xml)
  keyinfo CERT [NAME]          replace the first ds:X509Certificate of the signature file with
                               CERT (PEM or DER)
  add-file NAME CONTENT        add a data file (deflated) and its manifest entry
  remove NAME                  drop entry NAME from the zip (the manifest is left alone)

Exit status: 0 written, 1 failure, 2 usage error.
"""
import base64
import io
import re
import sys
import zipfile


def die(msg, code=1):
    sys.stderr.write("asice-tamper.py: %s\n" % msg)
    sys.exit(code)


def usage(msg=None):
    if msg:
        sys.stderr.write("asice-tamper.py: %s\n" % msg)
    sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
    sys.exit(2)


def first_sigfile(names):
    for n in names:
        rest = n[len("META-INF/"):]
        if n.startswith("META-INF/") and "/" not in rest and "signatures" in rest and n.endswith(".xml"):
            return n
    die("no META-INF/*signatures*.xml in the container")


def main(argv):
    if len(argv) < 3 or argv[0] in ("-h", "--help"):
        usage()
    src, dst, op, args = argv[0], argv[1], argv[2], argv[3:]
    try:
        zin = zipfile.ZipFile(src)
    except (OSError, zipfile.BadZipFile) as e:
        die("cannot open %s: %s" % (src, e))
    infos = zin.infolist()
    names = [i.filename for i in infos]
    contents = {i.filename: zin.read(i.filename) for i in infos}
    extra = []  # (name, data) appended at the end

    def need(name):
        if name not in contents:
            die("no entry %r" % name)
        return name

    if op == "flip-byte":
        if len(args) not in (1, 2):
            usage("flip-byte NAME [OFFSET]")
        name = need(args[0])
        off = int(args[1]) if len(args) == 2 else 0
        b = bytearray(contents[name])
        if not 0 <= off < len(b):
            die("offset %d outside %r (%d bytes)" % (off, name, len(b)))
        b[off] ^= 1
        contents[name] = bytes(b)
    elif op == "sub":
        if len(args) != 3:
            usage("sub NAME REGEX REPLACEMENT")
        name = need(args[0])
        text = contents[name].decode("utf-8")
        new, n = re.subn(args[1], args[2], text, count=1, flags=re.S)
        if n == 0:
            die("pattern %r not found in %r" % (args[1], name))
        contents[name] = new.encode("utf-8")
    elif op == "sigvalue":
        if len(args) > 1:
            usage("sigvalue [NAME]")
        name = need(args[0]) if args else first_sigfile(names)
        text = contents[name].decode("utf-8")
        m = re.search(r"(<(?:\w+:)?SignatureValue\b[^>]*>)([^<]*)(<)", text)
        if not m:
            die("no SignatureValue in %r" % name)
        raw = bytearray(base64.b64decode("".join(m.group(2).split())))
        raw[len(raw) // 2] ^= 1
        text = text[:m.start(2)] + base64.b64encode(bytes(raw)).decode() + text[m.end(2):]
        contents[name] = text.encode("utf-8")
    elif op == "keyinfo":
        if len(args) not in (1, 2):
            usage("keyinfo CERT [NAME]")
        data = open(args[0], "rb").read()
        if b"-----BEGIN CERTIFICATE-----" in data:
            body = data.split(b"-----BEGIN CERTIFICATE-----")[1].split(b"-----END CERTIFICATE-----")[0]
            der = base64.b64decode(b"".join(body.split()))
        else:
            der = data
        name = need(args[1]) if len(args) == 2 else first_sigfile(names)
        text = contents[name].decode("utf-8")
        new, n = re.subn(r"(<(?:\w+:)?X509Certificate>)[^<]*(<)",
                         lambda m: m.group(1) + base64.b64encode(der).decode() + m.group(2), text, count=1)
        if n == 0:
            die("no X509Certificate in %r" % name)
        contents[name] = new.encode("utf-8")
    elif op == "add-file":
        if len(args) != 2:
            usage("add-file NAME CONTENT")
        name, content = args
        if name in contents:
            die("entry %r exists" % name)
        mf = "META-INF/manifest.xml"
        need(mf)
        text = contents[mf].decode("utf-8")
        esc = name.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
        entry = ('<manifest:file-entry manifest:full-path="%s" '
                 'manifest:media-type="application/octet-stream"/>' % esc)
        new, n = re.subn(r"(</(?:\w+:)?manifest>)", lambda m: entry + m.group(1), text, count=1)
        if n == 0:
            die("cannot find the end of the manifest")
        contents[mf] = new.encode("utf-8")
        extra.append((name, content.encode("utf-8")))
    elif op == "remove":
        if len(args) != 1:
            usage("remove NAME")
        need(args[0])
        infos = [i for i in infos if i.filename != args[0]]
    else:
        usage("unknown operation %r" % op)

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zout:
        for info in infos:
            zi = zipfile.ZipInfo(info.filename, date_time=info.date_time)
            zi.compress_type = info.compress_type
            zi.external_attr = info.external_attr
            zout.writestr(zi, contents[info.filename])
        for name, data in extra:
            zout.writestr(name, data, zipfile.ZIP_DEFLATED)
    with open(dst, "wb") as f:
        f.write(buf.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
