"""Re-creates the real-text corpora of the accuracy evaluation from files on this machine.

Nothing here is synthetic or written by this project: every document is a file or a record
that a Debian or Python package installed. Corpora (one document per item, sorted by source
path so a rebuild on the same machine is byte-identical; a fixed-seed sample caps the size):

- ``code``: Python modules of every interpreter under ~/.pyenv and of /work/venv (the same
  standard-library module across versions is a natural near-duplicate family), and Rust
  sources under ~/.cargo/registry/src.
- ``licences``: /usr/share/common-licenses, Debian /usr/share/doc/*/copyright, LICENSE/COPYING
  files of installed Python distributions (*.dist-info).
- ``descriptions``: Debian's English long package descriptions (Translation-en): template
  families such as librust-*-dev and golang-*-dev.
- ``cjk``: Debian's Chinese and Japanese translated descriptions (Translation-zh_CN/zh_TW/ja).
  Fetch the lists with ``apt-get -o Acquire::Languages=en,zh_CN,zh_TW,ja update``, or into a
  private directory with ``-o Dir::State::Lists=DIR`` (see :data:`APT_DIRS`).
- ``mixed``: the Japanese descriptions and the English descriptions of the same packages, in
  one corpus (two scripts; each package's pair of descriptions shares its Latin words).

    python benches/realtext/corpora.py --out /tmp/realtext      # writes <corpus>.jsonl
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import random
import subprocess
from collections.abc import Iterator
from pathlib import Path

#: Where apt's lists are looked for, in order (the private directory first).
APT_DIRS = ["/tmp/banding_apt/lists", "/var/lib/apt/lists"]

#: Bytes of a document kept (longer files are cut: truth and search see the same text).
MAX_BYTES = 20_000

#: Documents per corpus (a fixed-seed sample when a source has more).
DEFAULT_SIZE = 5_000


def _read(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES)
    except OSError:
        return None
    text = data.decode("utf-8", errors="ignore")
    return text if text.strip() else None


def _files(patterns: list[str]) -> list[str]:
    found: set[str] = set()
    for pattern in patterns:
        found.update(p for p in glob.glob(os.path.expanduser(pattern), recursive=True))
    return sorted(p for p in found if os.path.isfile(p) and not os.path.islink(p))


def code_documents() -> Iterator[tuple[str, str]]:
    paths = _files(
        [
            "~/.pyenv/versions/*/lib/python3*/*.py",
            "~/.pyenv/versions/*/lib/python3*/*/*.py",
            "/work/venv/lib/python3*/site-packages/**/*.py",
            "~/.cargo/registry/src/*/*/src/**/*.rs",
        ]
    )
    for path in paths:
        text = _read(path)
        if text is not None:
            yield path, text


def licence_documents() -> Iterator[tuple[str, str]]:
    paths = _files(
        [
            "/usr/share/common-licenses/*",
            "/usr/share/doc/*/copyright",
            "~/.pyenv/versions/*/lib/python3*/site-packages/*.dist-info/LICEN[CS]E*",
            "~/.pyenv/versions/*/lib/python3*/site-packages/*.dist-info/licenses/*",
            "/work/venv/lib/python3*/site-packages/*.dist-info/LICEN[CS]E*",
            "/work/venv/lib/python3*/site-packages/*.dist-info/licenses/**/*",
            "/work/venv/lib/python3*/site-packages/*.dist-info/COPYING*",
        ]
    )
    for path in paths:
        text = _read(path)
        if text is not None:
            yield path, text


def _apt_lists(suffix: str) -> list[str]:
    for directory in APT_DIRS:
        found = sorted(glob.glob(f"{directory}/*{suffix}*"))
        found = [p for p in found if not p.endswith(("InRelease", ".gz"))]
        if found:
            return found
    return []


def _records(path: str) -> Iterator[dict[str, str]]:
    """Deb822 records of an apt list (lz4-compressed or plain)."""
    if path.endswith(".lz4"):
        data = subprocess.run(["lz4", "-dc", path], check=True, capture_output=True).stdout
    else:
        data = Path(path).read_bytes()
    for block in data.decode("utf-8", errors="ignore").split("\n\n"):
        record: dict[str, str] = {}
        key = None
        for line in block.split("\n"):
            if line.startswith((" ", "\t")) and key is not None:
                record[key] += "\n" + line[1:]
            elif ":" in line:
                key, _, value = line.partition(":")
                record[key] = value.strip()
        if record:
            yield record


def _description(text: str) -> str:
    # A lone "." marks a blank line of the long description.
    return "\n".join("" if line.strip() == "." else line for line in text.split("\n"))


def translations(languages: tuple[str, ...]) -> dict[str, str]:
    """``"<language>:<package>"`` -> long description, from apt's Translation-* lists."""
    found: dict[str, str] = {}
    for path in _apt_lists("i18n_Translation-"):
        for record in _records(path):
            for key, value in record.items():
                language = key[len("Description-") :]
                if key.startswith("Description-") and language in languages:
                    found[f"{language}:{record.get('Package', '')}"] = _description(value)
    return found


def english_descriptions() -> dict[str, str]:
    """package -> English long description (Translation-en; the Packages lists hold only the
    one-line summaries since Debian moved long descriptions out)."""
    return {name[3:]: text for name, text in translations(("en",)).items()}


def description_documents() -> Iterator[tuple[str, str]]:
    yield from sorted(english_descriptions().items())


def cjk_documents() -> Iterator[tuple[str, str]]:
    yield from sorted(translations(("zh_CN", "zh_TW", "ja")).items())


def mixed_documents() -> Iterator[tuple[str, str]]:
    english = english_descriptions()
    for name, text in sorted(translations(("ja",)).items()):
        package = name.partition(":")[2]
        yield name, text
        if package in english:
            yield f"en:{package}", english[package]


SOURCES = {
    "code": code_documents,
    "licences": licence_documents,
    "descriptions": description_documents,
    "cjk": cjk_documents,
    "mixed": mixed_documents,
}


#: The committed CI samples (tests/data/realtext_*.jsonl): the first packages, by name, of two
#: template families of English descriptions (Haskell's -dev/-doc/-prof triples, Go's -dev
#: libraries), and the first 700 Simplified Chinese descriptions by package name.
SAMPLE_FAMILIES = {"libghc-": 1000, "golang-": 500}


def sample_documents() -> dict[str, list[tuple[str, str]]]:
    english = english_descriptions()
    descriptions: list[tuple[str, str]] = []
    for prefix, size in SAMPLE_FAMILIES.items():
        family = sorted(p for p in english if p.startswith(prefix))[:size]
        descriptions.extend((f"debian:{p}", english[p]) for p in family)
    chinese = sorted(translations(("zh_CN",)).items())[:700]
    return {"descriptions": descriptions, "cjk": [(f"debian:{k}", t) for k, t in chinese]}


def build(name: str, size: int = DEFAULT_SIZE) -> list[tuple[str, str]]:
    """(source, text) of corpus ``name``: every document, or a seed-0 sample of ``size``."""
    documents = list(SOURCES[name]())
    if len(documents) > size:
        chosen = sorted(random.Random(0).sample(range(len(documents)), size))
        documents = [documents[i] for i in chosen]
    return documents


def write(documents: list[tuple[str, str]], path: Path) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for source, text in documents:
            handle.write(json.dumps({"source": source, "text": text}, ensure_ascii=False) + "\n")


def read(path: Path) -> list[str]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line)["text"] for line in handle]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("/tmp/realtext"))
    parser.add_argument("--size", type=int, default=DEFAULT_SIZE)
    parser.add_argument("--sample", type=Path, help="write only the CI samples, into this folder")
    parser.add_argument("corpora", nargs="*", default=list(SOURCES))
    args = parser.parse_args()
    if args.sample is not None:
        for name, documents in sample_documents().items():
            write(documents, args.sample / f"realtext_{name}.jsonl")
        return
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.corpora:
        documents = build(name, args.size)
        write(documents, args.out / f"{name}.jsonl")
        print(f"{name}: {len(documents)} documents, {sum(len(t) for _, t in documents):,} chars")


if __name__ == "__main__":
    main()
