#!/usr/bin/env python3
"""Checks a compile report (docs/Compile.md, "The report") as a browser
rendered it: check_report.py DOM.html LAYERS [LOG]

DOM.html is the page's DOM (headless Chromium's --dump-dom, or the file
itself); LAYERS the number of layers the package has. Every layer must have
two spy plots (inline SVG with shapes in them), its facts, format and
ranking tables; the stage table must be there; nothing may be fetched (no
src/href to anything but the page itself). With LOG (Chromium's stderr with
--enable-logging), no console message or failed load may appear in it.
Prints `report ok: ...` or the first problem (exit 1)."""
import sys
from html.parser import HTMLParser


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.spy = 0
        self.spy_shapes = 0
        self.in_spy = False
        self.tables = 0
        self.h2 = []
        self.in_h2 = False
        self.external = []
        self.bars = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg" and "spy-plot" in (a.get("class") or ""):
            self.spy += 1
            self.in_spy = True
        if tag == "svg" and "bars" in (a.get("class") or ""):
            self.bars += 1
        if self.in_spy and tag in ("path", "rect"):
            self.spy_shapes += 1
        if tag == "table":
            self.tables += 1
        if tag == "h2":
            self.in_h2 = True
            self.h2.append("")
        for key in ("src", "href"):
            if a.get(key) and not a[key].startswith("#"):
                self.external.append(a[key])

    def handle_endtag(self, tag):
        if tag == "svg":
            self.in_spy = False
        if tag == "h2":
            self.in_h2 = False

    def handle_data(self, data):
        if self.in_h2:
            self.h2[-1] += data


def main():
    dom, layers = sys.argv[1], int(sys.argv[2])
    page = Page()
    page.feed(open(dom, encoding="utf-8").read())
    layer_heads = [h for h in page.h2 if h.startswith("Layer ")]
    problems = []
    if "Compile stages" not in page.h2:
        problems.append("no 'Compile stages' section")
    if len(layer_heads) != layers:
        problems.append(f"{len(layer_heads)} layer sections, expected {layers}")
    if page.spy != 2 * layers:
        problems.append(f"{page.spy} spy plots, expected {2 * layers}")
    if page.spy_shapes < 2 * layers:
        problems.append(f"the spy plots draw {page.spy_shapes} shapes")
    if page.tables < 1 + 2 * layers:
        problems.append(f"{page.tables} tables, expected at least {1 + 2 * layers}")
    if page.external:
        problems.append(f"the page fetches {page.external[0]}")
    if len(sys.argv) > 3:
        for line in open(sys.argv[3], errors="replace"):
            if "CONSOLE" in line or "Failed to load" in line or "Uncaught" in line:
                problems.append("browser log: " + line.strip())
                break
    if problems:
        print("report problem: " + problems[0])
        return 1
    print(f"report ok: {layers} layers, {page.spy} spy plots, {page.tables} tables, "
          f"{page.bars} bar charts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
