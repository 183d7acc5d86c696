"""A persistent, incremental near-duplicate index in one SQLite file (no server).

Each document is stored as its MinHash signature (a ``num_perm × 4``-byte blob: 512 bytes at
P = 128) plus one row per LSH band key. ``add`` returns, for every new document, the already
indexed documents it near-duplicates; ``query`` does the same without inserting.

The file records every parameter that changes the stored bits (hash version, P, seed, k,
shingle unit, bands, rows, normalisation) together with a *probe*: the signature of a fixed
text computed when the index was created. Opening the index with different parameters, or
with a neardup build whose hashing or normalisation produces different bits, raises
:class:`IndexMismatchError` instead of silently matching nothing.

SQLite runs in WAL mode with one transaction per ``add``/``remove`` call, so a process killed
mid-batch loses only the uncommitted batch and leaves a consistent index.

>>> import neardup
>>> with neardup.Index("corpus.ndx", threshold=0.5) as ix:
...     ix.add(["a", "b"], ["the quick brown fox jumps over the lazy dog", "lorem ipsum dolor"])
...     ix.query(["the quick brown fox jumps over the lazy dog today"])
[[], []]
[[Match(id='a', similarity=0.8671875)]]
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, cast

import numpy as np

from neardup.errors import IndexMismatchError

if TYPE_CHECKING:
    from neardup.stages import Unit

__all__ = ["INDEX_FORMAT", "Index", "IndexMismatchError", "Match"]

#: Version of the on-disk layout of this module.
INDEX_FORMAT = 1

_PROBE_TEXT = (
    "Ünïcode PROBE text — the quick brown fox jumps over the lazy dog; "
    "near-duplicate detection, MinHash & LSH! 12345 e\u0301t\u00e9"
)
_BAND_MIX = np.uint64(0x9E3779B97F4A7C15)
_EMPTY_SLOT = np.uint32(0xFFFFFFFF)


class Match(NamedTuple):
    """An indexed document that near-duplicates a new or queried one.

    >>> Match("doc-1", 0.75).id
    'doc-1'
    """

    id: str
    similarity: float


def _hash_version() -> str:
    import neardup

    for name in ("HASH_VERSION", "__hash_version__"):
        v = getattr(neardup, name, None)
        if v is None:
            core = getattr(neardup, "_core", None)
            v = getattr(core, name, None) if core is not None else None
        if v is not None:
            return str(v)
    return "unversioned"


class _Block:
    """Signatures of some documents plus their band keys, sorted and bucketed by top bits.

    A lookup maps each query key to its bucket through a directory of ``2**bits`` offsets
    and compares the few keys there: a handful of vectorised numpy operations per query.
    """

    def __init__(
        self, docs: np.ndarray, sigs: np.ndarray, keys: np.ndarray, live: np.ndarray, ids: Any
    ):
        self.docs, self.sigs, self.raw_keys, self.live = docs, sigs, keys, live
        self.ids = np.asarray(ids, dtype=object)
        bands = keys.shape[1] if keys.ndim == 2 else 0
        flat = np.ascontiguousarray(keys[live]).ravel().view(np.uint64)
        owners = np.repeat(docs[live], bands)
        order = np.argsort(flat, kind="stable")
        self.keys, self.kdocs = flat[order], owners[order]
        bits = int(np.clip(np.ceil(np.log2(max(len(flat), 2))) - 1, 1, 24))
        self.shift = np.uint64(64 - bits)
        counts = np.bincount((self.keys >> self.shift).astype(np.int64), minlength=1 << bits)
        self.dir = np.zeros((1 << bits) + 1, dtype=np.int64)
        np.cumsum(counts, out=self.dir[1:])

    def concat(self, other: _Block) -> _Block:
        """This block's documents followed by ``other``'s, re-indexed."""
        return _Block(
            np.concatenate([self.docs, other.docs]),
            np.concatenate([self.sigs, other.sigs]),
            np.concatenate([self.raw_keys, other.raw_keys]),
            np.concatenate([self.live, other.live]),
            np.concatenate([self.ids, other.ids]),
        )

    def lookup(self, q: np.ndarray) -> list[np.ndarray]:
        qu = np.ascontiguousarray(q).view(np.uint64)
        top = (qu >> self.shift).astype(np.int64)
        start, end = self.dir[top], self.dir[top + 1]
        width = int((end - start).max()) if len(start) else 0
        if width == 0:
            return []
        idx = start[:, None] + np.arange(width)
        valid = idx < end[:, None]
        idx = np.where(valid, idx, 0)
        hit = valid & (self.keys[idx] == qu[:, None])
        return [self.kdocs[idx[hit]]] if hit.any() else []

    def signatures(self, docs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(found mask, signatures and ids of the found ones); self.docs is sorted."""
        if len(self.docs) == 0:
            return np.zeros(len(docs), bool), self.sigs[:0], self.ids[:0]
        i = np.minimum(np.searchsorted(self.docs, docs), len(self.docs) - 1)
        found = self.docs[i] == docs
        return found, self.sigs[i[found]], self.ids[i[found]]


class _Memory:
    """In-memory mirror of the index used for lookups (a main block and a small delta)."""

    def __init__(self, main: _Block, version: int) -> None:
        self.main = main
        self.delta: _Block | None = None
        self.version = version
        self.removed: set[int] = set()
        self._removed_arr = np.zeros(0, np.int64)

    def append(self, block: _Block) -> None:
        if self.delta is not None:
            block = self.delta.concat(block)
        if len(block.docs) > max(2000, len(self.main.docs) // 8):
            block = self.main.concat(block)
            self.main, self.delta = block, None
        else:
            self.delta = block

    def forget(self, docs: Iterable[int]) -> None:
        self.removed.update(int(d) for d in docs)
        self._removed_arr = np.fromiter(self.removed, dtype=np.int64, count=len(self.removed))

    def candidates(self, q: np.ndarray) -> np.ndarray:
        parts = self.main.lookup(q)
        if self.delta is not None:
            parts += self.delta.lookup(q)
        if not parts:
            return np.zeros(0, np.int64)
        c = np.unique(np.concatenate(parts))
        if self.removed:
            c = c[~np.isin(c, self._removed_arr)]
        return c

    def signatures(self, docs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(signatures, ids) of documents known to be present."""
        found, sigs, ids = self.main.signatures(docs)
        if found.all() or self.delta is None:
            return sigs, ids
        out = np.empty((len(docs), self.main.sigs.shape[1]), dtype=np.uint32)
        names = np.empty(len(docs), dtype=object)
        out[found], names[found] = sigs, ids
        _, out[~found], names[~found] = self.delta.signatures(docs[~found])
        return out, names


class Index:
    """Persistent MinHash-LSH index on SQLite.

    New index: parameters default to ``threshold=0.3, num_perm=128, k=5, seed=0,
    unit="word"`` and (bands, rows) from ``neardup.lsh_params``. Existing index: omitted
    parameters are read from the file; given ones must equal the stored ones, except
    ``threshold`` (a verification setting that may differ per session).

    Ids are stored as text (``str(id)``). With ``cache=True`` (default) lookups run on an
    in-memory copy of the signatures and sorted band keys (about ``4·P + 16·b`` bytes per
    document), loaded on first use and refreshed when another connection commits; with
    ``cache=False`` every lookup is an SQL query on the band-key table.

    >>> ix = Index("my.ndx", threshold=0.4, num_perm=128, k=5)
    >>> ix.add(["d1"], ["some document text here and there"])
    [[]]
    >>> ix.stats()["documents"]
    1
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        threshold: float | None = None,
        num_perm: int | None = None,
        k: int | None = None,
        seed: int | None = None,
        bands: int | None = None,
        rows: int | None = None,
        unit: Unit | None = None,
        create: bool = True,
        cache: bool = True,
    ) -> None:
        self.path = os.fspath(path)
        exists = os.path.exists(self.path) and os.path.getsize(self.path) > 0
        if not exists and not create:
            raise FileNotFoundError(f"{self.path}: no such index")
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, timeout=30.0)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            has_meta = self._db.execute(
                "SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'"
            ).fetchone()
        except sqlite3.DatabaseError as e:
            raise IndexMismatchError(f"{self.path}: not a neardup index ({e})") from e
        given = {
            "num_perm": num_perm,
            "k": k,
            "seed": seed,
            "bands": bands,
            "rows": rows,
            "unit": unit,
        }
        if has_meta:
            self.params = self._load_params()
            self._check(given)
            if threshold is not None:
                self.params["threshold"] = float(threshold)
        else:
            if exists:
                tables = self._db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
                if tables:
                    raise IndexMismatchError(f"{self.path}: SQLite file is not a neardup index")
            self.params = self._create(threshold, given)
        p = self.params
        self.threshold: float = float(p["threshold"])
        self.num_perm: int = int(p["num_perm"])
        self.k: int = int(p["k"])
        self.seed: int = int(p["seed"])
        self.bands: int = int(p["bands"])
        self.rows: int = int(p["rows"])
        self.unit = cast("Unit", str(p["unit"]))  # the signing stages check it
        with np.errstate(over="ignore"):
            self._mix = np.arange(self.bands, dtype=np.uint64) * _BAND_MIX
        self._cache = bool(cache)
        self._mem: _Memory | None = None
        self._sql_lookup = (
            "SELECT doc, id, sig FROM docs WHERE doc IN (SELECT doc FROM bands WHERE band_key IN ("
            + ",".join("?" * self.bands)
            + "))"
        )

    # -- parameters --------------------------------------------------------------------------
    def _probe(self, num_perm: int, seed: int, k: int, unit: Unit) -> dict[str, str]:
        import hashlib  # here, not at the top: loading OpenSSL costs milliseconds at import

        from neardup import minhash, normalize

        sig = np.asarray(minhash([_PROBE_TEXT], num_perm=num_perm, seed=seed, k=k, unit=unit))
        return {
            "signature_probe": hashlib.sha256(sig.astype("<u4").tobytes()).hexdigest()[:32],
            "normalization": "neardup.normalize:"
            + hashlib.sha256(normalize(_PROBE_TEXT).encode()).hexdigest()[:16],
        }

    def _create(self, threshold: float | None, given: dict[str, Any]) -> dict[str, Any]:
        from neardup import lsh_params

        thr = 0.3 if threshold is None else float(threshold)
        if not 0.0 < thr <= 1.0:
            raise ValueError(f"threshold must be in (0, 1], got {thr}")
        num_perm = int(given["num_perm"] or 128)
        b, r = given["bands"], given["rows"]
        if (b is None) != (r is None):
            raise ValueError("give both bands and rows, or neither")
        if b is None:
            b, r = (int(x) for x in lsh_params(thr, num_perm))
        if b * r > num_perm:
            raise ValueError(f"bands*rows = {b * r} exceeds num_perm = {num_perm}")
        params: dict[str, Any] = {
            "format": INDEX_FORMAT,
            "hash_version": _hash_version(),
            "threshold": thr,
            "num_perm": num_perm,
            "k": int(given["k"] if given["k"] is not None else 5),
            "seed": int(given["seed"] if given["seed"] is not None else 0),
            "bands": int(b),
            "rows": int(r),
            "unit": given["unit"] or "word",
        }
        params.update(self._probe(params["num_perm"], params["seed"], params["k"], params["unit"]))
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID")
            db.execute(
                "CREATE TABLE docs(doc INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, "
                "sig BLOB NOT NULL, shingles INTEGER NOT NULL)"
            )
            db.execute(
                "CREATE TABLE bands(band_key INTEGER NOT NULL, doc INTEGER NOT NULL, "
                "PRIMARY KEY(band_key, doc)) WITHOUT ROWID"
            )
            db.executemany(
                "INSERT INTO meta VALUES (?, ?)", [(k, json.dumps(v)) for k, v in params.items()]
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return params

    def _load_params(self) -> dict[str, Any]:
        rows = self._db.execute("SELECT key, value FROM meta").fetchall()
        params = {k: json.loads(v) for k, v in rows}
        if params.get("format") != INDEX_FORMAT:
            raise IndexMismatchError(
                f"{self.path}: index format {params.get('format')}, "
                f"this neardup reads {INDEX_FORMAT}"
            )
        return params

    def _check(self, given: dict[str, Any]) -> None:
        p = self.params
        for key, value in given.items():
            if value is not None and value != p[key]:
                raise IndexMismatchError(
                    f"{self.path}: {key} mismatch: the index was built with {key}={p[key]!r}, "
                    f"got {value!r} (open it without {key}= or rebuild the index)"
                )
        probe = self._probe(int(p["num_perm"]), int(p["seed"]), int(p["k"]), p["unit"])
        if probe["normalization"] != p["normalization"]:
            raise IndexMismatchError(
                f"{self.path}: normalisation differs from the one the index was built with "
                "(rebuild the index with this neardup version)"
            )
        if probe["signature_probe"] != p["signature_probe"] or _hash_version() != p["hash_version"]:
            raise IndexMismatchError(
                f"{self.path}: hash version mismatch: the index was built with hash version "
                f"{p['hash_version']!r}, this neardup computes different signatures "
                f"(version {_hash_version()!r}); rebuild the index"
            )

    # -- helpers --------------------------------------------------------------------------------
    def _signatures(self, texts: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(signatures uint32[n, P], band keys int64[n, b], shingle counts int64[n])."""
        from neardup import minhash, shingles

        ss = shingles(texts, k=self.k, unit=self.unit)
        sig = np.ascontiguousarray(
            minhash(ss, num_perm=self.num_perm, seed=self.seed), dtype=np.uint32
        )
        return sig, self._keys(sig), np.asarray(ss.sizes(), dtype=np.int64)

    def _keys(self, sig: np.ndarray) -> np.ndarray:
        from neardup import band_hashes

        bh = np.asarray(band_hashes(sig, self.bands, self.rows), dtype=np.uint64)
        return (bh ^ self._mix[None, :]).view(np.int64)

    def _data_version(self) -> int:
        return int(self._db.execute("PRAGMA data_version").fetchone()[0])

    def _memory(self) -> _Memory:
        """The in-memory mirror, rebuilt if another connection committed since it was read."""
        version = self._data_version()
        if self._mem is None or self._mem.version != version:
            rows = self._db.execute(
                "SELECT doc, sig, shingles, id FROM docs ORDER BY doc"
            ).fetchall()
            docs = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
            sigs = np.frombuffer(b"".join(r[1] for r in rows), dtype="<u4").astype(np.uint32)
            sigs = sigs.reshape(len(rows), self.num_perm)
            live = np.fromiter((r[2] > 0 for r in rows), dtype=bool, count=len(rows))
            keys = self._keys(sigs) if len(rows) else np.zeros((0, self.bands), np.int64)
            ids = [r[3] for r in rows]
            self._mem = _Memory(_Block(docs, sigs, keys, live, ids), version)
        return self._mem

    def _verify(self, sig: np.ndarray, cand: np.ndarray) -> np.ndarray:
        from neardup import estimate_jaccard

        stacked = np.concatenate([sig[None, :], cand]).astype(np.uint32)
        pairs = np.zeros((len(cand), 2), dtype=np.int64)
        pairs[:, 1] = np.arange(1, len(cand) + 1)
        return np.asarray(estimate_jaccard(stacked, pairs), dtype=np.float64)

    def _lookup(self, sig: np.ndarray, keys: np.ndarray, threshold: float) -> list[Match]:
        if self._cache:
            mem = self._mem if self._mem is not None else self._memory()
            docs = mem.candidates(keys)
            if len(docs) == 0:
                return []
            cand, names = mem.signatures(docs)
            sim = self._verify(sig, cand)
            hit = np.flatnonzero(sim >= threshold).tolist()
            if not hit:
                return []
            out = [Match(names[h], float(sim[h])) for h in hit]
            out.sort(key=lambda m: (-m.similarity, m.id))
            return out
        rows = self._db.execute(self._sql_lookup, keys.tolist()).fetchall()
        if not rows:
            return []
        cand = np.frombuffer(b"".join(r[2] for r in rows), dtype="<u4").reshape(len(rows), -1)
        sim = self._verify(sig, cand)
        out = [Match(rows[i][1], float(sim[i])) for i in np.flatnonzero(sim >= threshold)]
        out.sort(key=lambda m: (-m.similarity, m.id))
        return out

    @staticmethod
    def _ids(ids: Iterable[Any]) -> list[str]:
        return [str(i) for i in ids]

    # -- public API -----------------------------------------------------------------------------
    def query(self, texts: Any, threshold: float | None = None) -> list[list[Match]]:
        """For each text, the indexed documents with estimated Jaccard ≥ threshold (nothing stored).

        >>> ix = Index("query.ndx", threshold=0.5)
        >>> ix.add(["d1"], ["the quick brown fox jumps over the lazy dog"])
        [[]]
        >>> ix.query(["the quick brown fox jumps over the lazy dog today"])
        [[Match(id='d1', similarity=0.8671875)]]
        """
        from neardup import minhash

        thr = self.threshold if threshold is None else float(threshold)
        sig = np.ascontiguousarray(
            minhash(texts, num_perm=self.num_perm, seed=self.seed, k=self.k, unit=self.unit),
            dtype=np.uint32,
        )
        keys = self._keys(sig)
        sizes = (sig != _EMPTY_SLOT).any(axis=1)  # an empty document's slots are all 0xFFFFFFFF
        if self._cache:
            self._memory()  # refresh if another connection committed
        return [self._lookup(sig[i], keys[i], thr) if sizes[i] > 0 else [] for i in range(len(sig))]

    def add(self, ids: Sequence[Any], texts: Any) -> list[list[Match]]:
        """Insert documents in one transaction; return for each the existing ids it near-duplicates.

        "Existing" includes documents added earlier in the same call, so results do not depend
        on how a stream is cut into batches. Ids must be new (``ValueError`` otherwise).

        >>> ix = Index("add.ndx", threshold=0.5)
        >>> fox = "the quick brown fox jumps over the lazy dog"
        >>> ix.add(["d2", "d3"], [fox, fox + " today"])
        [[], [Match(id='d2', similarity=0.8671875)]]
        """
        from neardup import estimate_jaccard, lsh_candidates

        sids = self._ids(ids)
        if len(set(sids)) != len(sids):
            seen: set[str] = set()
            dup = next(i for i in sids if i in seen or seen.add(i))  # type: ignore[func-returns-value]
            raise ValueError(f"ids: {dup!r} appears twice in this batch")
        sig, keys, sizes = self._signatures(texts)
        if len(sig) != len(sids):
            raise ValueError(f"got {len(sids)} ids for {len(sig)} texts")
        # matches among this batch (earlier position = already existing)
        within: list[list[Match]] = [[] for _ in sids]
        live = np.flatnonzero(sizes > 0)
        if len(live) > 1:
            cp = np.asarray(lsh_candidates(sig[live], self.bands, self.rows), dtype=np.int64)
            if len(cp):
                cp = live[cp]
                sim = np.asarray(estimate_jaccard(sig, cp), dtype=np.float64)
                for (i, j), s in zip(
                    cp[sim >= self.threshold], sim[sim >= self.threshold], strict=False
                ):
                    within[int(j)].append(Match(sids[int(i)], float(s)))
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            for start in range(0, len(sids), 500):
                chunk = sids[start : start + 500]
                hit = db.execute(
                    f"SELECT id FROM docs WHERE id IN ({','.join('?' * len(chunk))})", chunk
                ).fetchone()
                if hit:
                    raise ValueError(f"ids: {hit[0]!r} is already in the index (remove it first)")
            if self._cache:
                self._memory()  # under the write lock: sees every other writer's commits
            result: list[list[Match]] = []
            for i in range(len(sids)):
                m = self._lookup(sig[i], keys[i], self.threshold) if sizes[i] > 0 else []
                m.extend(within[i])
                m.sort(key=lambda x: (-x.similarity, x.id))
                result.append(m)
            base = db.execute("SELECT coalesce(max(doc), 0) FROM docs").fetchone()[0] + 1
            docnos = range(base, base + len(sids))
            sig_le = sig.astype("<u4", copy=False)
            db.executemany(
                "INSERT INTO docs(doc, id, sig, shingles) VALUES (?, ?, ?, ?)",
                [
                    (d, s, sig_le[i].tobytes(), int(sizes[i]))
                    for i, (d, s) in enumerate(zip(docnos, sids, strict=False))
                ],
            )
            band_rows = [
                (int(key), d)
                for i, d in enumerate(docnos)
                if sizes[i] > 0
                for key in keys[i].tolist()
            ]
            db.executemany("INSERT OR IGNORE INTO bands(band_key, doc) VALUES (?, ?)", band_rows)
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        if self._mem is not None:
            self._mem.append(
                _Block(
                    np.arange(base, base + len(sids), dtype=np.int64), sig, keys, sizes > 0, sids
                )
            )
        return result

    def remove(self, ids: Iterable[Any]) -> int:
        """Delete documents by id in one transaction; returns how many were present.

        >>> ix = Index("remove.ndx", threshold=0.5)
        >>> ix.add(["d2"], ["the quick brown fox jumps over the lazy dog"])
        [[]]
        >>> ix.remove(["d2", "missing"])
        1
        """
        sids = self._ids(ids)
        db = self._db
        removed = 0
        gone: list[int] = []
        db.execute("BEGIN IMMEDIATE")
        try:
            for start in range(0, len(sids), 500):
                chunk = sids[start : start + 500]
                rows = db.execute(
                    "SELECT doc, sig, shingles FROM docs WHERE id IN "
                    f"({','.join('?' * len(chunk))})",
                    chunk,
                ).fetchall()
                if not rows:
                    continue
                sig = np.frombuffer(b"".join(r[1] for r in rows), dtype="<u4")
                keys = self._keys(sig.reshape(len(rows), -1).astype(np.uint32))
                db.executemany(
                    "DELETE FROM bands WHERE band_key = ? AND doc = ?",
                    [
                        (int(k), r[0])
                        for r, kr in zip(rows, keys, strict=False)
                        if r[2] > 0
                        for k in kr.tolist()
                    ],
                )
                db.executemany("DELETE FROM docs WHERE doc = ?", [(r[0],) for r in rows])
                removed += len(rows)
                gone.extend(r[0] for r in rows)
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        if self._mem is not None and gone:
            self._mem.forget(gone)
        return removed

    def __len__(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM docs").fetchone()[0])

    def __contains__(self, doc_id: object) -> bool:
        return (
            self._db.execute("SELECT 1 FROM docs WHERE id = ?", (str(doc_id),)).fetchone()
            is not None
        )

    def signature(self, doc_id: Any) -> np.ndarray:
        """The stored MinHash signature of one document (uint32[num_perm]).

        >>> ix = Index("signature.ndx", threshold=0.5)
        >>> ix.add(["d1"], ["the quick brown fox jumps over the lazy dog"])
        [[]]
        >>> ix.signature("d1").shape
        (128,)
        """
        row = self._db.execute("SELECT sig FROM docs WHERE id = ?", (str(doc_id),)).fetchone()
        if row is None:
            raise KeyError(doc_id)
        return np.frombuffer(row[0], dtype="<u4").astype(np.uint32)

    def stats(self) -> dict[str, Any]:
        """Counts, parameters and file size.

        >>> Index("stats.ndx", threshold=0.5).stats()["num_perm"]
        128
        """
        db = self._db
        n, empty = db.execute(
            "SELECT count(*), coalesce(sum(shingles = 0), 0) FROM docs"
        ).fetchone()
        nb = db.execute("SELECT count(*) FROM bands").fetchone()[0]
        size = sum(os.path.getsize(p) for p in (self.path, self.path + "-wal") if os.path.exists(p))
        out: dict[str, Any] = {
            "path": self.path,
            "documents": int(n),
            "empty_documents": int(empty),
            "band_rows": int(nb),
            "bytes": size,
        }
        out.update({k: v for k, v in self.params.items()})
        out["s_star"] = (1.0 / self.bands) ** (1.0 / self.rows)
        return out

    def check(self) -> None:
        """Verify SQLite integrity and that every non-empty document has all its band keys.

        >>> Index("check.ndx", threshold=0.5).check()
        """
        db = self._db
        res = db.execute("PRAGMA integrity_check").fetchone()[0]
        if res != "ok":
            raise RuntimeError(f"{self.path}: SQLite integrity check failed: {res}")
        live = db.execute("SELECT count(*) FROM docs WHERE shingles > 0").fetchone()[0]
        nb = db.execute("SELECT count(*) FROM bands").fetchone()[0]
        orphans = db.execute(
            "SELECT count(*) FROM bands WHERE doc NOT IN (SELECT doc FROM docs)"
        ).fetchone()[0]
        if orphans or nb > live * self.bands:
            raise RuntimeError(
                f"{self.path}: inconsistent band table ({nb} rows for {live} documents, "
                f"{orphans} orphans)"
            )

    def close(self) -> None:
        """Close the database connection.

        >>> Index("close.ndx", threshold=0.5).close()
        """
        self._db.close()

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return (
            f"Index({self.path!r}, documents={len(self)}, threshold={self.threshold}, "
            f"num_perm={self.num_perm}, k={self.k}, bands={self.bands}, rows={self.rows})"
        )
