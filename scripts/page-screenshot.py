#!/usr/bin/python3
"""page-screenshot.py PAGE.html OUT.png [--width PIXELS] — a screenshot of the whole page.

Headless Chromium takes a screenshot of its window, and its command line has no full-page
option: a fixed window cuts a longer page (the compare report's footer — system, kernel,
processor, the PIN note — was cut at 1700 pixels). So the page is first laid out at the same
width in a copy that records its own height (a script added to the copy only: the page itself
runs no script), then the window is made that tall. Used by `make demo` (docs/compare-report.png
is its picture) and by the browser tests, which check that the footer is in the picture.

Prints `OUT.png WIDTHxHEIGHT`. Exit status 0, 1 when Chromium fails, 2 usage.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
MEASURE = ("<script>document.body.setAttribute('data-page-height', "
           "String(Math.ceil(Math.max(document.documentElement.scrollHeight, document.body.scrollHeight))))</script>")


def chromium(profile, arguments):
    # Root (CI) needs --no-sandbox; a private profile folder so that runs never share state.
    command = [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
               "--user-data-dir=" + profile] + arguments
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def main(argv):
    width = 1200
    words = list(argv)
    if "--width" in words:
        index = words.index("--width")
        try:
            width = int(words[index + 1])
        except (IndexError, ValueError):
            print(__doc__.strip().splitlines()[0], file=sys.stderr)
            return 2
        del words[index:index + 2]
    if len(words) != 2 or width < 100:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    page, out = os.path.abspath(words[0]), os.path.abspath(words[1])
    try:
        with open(page, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as error:
        print("page-screenshot.py: cannot read %s: %s" % (page, error), file=sys.stderr)
        return 2
    work = tempfile.mkdtemp(prefix="page-screenshot-")
    try:
        # The measuring copy beside the page, so relative references resolve alike.
        copy = os.path.join(os.path.dirname(page), ".measure-%d-%s" % (os.getpid(), os.path.basename(page)))
        # The copy runs the one script: the page's own Content-Security-Policy forbids any.
        measured = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", text, flags=re.IGNORECASE)
        at = measured.rfind("</body>")
        with open(copy, "w", encoding="utf-8") as handle:
            handle.write(measured[:at] + MEASURE + measured[at:] if at >= 0 else measured + MEASURE)
        try:
            dom = chromium(os.path.join(work, "measure"), ["--window-size=%d,800" % width, "--dump-dom", "file://" + copy])
        finally:
            os.unlink(copy)
        found = re.search(r'data-page-height="(\d+)"', dom.stdout)
        if dom.returncode != 0 or not found:
            print("page-screenshot.py: Chromium did not lay the page out (exit %d): %s" % (dom.returncode, dom.stderr[-500:]),
                  file=sys.stderr)
            return 1
        height = max(100, int(found.group(1)))
        shot = chromium(os.path.join(work, "shot"), ["--window-size=%d,%d" % (width, height), "--screenshot=" + out, "file://" + page])
        if shot.returncode != 0 or not os.path.exists(out):
            print("page-screenshot.py: no screenshot (exit %d): %s" % (shot.returncode, shot.stderr[-500:]), file=sys.stderr)
            return 1
        print("%s %dx%d" % (out, width, height))
        return 0
    except subprocess.TimeoutExpired:
        print("page-screenshot.py: Chromium took over 120 s", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
