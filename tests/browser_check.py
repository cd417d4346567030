#!/usr/bin/python3
"""Opens rica report pages in headless Chromium and fails on what a reader would see broken.

Usage: tests/browser_check.py PAGE.html [PAGE.html ...] --shots DIR

For each page: (1) a copy with a small probe script first in <head> is loaded with
--dump-dom (network requests refused by the host resolver, so anything not inline fails to load):
the probe records every error event (script errors, images or other resources that fail to load),
console.error/console.warn calls and unhandled rejections, and at `load` writes them with the
count of images that did not decode into the DOM, where the dump shows them; (2) the page itself
is screenshotted and the PNG must not be blank (pixel variance above a floor, and some ink).

Exit 0 all good; 1 a page failed (each failure on a line); 77 Chromium is absent outside CI (ctest
reports the test as skipped; in CI, CI=1 or RICA_CI=1 set, its absence is a failure).
"""
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

PROBE = """<script>
window.__rica = {errors: []};
window.addEventListener('error', function (e) {
  var t = e.target;
  if (t && t !== window && t.tagName) window.__rica.errors.push('resource failed: <' + t.tagName.toLowerCase() + '> '
      + (t.alt || String(t.src || t.href || '').slice(0, 80)));
  else window.__rica.errors.push('script error: ' + e.message);
}, true);
window.addEventListener('unhandledrejection', function (e) { window.__rica.errors.push('unhandled rejection: ' + e.reason); });
['error', 'warn'].forEach(function (k) {
  var f = console[k];
  console[k] = function () { window.__rica.errors.push('console.' + k + ': ' + Array.prototype.join.call(arguments, ' '));
                             return f.apply(console, arguments); };
});
window.addEventListener('load', function () {
  var imgs = document.images, broken = [];
  for (var i = 0; i < imgs.length; ++i)
    if (!imgs[i].complete || imgs[i].naturalWidth === 0) broken.push(imgs[i].alt || ('image ' + i));
  var r = document.createElement('pre');
  r.id = 'rica-browser-check';
  r.textContent = JSON.stringify({errors: window.__rica.errors, images: imgs.length, broken: broken,
                                  sections: document.querySelectorAll('section').length});
  document.body.appendChild(r);
});
</script>
"""

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
         "--disable-extensions", "--disable-background-networking", "--host-resolver-rules=MAP * ~NOTFOUND",
         "--hide-scrollbars"]


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None


def check(browser, page, shots, failures, index=0):
    name = os.path.basename(page)
    with open(page, encoding="utf-8") as f:
        text = f.read()
    # Self-contained: nothing referenced by URL (the data: figures excepted).
    for m in re.finditer(r'(?:src|href)\s*=\s*"([^"]*)"', text):
        url = m.group(1)
        if not (url.startswith("data:") or url.startswith("#")):
            failures.append(f"{name}: references {url[:80]!r} (not inline)")
    with tempfile.TemporaryDirectory(prefix="rica-browser-") as tmp:
        probed = os.path.join(tmp, name)
        i = text.find("<head>")
        if i < 0:
            failures.append(f"{name}: no <head>")
            return
        with open(probed, "w", encoding="utf-8") as f:
            f.write(text[:i + 6] + PROBE + text[i + 6:])
        r = subprocess.run([browser] + FLAGS + [f"--user-data-dir={tmp}/profile", "--virtual-time-budget=5000",
                                                "--dump-dom", "file://" + probed],
                           capture_output=True, text=True, timeout=300)
        m = re.search(r'<pre id="rica-browser-check">(.*?)</pre>', r.stdout, re.S)
        if not m:
            failures.append(f"{name}: the probe did not report (exit {r.returncode}; {r.stderr.strip()[-300:]})")
            return
        res = json.loads(html.unescape(m.group(1)))
        for e in res["errors"]:
            failures.append(f"{name}: {e}")
        for b in res["broken"]:
            failures.append(f"{name}: image not shown: {b}")
        if res["sections"] < 2:
            failures.append(f"{name}: {res['sections']} sections")
        print(f"{name}: {res['images']} images, {res['sections']} sections, {len(res['errors'])} errors")
        shot = os.path.join(shots, f"{index}-{name[:-5]}.png")
        r = subprocess.run([browser] + FLAGS + [f"--user-data-dir={tmp}/profile2", "--window-size=1280,1600",
                                                f"--screenshot={shot}", "file://" + os.path.abspath(page)],
                           capture_output=True, text=True, timeout=300)
        if not os.path.isfile(shot):
            failures.append(f"{name}: no screenshot (exit {r.returncode}; {r.stderr.strip()[-300:]})")
            return
    import matplotlib.image
    import numpy as np
    a = matplotlib.image.imread(shot)[..., :3].astype(float)
    grey = a.mean(axis=2)
    ink = float((grey < 0.9).mean())  # share of pixels darker than near-white
    if grey.std() < 0.05 or ink < 0.02:
        failures.append(f"{name}: screenshot looks blank (std {grey.std():.3f}, ink {ink:.3f})")
    print(f"{name}: screenshot {shot}: {a.shape[1]}x{a.shape[0]}, std {grey.std():.3f}, ink {ink:.3f}")


def main():
    args = sys.argv[1:]
    if "--shots" not in args:
        sys.exit("usage: browser_check.py PAGE.html ... --shots DIR")
    k = args.index("--shots")
    shots, pages = args[k + 1], args[:k] + args[k + 2:]
    os.makedirs(shots, exist_ok=True)
    browser = chromium()
    if not browser:
        if os.environ.get("CI") or os.environ.get("RICA_CI"):
            print("FAIL: chromium is not installed (bash scripts/setup.sh installs it); CI needs the browser test")
            sys.exit(1)
        print("SKIPPED: the browser test needs chromium (Debian: chromium; bash scripts/setup.sh installs it)")
        sys.exit(77)
    failures = []
    for i, p in enumerate(pages):
        check(browser, p, shots, failures, i)
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
