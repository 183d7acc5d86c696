"""A persistent, incremental near-duplicate index in one SQLite file (no server).

Each document is stored as its MinHash signature (a ``num_perm × 4``-byte blob: 512 bytes at
P = 128) plus one row per LSH band key. ``add`` returns, for every new document, the already
indexed documents it near-duplicates; ``query`` does the same without inserting, or returns
the ``k`` most similar indexed documents.

Parameters are validated by :func:`neardup.plan.make_plan` (the rules of ``find_duplicates``)
before anything is written, and the file records the plan together with a *probe*: the
signature of a fixed text computed when the index was created. Opening the index with other
parameters, or with a neardup build whose hashing or normalisation produces other bits, raises
:class:`IndexMismatchError`; a damaged file raises :class:`IndexCorruptError` (cheap checks on
open, the rest in :meth:`Index.check`), and no write follows a database error.

SQLite runs in WAL mode with one transaction per ``add``/``remove`` call, so a process killed
mid-batch loses only the uncommitted batch; ``add(..., skip_existing=True)`` resumes it.

>>> import neardup
>>> fox = "the quick brown fox jumps over the lazy dog"
>>> with neardup.Index("corpus.ndx", threshold=0.5) as ix:
...     ix.add(["a", "b"], [fox, "lorem ipsum dolor"])
...     ix.query([fox + " today"])
[[], []]
[[Match(id='a', similarity=0.8125)]]
"""

from __future__ import annotations

import dataclasses
import json
import numbers
import os
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from neardup import _core
from neardup._validate import MAX_COUNT, check_choice, check_int, check_threshold
from neardup.errors import (
    IndexCorruptError,
    IndexMismatchError,
    InputError,
    InputTypeError,
    InvalidArgumentError,
)
from neardup.index._mirror import Match, Mirror
from neardup.index._store import (
    INDEX_FORMAT,
    PLAN_KEYS,
    Store,
    band_keys,
    index_plan,
    probe,
    signature_options,
)
from neardup.plan import Plan
from neardup.stages import _batched, estimate_jaccard, lsh_candidates, minhash, shingles

__all__ = ["INDEX_FORMAT", "Index", "IndexCorruptError", "IndexMismatchError", "Match"]

_EMPTY_SLOT = np.uint32(0xFFFFFFFF)
_CHUNK = 500  # SQL parameters per IN (...) list


def _check_ids(ids: Any) -> list[str]:
    """Ids as stored (UTF-8 text); ints are written in decimal, anything else is refused:
    a single str (its characters are no ids), a str SQLite cannot store as UTF-8 (a lone
    surrogate, as a file name that is not UTF-8 decodes to).

    >>> _check_ids(["a", 7])
    ['a', '7']
    >>> _check_ids("abc")
    Traceback (most recent call last):
    ...
    neardup.errors.InputTypeError: ids must be a sequence of ids, not a single str: ['abc']
    """
    if isinstance(ids, (str, bytes, bytearray)):
        shown = [ids] if len(ids) <= 40 else "[...]"
        kind = type(ids).__name__
        raise InputTypeError(f"ids must be a sequence of ids, not a single {kind}: {shown}")
    if not isinstance(ids, Iterable):
        raise InputTypeError(f"ids must be a sequence of ids, got {type(ids).__name__}")
    out = []
    for i, x in enumerate(ids):
        if isinstance(x, str):
            if not x.isascii():
                try:
                    x.encode("utf-8")
                except UnicodeEncodeError as e:
                    raise InputError(
                        f"ids[{i}] = {x!r} is not valid Unicode (a lone surrogate at "
                        f"{e.start}, as a file name that is not UTF-8 gives); ids are UTF-8"
                    ) from None
            out.append(x)
        elif isinstance(x, numbers.Integral) and not isinstance(x, bool):
            out.append(str(int(x)))
        else:
            raise InputTypeError(f"ids[{i}] is {type(x).__name__}, expected str or int")
    return out


class Index:
    """Persistent MinHash-LSH index on SQLite.

    New index: parameters default to ``threshold=0.3, num_perm=128, k=5, seed=0,
    unit="word"`` and (bands, rows) from the threshold (:func:`neardup.plan.lsh_banding`).
    Existing index: omitted parameters are read from the file; given ones must equal the stored
    ones, except ``threshold`` (a verification setting that may differ per session).

    Ids are stored as text: a str as given, an int in decimal (``7`` and ``"7"`` are the same
    id); anything else is an :class:`~neardup.errors.InputTypeError`. With ``cache=True``
    (default) lookups run on an in-memory copy of the signatures, band keys and ids (about
    ``4·P + 26·b`` bytes per document plus its id), loaded on first use and reloaded when
    another connection commits; with ``cache=False`` every lookup is an SQL query.

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
        unit: str | None = None,
        create: bool = True,
        cache: bool = True,
        hash_version: int | None = None,
    ) -> None:
        self.path = os.fspath(path)
        given: dict[str, Any] = {
            "num_perm": num_perm,
            "k": k,
            "seed": seed,
            "bands": bands,
            "rows": rows,
            "unit": unit,
            "hash_version": hash_version,
        }
        options = {key: v for key, v in given.items() if v is not None}
        if threshold is not None:
            options["threshold"] = threshold
        # every option is checked before the file is touched, for a new or an existing index
        requested = index_plan(**options)
        self._store, meta = Store.open(self.path, requested if create else None)
        try:
            stored: Plan = meta["plan"]
            for key, value in given.items():
                if value is not None and getattr(requested, key) != getattr(stored, key):
                    raise IndexMismatchError(
                        f"{self.path}: {key} mismatch: the index was built with "
                        f"{key}={getattr(stored, key)!r}, got {getattr(requested, key)!r} "
                        f"(open it without {key}= or rebuild the index)"
                    )
            self._check_probe(stored, meta)
        except BaseException:
            self._store.db.close()
            raise
        if threshold is not None:
            stored = dataclasses.replace(stored, threshold=requested.threshold)
        self.plan = stored
        self.params: dict[str, Any] = {
            "format": INDEX_FORMAT,
            **{key: getattr(stored, key) for key in PLAN_KEYS},
        }
        self.threshold: float = stored.threshold
        self.num_perm: int = stored.num_perm
        self.k: int = stored.k
        self.seed: int = stored.seed
        assert stored.bands is not None and stored.rows is not None
        self.bands: int = stored.bands
        self.rows: int = stored.rows
        self.unit: str = stored.unit
        self.hash_version: int = stored.hash_version
        opts = signature_options(stored)
        # _core.minhash_texts(texts, num_perm, seed, k, unit, threads, algorithm, hash_version)
        self._minhash_args = (
            opts["num_perm"],
            opts["seed"],
            stored.k,
            stored.unit,
            1,
            opts.get("algorithm", "classic"),
            opts["hash_version"],
        )
        self._cache = bool(cache)
        self._mem: Mirror | None = None
        self._sql_lookup = (
            "SELECT doc, id, sig FROM docs WHERE doc IN (SELECT doc FROM bands WHERE band_key IN ("
            + ",".join("?" * self.bands)
            + "))"
        )

    def _check_probe(self, plan: Plan, meta: dict[str, Any]) -> None:
        now = probe(plan)
        if now["normalization"] != meta["normalization"]:
            raise IndexMismatchError(
                f"{self.path}: this neardup normalises text differently from the build that "
                "wrote the index; rebuild the index with this neardup"
            )
        if now["signature_probe"] != meta["signature_probe"]:
            raise IndexMismatchError(
                f"{self.path}: signature mismatch: this neardup build computes other hash "
                f"version {plan.hash_version} signatures than the build that wrote the index "
                f"(probe {now['signature_probe'][:8]} here, {meta['signature_probe'][:8]} "
                "stored); rebuild the index or use the neardup that wrote it"
            )

    # -- signatures -------------------------------------------------------------------------
    def _signatures(self, texts: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(signatures uint32[n, P], band keys uint64[n, b], shingle counts int64[n])."""
        ss = shingles(texts, k=self.k, unit=self.unit, hash_version=self.hash_version)  # type: ignore[arg-type]
        sig = np.ascontiguousarray(minhash(ss, **signature_options(self.plan)), dtype=np.uint32)
        return sig, band_keys(sig, self.plan), np.asarray(ss.sizes(), dtype=np.int64)

    def _query_signatures(self, texts: Any) -> np.ndarray:
        """uint32[n, P]: ``neardup.minhash`` of the texts with this index's parameters, minus
        the argument checks (the plan was validated when the index was opened), which cost
        more than a short document's signature."""
        return _batched(texts, self._minhash_batch, self.num_perm, np.uint32)

    def _minhash_batch(self, texts: Any) -> np.ndarray:
        return _core.minhash_texts(texts, *self._minhash_args)

    def _read_mirror(self) -> Mirror:
        """The in-memory mirror, reloaded if another connection committed since it was read."""
        version = self._store.data_version()
        if self._mem is not None and self._mem.version == version:
            return self._mem
        with self._store.guard() as db:
            rows = db.execute("SELECT doc, sig, shingles, id FROM docs ORDER BY doc").fetchall()
        nbytes = 4 * self.num_perm
        bad = next((r for r in rows if not isinstance(r[1], bytes) or len(r[1]) != nbytes), None)
        if bad is not None:
            self._store.broken = f"document {bad[3]!r} has a damaged signature"
            raise IndexCorruptError(
                f"{self.path}: document {bad[3]!r} has a {len(bad[1])}-byte signature, "
                f"expected {nbytes} (run check())"
            )
        mem = Mirror(self.num_perm, self.bands, self.rows, version, self.threshold)
        docs = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        sigs = np.frombuffer(b"".join(r[1] for r in rows), dtype="<u4").astype(np.uint32)
        sigs = sigs.reshape(len(rows), self.num_perm)
        sizes = np.fromiter((r[2] for r in rows), dtype=np.int64, count=len(rows))
        mem.append(docs, sigs, [r[3] for r in rows], sizes)
        self._mem = mem
        return mem

    def _lookup(self, sig: np.ndarray, threshold: float, top_k: int | None) -> list[list[Match]]:
        """Matches of each query row (empty documents match nothing)."""
        if self._cache:
            return self._read_mirror().lookup(sig, threshold, top_k)
        out: list[list[Match]] = []
        key_rows = band_keys(sig, self.plan).view(np.int64).tolist()
        with self._store.guard() as db:
            for i, qk in enumerate(key_rows):
                rows = [] if (sig[i] == _EMPTY_SLOT).all() else db.execute(self._sql_lookup, qk)
                rows = list(rows)
                if not rows:
                    out.append([])
                    continue
                cand = np.frombuffer(b"".join(r[2] for r in rows), dtype="<u4")
                stacked = np.concatenate([sig[i : i + 1], cand.reshape(len(rows), -1)])
                pairs = np.zeros((len(rows), 2), dtype=np.int64)
                pairs[:, 1] = np.arange(1, len(rows) + 1)
                sim = np.asarray(estimate_jaccard(stacked, pairs), dtype=np.float64).tolist()
                ms = [Match(r[1], s) for r, s in zip(rows, sim, strict=True) if s >= threshold]
                ms.sort(key=lambda m: (-m.similarity, m.id))
                out.append(ms[:top_k] if top_k is not None else ms)
        return out

    # -- public API -----------------------------------------------------------------------------
    def query(
        self,
        texts: Any,
        threshold: float | None = None,
        k: int | None = None,
        measure: str = "jaccard",
    ) -> list[list[Match]]:
        """For each text, the indexed documents with estimated Jaccard ≥ threshold, best first
        (equal similarity by id); nothing is stored.

        With ``k``, at most the ``k`` most similar (top-k); if ``threshold`` is not given
        then, every LSH candidate counts (documents sharing a band key with the query).

        ``measure="containment"``: the indexed documents that contain the text, by the
        estimate |Q ∩ D| / |Q| ≈ Ĵ (|Q| + |D|) / ((1 + Ĵ) |Q|) from the stored signature and
        shingle count (Ĵ the share of equal slots), compared with every stored signature (the
        band keys, made for Jaccard, cannot find a short text inside a long document): a cost
        of ``num_perm`` slot comparisons per stored document and query. The index holds no
        shingle sets, so this is an estimate, and a coarse one when |Q| is much smaller than
        |D| (a few equal slots decide it); for exact containment with recall 1, stream the
        corpus through :func:`neardup.find_matches`. ``threshold`` defaults to the index's.

        >>> ix = Index("query.ndx", threshold=0.5)
        >>> fox = "the quick brown fox jumps over the lazy dog"
        >>> ix.add(["d1", "d7"], [fox, "the quick brown fox sleeps under the lazy dog"])
        [[], []]
        >>> ix.query([fox + " today"])
        [[Match(id='d1', similarity=0.8125)]]
        >>> ix.query([fox + " today"], k=3)  # d7 shares no band key with the query
        [[Match(id='d1', similarity=0.8125)]]
        >>> long = " ".join(f"w{i}" for i in range(300))
        >>> ix.add(["long"], [long])
        [[]]
        >>> ix.query([" ".join(f"w{i}" for i in range(100, 140))], measure="containment")
        [[Match(id='long', similarity=1.0)]]
        """
        if k is not None:
            k = check_int("k", k, low=1, high=MAX_COUNT)
        measure = check_choice("measure", measure, ("jaccard", "containment"))
        if threshold is not None:
            thr = check_threshold(threshold)
        else:
            thr = 0.0 if k is not None and measure == "jaccard" else self.threshold
        if measure == "containment":
            ss = shingles(texts, k=self.k, unit=self.unit, hash_version=self.hash_version)  # type: ignore[arg-type]
            sig = np.ascontiguousarray(minhash(ss, **signature_options(self.plan)))
            return self._read_mirror().containment(sig, ss.sizes(), thr, k)
        return self._lookup(self._query_signatures(texts), thr, k)

    def add(self, ids: Sequence[Any], texts: Any, skip_existing: bool = False) -> list[list[Match]]:
        """Insert documents in one transaction; return for each the existing ids it near-duplicates.

        "Existing" includes documents added earlier in the same call, so results do not depend
        on how a stream is cut into batches. Ids must be new (:class:`InputError` otherwise);
        with ``skip_existing=True`` an id already stored with the same signature is skipped
        (its result is ``[]``), so re-running a killed ingest resumes it.

        >>> ix = Index("add.ndx", threshold=0.5)
        >>> fox = "the quick brown fox jumps over the lazy dog"
        >>> ix.add(["d2", "d3"], [fox, fox + " today"])
        [[], [Match(id='d2', similarity=0.8125)]]
        """
        sids = _check_ids(ids)
        if len(set(sids)) != len(sids):
            seen: set[str] = set()
            dup = next(i for i in sids if i in seen or seen.add(i))  # type: ignore[func-returns-value]
            raise InputError(f"ids: {dup!r} appears twice in this batch")
        sig, keys, sizes = self._signatures(texts)
        if len(sig) != len(sids):
            raise InvalidArgumentError(f"got {len(sids)} ids for {len(sig)} texts")
        result: list[list[Match]] = [[] for _ in sids]
        with self._store.transaction() as db:
            existing: dict[str, bytes] = {}
            for start in range(0, len(sids), _CHUNK):
                chunk = sids[start : start + _CHUNK]
                q = f"SELECT id, sig FROM docs WHERE id IN ({','.join('?' * len(chunk))})"
                existing.update(db.execute(q, chunk).fetchall())
            sig_le = sig.astype("<u4", copy=False)
            for i, s in enumerate(sids):
                if s in existing and (not skip_existing or existing[s] != sig_le[i].tobytes()):
                    raise InputError(
                        f"ids: {s!r} is already in the index"
                        + (
                            " with another text"
                            if skip_existing
                            else " (remove it first, or skip_existing=True to resume)"
                        )
                    )
            new = np.array([s not in existing for s in sids], dtype=bool)
            todo = np.flatnonzero(new & (sizes > 0))
            if len(todo):  # against the index (under the write lock: every commit is seen)
                found = self._lookup(sig[todo], self.threshold, None)
                for i, ms in zip(todo.tolist(), found, strict=True):
                    result[i] = ms
            if len(todo) > 1:  # among this batch: an earlier position counts as existing
                cp = lsh_candidates(sig[todo], self.bands, self.rows, threshold=self.threshold)
                cp = np.asarray(cp, dtype=np.int64)
                if len(cp):
                    cp = todo[cp]
                    sim = np.asarray(estimate_jaccard(sig, cp), dtype=np.float64)
                    keep = sim >= self.threshold
                    for (i, j), s in zip(cp[keep].tolist(), sim[keep].tolist(), strict=True):
                        result[j].append(Match(sids[i], s))
                    for ms in result:
                        ms.sort(key=lambda m: (-m.similarity, m.id))
            base = json.loads(
                db.execute("SELECT value FROM meta WHERE key = 'next_doc'").fetchone()[0]
            )
            added = np.flatnonzero(new)
            docnos = np.arange(base, base + len(added), dtype=np.int64)
            db.executemany(
                "INSERT INTO docs(doc, id, sig, shingles) VALUES (?, ?, ?, ?)",
                [
                    (int(d), sids[i], sig_le[i].tobytes(), int(sizes[i]))
                    for d, i in zip(docnos.tolist(), added.tolist(), strict=True)
                ],
            )
            live = sizes[added] > 0
            flat = keys[added[live]].view(np.int64).ravel()
            owners = np.repeat(docnos[live], self.bands)
            order = np.lexsort((owners, flat))  # in key order: B-tree appends, not random inserts
            db.executemany(
                "INSERT INTO bands(band_key, doc) VALUES (?, ?)",
                zip(flat[order].tolist(), owners[order].tolist(), strict=True),
            )
            db.execute(
                "UPDATE meta SET value = ? WHERE key = 'next_doc'",
                (json.dumps(int(base + len(added))),),
            )
        if self._mem is not None and len(added):
            self._mem.append(docnos, sig[added], [sids[i] for i in added.tolist()], sizes[added])
        return result

    def remove(self, ids: Iterable[Any]) -> int:
        """Delete documents by id in one transaction; returns how many were present.

        ``ids`` is a sequence of ids: a single str is refused (:class:`InputTypeError`) and
        nothing is deleted, as ``add`` and ``query`` refuse one.

        >>> ix = Index("remove.ndx", threshold=0.5)
        >>> ix.add(["d2"], ["the quick brown fox jumps over the lazy dog"])
        [[]]
        >>> ix.remove(["d2", "missing"])
        1
        """
        sids = _check_ids(ids)  # before any list(): list("abc") would be three ids
        gone: list[int] = []
        with self._store.transaction() as db:
            for start in range(0, len(sids), _CHUNK):
                chunk = sids[start : start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                rows = db.execute(f"SELECT doc FROM docs WHERE id IN ({marks})", chunk).fetchall()
                gone.extend(r[0] for r in rows)
            for start in range(0, len(gone), _CHUNK):
                chunk_docs = gone[start : start + _CHUNK]
                marks = ",".join("?" * len(chunk_docs))
                db.execute(f"DELETE FROM bands WHERE doc IN ({marks})", chunk_docs)
                db.execute(f"DELETE FROM docs WHERE doc IN ({marks})", chunk_docs)
        if self._mem is not None and gone:
            self._mem.forget(sorted(gone))
        return len(gone)

    def __len__(self) -> int:
        with self._store.guard() as db:
            return int(db.execute("SELECT count(*) FROM docs").fetchone()[0])

    def __contains__(self, doc_id: object) -> bool:
        try:
            (sid,) = _check_ids([doc_id])
        except (InputTypeError, InputError):  # no such id can be stored
            return False
        with self._store.guard() as db:
            return db.execute("SELECT 1 FROM docs WHERE id = ?", (sid,)).fetchone() is not None

    def signature(self, doc_id: Any) -> np.ndarray:
        """The stored MinHash signature of one document (uint32[num_perm]).

        >>> ix = Index("signature.ndx", threshold=0.5)
        >>> ix.add(["d1"], ["the quick brown fox jumps over the lazy dog"])
        [[]]
        >>> ix.signature("d1").shape
        (128,)
        """
        (sid,) = _check_ids([doc_id])
        with self._store.guard() as db:
            row = db.execute("SELECT sig FROM docs WHERE id = ?", (sid,)).fetchone()
        if row is None:
            raise KeyError(doc_id)
        return np.frombuffer(row[0], dtype="<u4").astype(np.uint32)

    def stats(self) -> dict[str, Any]:
        """Counts, parameters and file size; with the cache, ``bucket_splits`` (large
        buckets of the lookup tables split, shared boilerplate's doing) and ``expected_recall``
        (the chance a stored document meets a partner at the threshold: the banding's P(T),
        lowered by what the splits cost).

        >>> Index("stats.ndx", threshold=0.5).stats()["num_perm"]
        128
        """
        with self._store.guard() as db:
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
        out.update(self.params)
        out["s_star"] = (1.0 / self.bands) ** (1.0 / self.rows)
        if self._cache:  # the lookup tables' bucket rule (rust/lsh/groups.rs)
            mem = self._read_mirror().core
            out["bucket_splits"] = mem.bucket_splits()
            out["expected_recall"] = mem.expected_recall()
        return out

    def check(self) -> None:
        """Verify the whole file: SQLite integrity, signature lengths (4·P bytes), band rows
        exactly the band keys of the stored signatures, the probe; raises
        :class:`IndexCorruptError` (or :class:`IndexMismatchError` for another build's bits).

        >>> Index("check.ndx", threshold=0.5).check()
        """

        def expected(rows: list[tuple[int, bytes]]) -> np.ndarray:
            if not rows:
                return np.zeros((0, 2), np.int64)
            docs = np.array([r[0] for r in rows], dtype=np.int64)
            sig = np.frombuffer(b"".join(r[1] for r in rows), dtype="<u4")
            keys = band_keys(sig.reshape(len(rows), -1).astype(np.uint32), self.plan)
            flat = keys.view(np.int64).ravel()
            owners = np.repeat(docs, self.bands)
            order = np.lexsort((owners, flat))
            return np.stack([flat[order], owners[order]], axis=1)

        self._store.check(self.plan, expected)

    def close(self) -> None:
        """Close the database connection.

        >>> Index("close.ndx", threshold=0.5).close()
        """
        self._store.db.close()

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return (
            f"Index({self.path!r}, threshold={self.threshold}, num_perm={self.num_perm}, "
            f"k={self.k}, bands={self.bands}, rows={self.rows})"
        )
