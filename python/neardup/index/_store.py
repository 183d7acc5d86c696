"""The index file: schema, parameters, integrity checks, and the one place SQLite errors
become neardup errors.

Layout (format 2): ``meta(key, value)`` holds JSON values — ``format``, ``plan`` (the
:class:`neardup.plan.Plan` the index was built with), ``signature_probe`` and
``normalization`` (fingerprints of the bits this build computes), ``next_doc`` (document
numbers are never reused); ``docs(doc, id, sig, shingles)`` one row per document with its
signature as ``4·P`` little-endian bytes; ``bands(band_key, doc)`` one row per band of every
non-empty document.

>>> SCHEMA["meta"].split("(")[0]
'CREATE TABLE meta'
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import stat
import urllib.parse
import uuid
from collections.abc import Iterator
from typing import Any

import numpy as np

from neardup import _core
from neardup.errors import (
    IndexCorruptError,
    IndexMismatchError,
    IndexReadOnlyError,
    InputError,
    InvalidArgumentError,
    NeardupError,
    ResourceError,
)
from neardup.plan import HASH_VERSIONS, Plan, make_plan
from neardup.stages import minhash, normalize

#: Version of the on-disk layout.
INDEX_FORMAT = 2

SCHEMA = {
    "meta": "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID",
    "docs": "CREATE TABLE docs(doc INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, "
    "sig BLOB NOT NULL, shingles INTEGER NOT NULL)",
    "bands": "CREATE TABLE bands(band_key INTEGER NOT NULL, doc INTEGER NOT NULL, "
    "PRIMARY KEY(band_key, doc)) WITHOUT ROWID",
}
_META_KEYS = ("format", "plan", "signature_probe", "normalization", "next_doc")
#: The plan options that shape the stored bits or the banding (the rest are run settings).
PLAN_KEYS = ("threshold", "num_perm", "k", "unit", "seed", "bands", "rows", "hash_version")
_SQLITE_MAGIC = b"SQLite format 3\x00"
_PROBE_TEXT = (
    "Ünïcode PROBE text — the quick brown fox jumps over the lazy dog; "
    "near-duplicate detection, MinHash & LSH! 12345 e\u0301t\u00e9"
)


def index_plan(**options: Any) -> Plan:
    """The resolved MinHash plan of an index (verified by the signature estimate).

    >>> p = index_plan(threshold=0.5); (p.bands, p.rows)
    (32, 4)
    """
    return make_plan(method="minhash", verify="estimate", **options).resolve(0)


def signature_options(plan: Plan) -> dict[str, Any]:
    """Keyword arguments of ``neardup.minhash`` for this plan's signatures.

    >>> signature_options(index_plan())["num_perm"]
    128
    """
    # The index computes with the version it was built with, whatever this build's default.
    return {"num_perm": plan.num_perm, "seed": plan.seed, "hash_version": plan.hash_version}


def band_keys(signatures: np.ndarray, plan: Plan) -> np.ndarray:
    """uint64[n, bands]: the stored band keys (band hash mixed with the band number, see
    ``rust/lookup.rs``; the in-memory mirror computes the same keys).

    >>> band_keys(np.zeros((1, 128), np.uint32), index_plan()).shape
    (1, 42)
    """
    assert plan.bands is not None and plan.rows is not None
    sig = np.ascontiguousarray(signatures, dtype=np.uint32)
    return _core.index_band_keys(sig, plan.bands, plan.rows)


def probe(plan: Plan) -> dict[str, str]:
    """Fingerprints of the bits this build computes for ``plan`` (signature, normalisation).

    >>> sorted(probe(index_plan()))
    ['normalization', 'signature_probe']
    """
    import hashlib  # here, not at the top: loading OpenSSL costs milliseconds at import

    sig = np.asarray(
        minhash([_PROBE_TEXT], k=plan.k, unit=plan.unit, **signature_options(plan))  # type: ignore[arg-type]
    )
    return {
        "signature_probe": hashlib.sha256(sig.astype("<u4").tobytes()).hexdigest()[:32],
        "normalization": "neardup.normalize:"
        + hashlib.sha256(
            normalize(_PROBE_TEXT, hash_version=plan.hash_version).encode()
        ).hexdigest()[:16],
    }


def _database_error(path: str, e: sqlite3.Error) -> NeardupError:
    code = getattr(e, "sqlite_errorname", "")
    if code in ("SQLITE_BUSY", "SQLITE_LOCKED"):
        return IndexCorruptError(f"{path}: the index is locked by another process ({e})")
    if code.startswith("SQLITE_READONLY"):
        return IndexReadOnlyError(f"{path}: the index is read-only ({code}); nothing was written")
    if code == "SQLITE_FULL":
        return ResourceError(f"{path}: no space left on device ({code}); nothing was written")
    return IndexCorruptError(f"{path}: damaged index ({code or 'database error'}: {e})")


#: Database errors after which the file is still sound (writes may be tried again).
_SOUND = ("SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_FULL")


def _kind(path: str) -> str | None:
    """What ``path`` is when it is neither a regular file nor missing (a folder, a device)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return None
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    return "not a regular file"


def _writable(path: str) -> bool:
    """Whether this process may write the index file and create its ``-wal``/``-shm`` files
    beside it: ``access`` sees what root cannot write too (a read-only file system, an
    immutable file or folder), which the permission bits do not show."""
    folder = os.path.dirname(path) or "."
    return os.access(path, os.W_OK) and os.access(folder, os.W_OK)


def _connect(path: str, read_only: bool) -> sqlite3.Connection:
    """A connection to ``path``; read-only when the file or its folder is not writable.

    A read-only WAL database needs its ``-shm`` file: when the folder cannot hold a new one
    and there is no ``-wal`` (so no writer, which would need one), the file is opened as
    immutable.
    """
    if not read_only:
        return sqlite3.connect(path, isolation_level=None, timeout=30.0)
    folder = os.path.dirname(path) or "."
    mode = "ro"
    if not os.access(folder, os.W_OK) and not os.path.exists(path + "-wal"):
        mode = "ro&immutable=1"
    uri = f"file:{urllib.parse.quote(os.path.abspath(path))}?mode={mode}"
    return sqlite3.connect(uri, uri=True, isolation_level=None, timeout=30.0)


class Store:
    """One connection to an index file; every SQLite call goes through :meth:`guard`.

    After any database error the store refuses writes (a damaged file is never written to).

    >>> Store.open("missing-folder/x.ndx", None)
    Traceback (most recent call last):
    neardup.errors.InvalidArgumentError: missing-folder/x.ndx: folder 'missing-folder' ...
    """

    def __init__(self, path: str, db: sqlite3.Connection, read_only: bool = False) -> None:
        self.path, self.db = path, db
        self.broken: str | None = None
        #: Opened read-only (the file, its folder or its file system is not writable).
        self.read_only = read_only

    @contextlib.contextmanager
    def guard(self, write: bool = False) -> Iterator[sqlite3.Connection]:
        """The connection; SQLite errors become :class:`IndexCorruptError` and mark the
        store broken, and a write on a broken store is refused."""
        if write and self.read_only:
            raise IndexReadOnlyError(
                f"{self.path}: the index is read-only (its file, folder or file system is not "
                "writable); query, stats and check work, add and remove do not"
            )
        if write and self.broken is not None:
            raise IndexCorruptError(
                f"{self.path}: refusing to write after a database error ({self.broken})"
            )
        try:
            yield self.db
        except sqlite3.Error as e:
            raise self._failed(e) from e

    def _failed(self, e: sqlite3.Error) -> NeardupError:
        """Marks the store broken after ``e`` (rolling back an open transaction) and returns
        the error to raise."""
        if getattr(e, "sqlite_errorname", "") not in _SOUND:
            self.broken = str(e)
        with contextlib.suppress(sqlite3.Error):
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
        return _database_error(self.path, e)

    def data_version(self) -> int:
        """SQLite's ``PRAGMA data_version``: it changes when another connection commits. The
        one SQL statement of a cached lookup, so it skips :meth:`guard`'s generator frame."""
        try:
            return int(self.db.execute("PRAGMA data_version").fetchone()[0])
        except sqlite3.Error as e:
            raise self._failed(e) from e

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` … ``COMMIT``, rolled back on any exception."""
        with self.guard(write=True) as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise

    # -- opening -------------------------------------------------------------------------------
    @classmethod
    def open(cls, path: str, create_plan: Plan | None) -> tuple[Store, dict[str, Any]]:
        """Open ``path`` (creating it from ``create_plan`` when missing); returns the store
        and its meta values. Cheap checks only: header, schema, meta."""
        given, path = path, os.path.realpath(path)  # a link: the index is its target
        folder = os.path.dirname(given) or "."
        if not os.path.isdir(folder):
            raise InvalidArgumentError(f"{given}: folder {folder!r} does not exist")
        if path != os.path.abspath(given) and not os.path.isdir(os.path.dirname(path)):
            raise InvalidArgumentError(
                f"{given}: a symbolic link to {path}, whose folder does not exist"
            )
        kind = _kind(path)
        if kind is not None:
            raise InvalidArgumentError(f"{given}: is {kind}, not an index file")
        if not os.path.exists(path):
            if create_plan is None:
                dangling = f" (a symbolic link to {path})" if os.path.islink(given) else ""
                raise InputError(f"{given}: no such index{dangling}")
            if not os.access(os.path.dirname(path), os.W_OK):
                raise IndexReadOnlyError(
                    f"{given}: cannot create an index: folder {os.path.dirname(path)!r} is "
                    "read-only"
                )
            _create(path, create_plan, given)
        try:
            with open(path, "rb") as f:
                header = f.read(100)
        except OSError as e:
            raise InputError(f"{given}: cannot read the index ({e.strerror})") from None
        if not header:
            raise IndexCorruptError(
                f"{given}: empty file (0 bytes), not an index; delete it to start a new one"
            )
        if not header.startswith(_SQLITE_MAGIC) or len(header) < 100:
            raise IndexCorruptError(f"{given}: not a neardup index (not an SQLite file)")
        read_only = not _writable(path)
        try:
            db = _connect(path, read_only)
        except sqlite3.Error as e:
            raise _database_error(given, e) from e
        store = cls(given, db, read_only)
        try:
            with store.guard():
                db.execute("PRAGMA synchronous=NORMAL")
                db.execute("PRAGMA cache_size=-65536")  # 64 MiB: band-key inserts touch many pages
                meta = store._read_meta()
        except BaseException:
            db.close()
            raise
        return store, meta

    def _read_meta(self) -> dict[str, Any]:
        tables = {
            name: sql
            for kind, name, sql in self.db.execute("SELECT type, name, sql FROM sqlite_master")
            if kind == "table"
        }
        if tables != SCHEMA:
            found = ", ".join(sorted(tables)) or "none"
            raise IndexCorruptError(f"{self.path}: not a neardup index (tables: {found})")
        meta: dict[str, Any] = {}
        for key, value in self.db.execute("SELECT key, value FROM meta"):
            try:
                meta[key] = json.loads(value)
            except (TypeError, ValueError) as e:
                raise IndexCorruptError(f"{self.path}: meta {key!r} is not JSON") from e
        if meta.get("format") != INDEX_FORMAT:
            if isinstance(meta.get("format"), int) and meta["format"] < INDEX_FORMAT:
                raise IndexMismatchError(
                    f"{self.path}: index format {meta['format']} (an older neardup); this "
                    f"neardup reads format {INDEX_FORMAT}: rebuild the index"
                )
            raise IndexCorruptError(
                f"{self.path}: not a neardup index (format {meta.get('format')!r})"
            )
        missing = [k for k in _META_KEYS if k not in meta]
        if missing:
            raise IndexCorruptError(f"{self.path}: meta lacks {', '.join(missing)}")
        plan = meta["plan"]
        if not isinstance(plan, dict) or any(k not in plan for k in PLAN_KEYS):
            raise IndexCorruptError(f"{self.path}: meta 'plan' lacks index parameters")
        version = plan["hash_version"]
        if isinstance(version, int) and version not in HASH_VERSIONS:
            raise IndexMismatchError(
                f"{self.path}: the index was built with hash version {version}; this neardup "
                f"computes versions {', '.join(map(str, HASH_VERSIONS))} (upgrade neardup)"
            )
        try:
            meta["plan"] = index_plan(**{k: plan[k] for k in PLAN_KEYS})
        except (ValueError, TypeError) as e:
            raise IndexCorruptError(f"{self.path}: stored parameters are invalid ({e})") from e
        if not isinstance(meta["next_doc"], int) or meta["next_doc"] < 1:
            raise IndexCorruptError(f"{self.path}: meta 'next_doc' is invalid")
        return meta

    # -- full check ------------------------------------------------------------------------------
    def check(self, plan: Plan, live_keys: Any) -> None:
        """Everything :meth:`open` does not look at: SQLite's own check, blob lengths, that
        the band rows are exactly the keys of the stored signatures, the document counter.
        ``live_keys(rows)`` computes band keys from (doc, sig) rows."""
        nbytes = 4 * plan.num_perm
        with self.guard() as db:
            problems = [r[0] for r in db.execute("PRAGMA integrity_check(20)")]
            if problems != ["ok"]:
                raise IndexCorruptError(
                    f"{self.path}: SQLite integrity check failed: {'; '.join(problems)}"
                )
            self._read_meta()
            bad = db.execute(
                "SELECT id, length(sig) FROM docs WHERE typeof(sig) != 'blob' OR length(sig) != ?",
                (nbytes,),
            ).fetchone()
            if bad:
                raise IndexCorruptError(
                    f"{self.path}: document {bad[0]!r} has a {bad[1]}-byte signature, "
                    f"expected {nbytes} (4 x num_perm)"
                )
            live = db.execute("SELECT count(*) FROM docs WHERE shingles > 0").fetchone()[0]
            nb = db.execute("SELECT count(*) FROM bands").fetchone()[0]
            if nb != live * plan.bands:
                raise IndexCorruptError(
                    f"{self.path}: {nb} band rows for {live} non-empty documents x "
                    f"{plan.bands} bands = {live * plan.bands}"
                )
            rows = db.execute(
                "SELECT doc, sig FROM docs WHERE shingles > 0 ORDER BY doc"
            ).fetchall()
            expected = live_keys(rows)
            stored = np.array(
                db.execute("SELECT band_key, doc FROM bands ORDER BY band_key, doc").fetchall(),
                dtype=np.int64,
            ).reshape(-1, 2)
            if not np.array_equal(expected, stored):
                raise IndexCorruptError(
                    f"{self.path}: band rows differ from the stored signatures' band keys"
                )
            top = db.execute("SELECT coalesce(max(doc), 0) FROM docs").fetchone()[0]
            next_doc = json.loads(
                db.execute("SELECT value FROM meta WHERE key = 'next_doc'").fetchone()[0]
            )
            if next_doc <= top:
                raise IndexCorruptError(
                    f"{self.path}: document counter {next_doc} is not above document {top}"
                )
        stored_probe = {
            k: json.loads(v)
            for k, v in self.db.execute(
                "SELECT key, value FROM meta WHERE key IN ('signature_probe', 'normalization')"
            )
        }
        if stored_probe != probe(plan):
            raise IndexMismatchError(
                f"{self.path}: this build computes other signatures than the stored probe"
            )


def _create(path: str, plan: Plan, given: str | None = None) -> None:
    """Create the index file whole or not at all: built under a temporary name, then linked.
    ``given`` is the name errors show (the user's, when ``path`` is a link's target)."""
    folder, name = os.path.split(path)
    tmp = os.path.join(folder, f".{name}.creating-{uuid.uuid4().hex[:12]}")
    meta = {"format": INDEX_FORMAT, "plan": plan.as_dict(), "next_doc": 1, **probe(plan)}
    try:
        db = sqlite3.connect(tmp, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("BEGIN IMMEDIATE")
            for sql in SCHEMA.values():
                db.execute(sql)
            db.executemany(
                "INSERT INTO meta VALUES (?, ?)", [(k, json.dumps(v)) for k, v in meta.items()]
            )
            db.execute("COMMIT")
        finally:
            db.close()
        try:
            os.link(tmp, path)  # fails if another process created the index meanwhile
        except FileExistsError:
            pass
    except sqlite3.Error as e:
        raise _database_error(given or path, e) from e
    finally:
        for p in (tmp, tmp + "-wal", tmp + "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(p)
