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
- ``scripts``: many scripts in one corpus: Debian's descriptions in English, Russian,
  Ukrainian, Greek, Korean, Khmer, Vietnamese, Chinese and Japanese, and the translated
  messages of the gettext catalogs under /usr/share/locale for Arabic, Persian, Hindi,
  Bengali, Tamil and Thai, 40 messages a document (catalogs such as iso_3166 and iso_3166-1
  are natural near-duplicates). Fetch the lists with
  ``-o Acquire::Languages=en,zh_CN,zh_TW,ja,ru,uk,el,ko,km,vi,fr,de``.
- ``variants``: canonically or compatibly equal spellings: French, German, Vietnamese, Korean
  and Japanese descriptions, each in NFC, in NFD, and with its ASCII in full-width forms and
  its katakana in half-width forms (all equal under NFKC, the normalisation of hash version 2).

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


def _documents(patterns: list[str]) -> Iterator[tuple[str, str]]:
    """(path, text) of every readable file the glob patterns name, in path order."""
    for path in _files(patterns):
        text = _read(path)
        if text is not None:
            yield path, text


def code_documents() -> Iterator[tuple[str, str]]:
    return _documents(
        [
            "~/.pyenv/versions/*/lib/python3*/*.py",
            "~/.pyenv/versions/*/lib/python3*/*/*.py",
            "/work/venv/lib/python3*/site-packages/**/*.py",
            "~/.cargo/registry/src/*/*/src/**/*.rs",
        ]
    )


def licence_documents() -> Iterator[tuple[str, str]]:
    return _documents(
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


#: Languages of the ``scripts`` corpus's Debian descriptions and of its gettext catalogs.
SCRIPT_LANGUAGES = ("en", "ru", "uk", "el", "ko", "km", "vi", "zh_CN", "ja")
CATALOG_LANGUAGES = ("ar", "fa", "hi", "bn", "ta", "th")

#: Translated messages per document of a gettext catalog.
MESSAGES_PER_DOCUMENT = 40


def catalog_documents(languages: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    """The translated messages of /usr/share/locale's catalogs, in message-id order, cut into
    documents of MESSAGES_PER_DOCUMENT."""
    import gettext

    for language in languages:
        for path in _files([f"/usr/share/locale/{language}/LC_MESSAGES/*.mo"]):
            try:
                with open(path, "rb") as handle:
                    catalog = gettext.GNUTranslations(handle)._catalog  # type: ignore[attr-defined]
            except (OSError, ValueError, UnicodeDecodeError):
                continue
            messages = [
                str(text) for key, text in sorted(catalog.items(), key=lambda kv: str(kv[0]))
                if key and isinstance(text, str) and text.strip()
            ]  # fmt: skip
            for at in range(0, len(messages), MESSAGES_PER_DOCUMENT):
                chunk = "\n".join(messages[at : at + MESSAGES_PER_DOCUMENT])
                yield f"{path}#{at // MESSAGES_PER_DOCUMENT}", chunk


#: Descriptions per language in the ``scripts`` corpus (a seed-0 sample of larger languages).
DESCRIPTIONS_PER_LANGUAGE = 600


def _sample(items: list[tuple[str, str]], size: int) -> list[tuple[str, str]]:
    if len(items) <= size:
        return items
    return [items[i] for i in sorted(random.Random(0).sample(range(len(items)), size))]


def script_documents() -> Iterator[tuple[str, str]]:
    for language in SCRIPT_LANGUAGES:
        found = sorted(translations((language,)).items())
        yield from _sample(found, DESCRIPTIONS_PER_LANGUAGE)
    yield from catalog_documents(CATALOG_LANGUAGES)


#: Languages whose descriptions the ``variants`` corpus spells three ways, and how many of each.
VARIANT_LANGUAGES = {"fr": 500, "de": 400, "vi": 200, "ko": 300, "ja": 300}

_FULL_WIDTH = {code: code + 0xFEE0 for code in range(0x21, 0x7F)} | {0x20: 0x3000}


def _half_width_table() -> dict[int, int]:
    """Full-width katakana (and the combining voicing marks) -> their half-width forms."""
    import unicodedata

    table = {}
    for code in range(0xFF61, 0xFFA0):
        wide = unicodedata.normalize("NFKC", chr(code))
        if len(wide) == 1:
            table[ord(wide)] = code
    table[0x3099], table[0x309A] = 0xFF9E, 0xFF9F  # NFKC maps the half-width marks to these
    return table


def variant_documents() -> Iterator[tuple[str, str]]:
    import unicodedata

    half_width = _half_width_table() | _FULL_WIDTH
    for language, size in VARIANT_LANGUAGES.items():
        for name, text in _sample(sorted(translations((language,)).items()), size):
            yield f"{name}:nfc", unicodedata.normalize("NFC", text)
            decomposed = unicodedata.normalize("NFD", text)
            yield f"{name}:nfd", decomposed
            yield f"{name}:width", decomposed.translate(half_width)


SOURCES = {
    "code": code_documents,
    "licences": licence_documents,
    "descriptions": description_documents,
    "cjk": cjk_documents,
    "mixed": mixed_documents,
    "scripts": script_documents,
    "variants": variant_documents,
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
