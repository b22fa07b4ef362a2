#!/usr/bin/env python3
"""Writes small hostile ASiC-E containers, one per kind of attack on a verifier's work
(each once took a verifier seconds to hours of CPU), into OUT-DIR. BASE is a container with one real LTA signature
(signatures0.xml): the reproducers that need real evidence copy its time-stamp token,
ArchiveTimeStamp or OCSP response. HostileInputBudgetTests runs `tamga verify` and
`tamga container ls` on each and holds them to the budget (CPU time of the child per MB of
input, maximum RSS).

usage: make-costly-containers.py BASE.asice OUT-DIR
"""
import os
import re
import sys
import zipfile

MIMETYPE = "application/vnd.etsi.asic-e+zip"
ROOT = ('<asic:XAdESSignatures xmlns:asic="http://uri.etsi.org/02918/v1.2.1#" '
        'xmlns:ds="http://www.w3.org/2000/09/xmldsig#" xmlns:xades="http://uri.etsi.org/01903/v1.3.2#" '
        'xmlns:xades141="http://uri.etsi.org/01903/v1.4.1#"')
C14N11 = "http://www.w3.org/2006/12/xml-c14n11"
SHA256 = "http://www.w3.org/2001/04/xmlenc#sha256"


def manifest(names):
    entries = "".join('<manifest:file-entry manifest:full-path="%s" manifest:media-type="application/octet-stream"/>' % n
                      for n in names)
    return ('<?xml version="1.0" encoding="UTF-8"?><manifest:manifest '
            'xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">'
            '<manifest:file-entry manifest:full-path="/" manifest:media-type="%s"/>%s</manifest:manifest>' % (MIMETYPE, entries))


def write(path, data_files, signatures, manifest_xml=None):
    """data_files: [(name, bytes)]; signatures: [(member name, bytes)]."""
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(zipfile.ZipInfo("mimetype"), MIMETYPE, compress_type=zipfile.ZIP_STORED)
        z.writestr("META-INF/manifest.xml", manifest_xml or manifest([n for n, _ in data_files]),
                   compress_type=zipfile.ZIP_DEFLATED)
        for name, data in data_files:
            z.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED)
        for name, data in signatures:
            z.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED)


def from_base(base, out, xml=None, signatures=None):
    """A copy of BASE with its signature replaced by `xml`, or by the members `signatures`."""
    with zipfile.ZipFile(base) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            if info.filename == "META-INF/signatures0.xml":
                continue
            dst.writestr(info, src.read(info.filename), compress_type=info.compress_type)
        members = signatures if signatures is not None else [("META-INF/signatures0.xml", xml)]
        for name, data in members:
            dst.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED)


def repeat(xml, pattern, copies):
    """`xml` with the first match of `pattern` repeated `copies` times."""
    m = re.search(pattern, xml, re.S)
    if not m:
        sys.exit("make-costly-containers.py: no %s in the base signature" % pattern)
    return xml[:m.start()] + m.group(0) * copies + xml[m.end():]


def skeleton(signed_info_refs, signed_properties="", unsigned=""):
    """A signature with the given references and properties (the rest missing or empty)."""
    return (ROOT + '><ds:Signature Id="S0"><ds:SignedInfo><ds:CanonicalizationMethod Algorithm="%s"/>'
            '<ds:SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256"/>%s</ds:SignedInfo>'
            '<ds:SignatureValue>AAAA</ds:SignatureValue><ds:KeyInfo/><ds:Object><xades:QualifyingProperties Target="#S0">'
            '<xades:SignedProperties Id="SP">%s</xades:SignedProperties>%s</xades:QualifyingProperties></ds:Object>'
            '</ds:Signature></asic:XAdESSignatures>') % (C14N11, signed_info_refs, signed_properties, unsigned)


SP_REFERENCE = ('<ds:Reference Type="http://uri.etsi.org/01903#SignedProperties" URI="#SP"><ds:Transforms>'
                '<ds:Transform Algorithm="%s"/></ds:Transforms><ds:DigestMethod Algorithm="%s"/>'
                '<ds:DigestValue>AAAA</ds:DigestValue></ds:Reference>' % (C14N11, SHA256))
FILE_REFERENCE = ('<ds:Reference Id="r1" URI="a.bin"><ds:DigestMethod Algorithm="%s"/>'
                  '<ds:DigestValue>AAAA</ds:DigestValue></ds:Reference>' % SHA256)


def nested_declarations(levels, per_level, leaves, separator):
    """`levels` nested elements with `per_level` declarations each, around `leaves` empty ones."""
    decls = lambda level: "".join(' xmlns:p%d_%d%s="urn:%d:%d"' % (level, i, separator, level, i) for i in range(per_level))
    return ("".join("<e%s>" % decls(level) for level in range(levels)) + "<f/>" * leaves + "</e>" * levels)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    base, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    with zipfile.ZipFile(base) as z:
        lta = z.read("META-INF/signatures0.xml").decode()
    token = re.search(r"<xades:EncapsulatedTimeStamp[^>]*>([^<]*)<", lta).group(1)
    small = [("a.bin", b"x")]

    def plain(name, xml, data_files=small):
        write(os.path.join(out, name), data_files, [("META-INF/signatures0.xml", xml.encode())])

    # Namespace declarations: thousands on one element, spread one per element, 50 levels of 60
    # above SignedProperties (the audit's 52 s case, with white space before `=`), and many in
    # scope over many elements (each count within its limit) just past and just below the bound.
    plain("namespaces-root.asice", ROOT + "".join(' xmlns:n%d ="urn:n%d"' % (i, i) for i in range(5000))
          + "><ds:Signature/></asic:XAdESSignatures>")
    plain("namespaces-spread.asice", ROOT + "><ds:Signature>" + "".join('<n%d:x xmlns:n%d\t="urn:n%d"/>' % (i, i, i) for i in range(5000))
          + "</ds:Signature></asic:XAdESSignatures>")
    plain("namespaces-nested.asice", skeleton(FILE_REFERENCE + SP_REFERENCE, nested_declarations(50, 60, 1000, "\n")))
    plain("namespaces-in-scope.asice", skeleton(FILE_REFERENCE + SP_REFERENCE, nested_declarations(2, 60, 95000, "")))
    plain("namespaces-in-scope-below-bound.asice", skeleton(FILE_REFERENCE + SP_REFERENCE, nested_declarations(2, 60, 3900, "")))
    # Attributes, elements, depth.
    plain("attributes.asice", ROOT + "><ds:Signature" + "".join(" a%d='1'" % i for i in range(200000)) + "/></asic:XAdESSignatures>")
    plain("elements.asice", ROOT + "><ds:Signature>" + "<a/>" * 4000000 + "</ds:Signature></asic:XAdESSignatures>")
    plain("depth.asice", ROOT + ">" + "<a>" * 100000 + "</a>" * 100000 + "</asic:XAdESSignatures>")
    # Members at the size limits (16 MB each, 64 MB in all) that are one long text, a few KB
    # each compressed: everything that reads the text is paid per inflated byte.
    write(os.path.join(out, "large-members.asice"), small,
          [("META-INF/signatures%d.xml" % i, (ROOT + "><ds:Signature><ds:SignatureValue>" + "A" * ((16 << 20) - 400)
            + "</ds:SignatureValue></ds:Signature></asic:XAdESSignatures>").encode()) for i in range(4)])
    # References to one large, well compressed data file, with a copied archive time-stamp
    # token (the audit's 11 s case), past the bound and below it.
    zeros = [("a.bin", bytes(8 << 20))]
    archive = ('<xades:UnsignedProperties><xades:UnsignedSignatureProperties><xades:SignatureTimeStamp>'
               '<xades:EncapsulatedTimeStamp>%s</xades:EncapsulatedTimeStamp></xades:SignatureTimeStamp><xades:RevocationValues/>'
               '<xades141:ArchiveTimeStamp><xades:EncapsulatedTimeStamp>%s</xades:EncapsulatedTimeStamp></xades141:ArchiveTimeStamp>'
               '</xades:UnsignedSignatureProperties></xades:UnsignedProperties>') % (token, token)
    plain("references.asice", skeleton('<ds:Reference URI="a.bin"/>' * 200, "", archive), zeros)
    plain("references-below-bound.asice", skeleton('<ds:Reference URI="a.bin"/>' * 16, "", archive), zeros)
    # The real LTA signature with one of its parts repeated.
    variants = {
        "signedproperties-references.asice": (r'<ds:Reference [^>]*Type="http://uri.etsi.org/01903#SignedProperties".*?</ds:Reference>', 10000),
        "archive-timestamps.asice": (r"<xades141:ArchiveTimeStamp.*?</xades141:ArchiveTimeStamp>", 2000),
        "archive-timestamps-at-bound.asice": (r"<xades141:ArchiveTimeStamp.*?</xades141:ArchiveTimeStamp>", 100),
        "ocsp-values.asice": (r"<xades:EncapsulatedOCSPValue[^>]*>[^<]*</xades:EncapsulatedOCSPValue>", 2000),
    }
    for name, (pattern, copies) in variants.items():
        from_base(base, os.path.join(out, name), xml=repeat(lta, pattern, copies).encode())
    # Signatures: thousands in one file, and the real one in many files.
    from_base(base, os.path.join(out, "signatures-in-one-file.asice"),
              xml=(ROOT + ">" + "<ds:Signature><ds:SignedInfo/></ds:Signature>" * 5000 + "</asic:XAdESSignatures>").encode())
    from_base(base, os.path.join(out, "signature-files.asice"),
              signatures=[("META-INF/signatures%d.xml" % i, lta.encode()) for i in range(200)])


if __name__ == "__main__":
    main()
