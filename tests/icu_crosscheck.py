"""Checks hash version 2's NFKC_Casefold against ICU's ``nfkc_cf`` (a check to run by hand: it
needs PyICU, which the test suite does not).

For every code point assigned in Python's ``unicodedata`` (Unicode 14.0 on Python 3.11; ICU 72
of Debian 12 has 15.0, the core 16.0.0): the reference's value
(:func:`reference.nfkc_casefold_value`) must equal ICU's, and the core's words of the
character (:func:`neardup.normalize`) must equal the core's words of ICU's value. Then the
reference's :func:`reference.nfkc_casefold` is compared with ICU on random strings heavy in
combining marks: they may differ only where version 2 differs from ICU by design, on text
with U+0345 COMBINING GREEK YPOGEGRAMMENI next to another mark (version 2 takes the
canonical decomposition first, see rust/normalize/casefold.rs).

    apt-get install python3-icu
    PYTHONPATH=python:tests:/usr/lib/python3/dist-packages python tests/icu_crosscheck.py
"""

import random
import sys
import unicodedata

import icu

import neardup

import reference as ref


def main() -> int:
    icu_cf = icu.Normalizer2.getNFKCCasefoldInstance()
    version = icu.UNICODE_VERSION
    assigned = [c for c in range(0x110000) if unicodedata.category(chr(c)) not in ("Cn", "Cs")]
    failures = 0
    for c in assigned:
        char = chr(c)
        want = icu_cf.normalize(char)
        if ref.nfkc_casefold_value(char) != want:
            failures += 1
            print(f"value U+{c:04X}: reference {ref.nfkc_casefold_value(char)!r} icu {want!r}")
        core = neardup.normalize(char)
        if core != neardup.normalize(want):
            failures += 1
            print(f"core U+{c:04X}: {core!r} icu {want!r}")
    rng = random.Random(7)
    pool = [chr(c) for c in assigned if c < 0x30000]
    marks = [chr(c) for c in assigned if icu.Char.getCombiningClass(c) and chr(c) != "\u0345"]
    differ = 0
    for _ in range(200_000):
        text = "".join(rng.choice(pool if rng.random() < 0.6 else marks) for _ in range(6))
        if ref.nfkc_casefold(text) != icu_cf.normalize(text):
            differ += 1
            if "\u0345" not in unicodedata.normalize("NFD", text):
                failures += 1
                print(f"string {text!r}: reference {ref.nfkc_casefold(text)!r}")
    print(
        f"ICU {icu.ICU_VERSION} (Unicode {version}): {len(assigned)} code points; "
        f"{differ} of 200000 random strings differ, all with U+0345; {failures} failures"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
