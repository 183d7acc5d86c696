"""Text -> MinHash signatures (hash version 2, classic, P=128, k=5 words, one thread) in MB/s
per core on the corpus of ``compare_cli_api.py``, through the public ``neardup.minhash`` stage
and through the one-call sign of the Ray map (``neardup.ray._sign.sign_texts``'s
``_core.sign_texts``: sets' digests and signatures). CPU seconds (``time.process_time``), best
of the rounds:

    PYTHONPATH=$PWD/python python benches/sign_throughput.py --docs 100000 --rounds 3

Two builds compare by running this alternately with each on PYTHONPATH (the number is per
process; compare only runs made side by side). The peers' MB/s for the same stage are in the
ratio table of ``pytest benches/test_peers.py benches/test_neardup.py -k signatures``.
"""

from __future__ import annotations

import argparse
import time

from compare_cli_api import corpus

import neardup
from neardup import _core


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    texts = corpus(args.docs)
    mb = sum(len(t.encode()) for t in texts) / 1e6
    runs = {
        "minhash": lambda: neardup.minhash(texts, num_perm=128, k=5, threads=1),
        # The sign pass when the sets are not kept (estimate verification, the default).
        "sign_texts": lambda: _core.sign_texts(texts, 5, "word", 2, 128, 0, "classic", 1, False),
    }
    best = {name: float("inf") for name in runs}
    for _ in range(args.rounds):
        for name, fn in runs.items():
            c0 = time.process_time()
            fn()
            best[name] = min(best[name], time.process_time() - c0)
    print(f"{neardup.__file__}  {len(texts)} docs, {mb:.1f} MB")
    for name, secs in best.items():
        print(f"{name:<12}{secs:8.3f} CPU s {mb / secs:8.1f} MB/s")


if __name__ == "__main__":
    main()
