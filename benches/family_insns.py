"""Instructions per shingle of the MinHash kernels on aarch64 (NEON), counted under qemu-user:
hash version 1's family against version 2's (issue 25 part 2; examples/family_insns.rs is the
workload). Every executed translation block is logged (``-d in_asm,exec,nochain``) and weighted
by its instruction count; the ``none`` run (same program, no signing) is subtracted.

    export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
    cargo build --release --target aarch64-unknown-linux-gnu --example family_insns
    python benches/family_insns.py

Needs Debian's qemu-user (qemu-aarch64) and the aarch64 cross linker (see .ci/aarch64).
Instruction counts, not time: a native run's speed also depends on the multipliers' throughput.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import tempfile
from collections import Counter
from pathlib import Path

BINARY = Path("target/aarch64-unknown-linux-gnu/release/examples/family_insns")
SHINGLES = 200 * 350
TRACE = re.compile(r"^Trace \d+: \S+ \[[0-9a-f]+/([0-9a-f]+)/")
INSN = re.compile(r"^0x([0-9a-f]+):\s")


def executed_instructions(binary: Path, family: str) -> int:
    """Instructions qemu executed for one run of the workload."""
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "qemu.log"
        subprocess.run(
            [
                "qemu-aarch64",
                "-L",
                "/usr/aarch64-linux-gnu",
                "-d",
                "in_asm,exec,nochain",
                "-D",
                str(log),
                str(binary),
                family,
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        sizes: dict[int, int] = {}
        runs: Counter[int] = Counter()
        block: int | None = None
        with log.open(errors="replace") as lines:
            for line in lines:
                if line.startswith("IN:"):
                    block = None
                    continue
                trace = TRACE.match(line)
                if trace:
                    runs[int(trace.group(1), 16)] += 1
                    continue
                insn = INSN.match(line)
                if insn:
                    address = int(insn.group(1), 16)
                    if block is None:
                        block = address
                        sizes[block] = 0
                    sizes[block] += 1
        return sum(count * sizes.get(pc, 0) for pc, count in runs.items())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--binary", type=Path, default=BINARY)
    args = ap.parse_args()
    base = executed_instructions(args.binary, "none")
    print("aarch64 (qemu-user), 128 slots, instructions per shingle (200 x 350 shingles):")
    counts = {}
    for family in ("v1", "v2"):
        counts[family] = (executed_instructions(args.binary, family) - base) / SHINGLES
        print(f"  {family} family: {counts[family]:8.1f}")
    print(f"  ratio v1 / v2: {counts['v1'] / counts['v2']:.2f}")


if __name__ == "__main__":
    main()
