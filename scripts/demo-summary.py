#!/usr/bin/python3
"""demo-summary.py VERIFY.json XMLSEC.txt PYASICE.txt OPENSSL.txt -- SIGNED-WITH...

The closing table of `make demo` (scripts/demo.sh): one row per signature of the demo's
container, with what signed it (the demo's own words, in signing order), the signer as tamga
names it, the profile, tamga's verdict, and what each independent checker said of that signature.

VERIFY.json is `tamga verify --json`; the three text files are the outputs of
scripts/xmlsec-check.sh, scripts/pyasice-check.py and scripts/lt-check.py, whose lines start with
`[META-INF/]signaturesN.xml#ID:` and end in OK or FAIL (xmlsec-check.sh: `: OK (…)`/`: FAIL (…)`;
the others `-> OK`/`-> FAIL`). A signature a checker did not mention is shown as `-`.

Exit status: 0 when every signature is VALID for tamga and OK for every checker, 1 otherwise
(the demo then fails: a demo that shows a failure as a success is worse than none), 2 usage.
"""
import json
import re
import sys

LINE = re.compile(r"^(?:META-INF/)?(signatures\d*\.xml)#([^:\s]+):\s?(.*)$")


def checker_verdicts(path):
    """{(file name, signature Id): "OK" | "FAIL"} from one checker's output."""
    verdicts = {}
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError as error:
        print("demo-summary.py: cannot read %s: %s" % (path, error), file=sys.stderr)
        return verdicts
    for line in lines:
        match = LINE.match(line.strip())
        if not match:
            continue
        rest = match.group(3).rstrip()
        if rest.startswith("FAIL") or rest.endswith("-> FAIL") or "checker error" in rest:
            verdict = "FAIL"
        elif rest.startswith("OK") or rest.endswith("-> OK"):
            verdict = "OK"
        else:
            continue
        key = (match.group(1), match.group(2))
        # A signature seen twice keeps its worst verdict.
        verdicts[key] = "FAIL" if verdicts.get(key) == "FAIL" else verdict
    return verdicts


def main(argv):
    if "--" not in argv or argv.index("--") != 4:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    verify_path, *checker_paths = argv[:4]
    signed_with = argv[5:]
    try:
        with open(verify_path, encoding="utf-8") as handle:
            report = json.load(handle)
    except (OSError, ValueError) as error:
        print("demo-summary.py: cannot read tamga's report %s: %s" % (verify_path, error), file=sys.stderr)
        return 1
    checkers = [("xmlsec1", checker_paths[0]), ("pyasice", checker_paths[1]), ("openssl", checker_paths[2])]
    verdicts = [(name, checker_verdicts(path)) for name, path in checkers]

    def number(signature):
        digits = re.sub(r"\D", "", signature.get("file", ""))
        return int(digits) if digits else 0

    signatures = sorted(report.get("signatures", []), key=number)
    header = ["#", "signed with", "signer", "profile", "tamga"] + [name for name, _ in checkers]
    rows = []
    all_good = bool(signatures)
    for index, signature in enumerate(signatures):
        key = (signature.get("file", "").split("/")[-1], signature.get("id", ""))
        status = signature.get("status", "?")
        row = [str(index + 1), signed_with[index] if index < len(signed_with) else "?",
               signature.get("signerName") or signature.get("signer", "?"), signature.get("profile", "?"), status]
        for _, found in verdicts:
            row.append(found.get(key, "-"))
        all_good = all_good and status == "VALID" and all(cell == "OK" for cell in row[5:])
        rows.append(row)
    widths = [max(len(row[column]) for row in [header] + rows) for column in range(len(header))]
    for row in [header] + rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
    print()
    print("Container: %s, %s for tamga; %d signature%s, %d signed as the demo said."
          % (report.get("container", "?").split("/")[-1], report.get("status", "?"), len(signatures),
             "" if len(signatures) == 1 else "s", len(signed_with)))
    if len(signed_with) != len(signatures):
        all_good = False
        print("demo-summary.py: the demo signed %d times but the container has %d signatures"
              % (len(signed_with), len(signatures)), file=sys.stderr)
    if not all_good:
        print("demo-summary.py: a signature is not VALID, or a checker did not say OK (see above)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
