#!/usr/bin/python3
"""check-package-dependencies.py [REPOSITORY] — each target of Package.swift declares the modules
its Swift files import, and nothing else.

A module that imports another it does not declare builds only because some other dependency
happens to bring it along; one that declares a module it never imports links it for nothing
(the co-signer once linked libpcsclite through PKCS11's unused PCSC dependency). Prints one line
per target that differs and exits 1; prints the number of targets checked and exits 0 when all
agree. The one link-only dependency (TamgaCore on CDeferredLibraries, whose trampolines
TamgaCore's OpenSSL calls resolve to) is allowed by name below.
"""
import os
import re
import sys

# Declared on purpose without an import: (target, dependency) -> why.
LINK_ONLY = {("TamgaCore", "CDeferredLibraries"): "OpenSSL's calls resolve to its trampolines"}

TARGET = re.compile(r'\.(target|testTarget|executableTarget|systemLibrary|plugin)\(\s*name:\s*"([^"]+)"')
IMPORT = re.compile(r'\s*(?:@_exported\s+|@testable\s+|@preconcurrency\s+|internal\s+|public\s+|package\s+|private\s+|fileprivate\s+)*import\s+(\w+)')


def targets(manifest):
    """{name: (kind, declared dependencies, path)} from the manifest's text."""
    found = {}
    starts = [(m.start(), m.group(1), m.group(2)) for m in TARGET.finditer(manifest)]
    for index, (start, kind, name) in enumerate(starts):
        end = starts[index + 1][0] if index + 1 < len(starts) else len(manifest)
        text = manifest[start:end]
        dependencies = re.search(r'dependencies:\s*\[([^\]]*)\]', text)
        declared = set(re.findall(r'"([^"]+)"', dependencies.group(1))) if dependencies else set()
        path = re.search(r'path:\s*"([^"]+)"', text)
        folder = path.group(1) if path else ("Tests/" if kind == "testTarget" else "Sources/") + name
        found[name] = (kind, declared, folder)
    return found


def imports(folder, modules):
    used = set()
    for root, _, files in os.walk(folder):
        for file in files:
            if not file.endswith(".swift"):
                continue
            with open(os.path.join(root, file), encoding="utf-8", errors="replace") as handle:
                for line in handle:
                    match = IMPORT.match(line)
                    if match and match.group(1) in modules:
                        used.add(match.group(1))
    return used


def main(argv):
    repository = argv[0] if argv else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    with open(os.path.join(repository, "Package.swift"), encoding="utf-8") as handle:
        found = targets(handle.read())
    modules = set(found)
    problems = []
    checked = 0
    for name, (kind, declared, folder) in sorted(found.items()):
        if kind in ("systemLibrary", "plugin"):
            continue
        checked += 1
        used = imports(os.path.join(repository, folder), modules) - {name}
        missing = sorted(used - declared)
        unused = sorted(d for d in declared - used if (name, d) not in LINK_ONLY and found.get(d, ("plugin",))[0] != "plugin")
        if missing:
            problems.append("%s imports %s but does not declare it" % (name, ", ".join(missing)))
        if unused:
            problems.append("%s declares %s but never imports it" % (name, ", ".join(unused)))
    for problem in problems:
        print(problem)
    if problems:
        return 1
    print("%d targets: each declares what it imports, and nothing else" % checked)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
