#!/usr/bin/env python3
"""Checks the macOS arm64 extension module the way an arm64 Mac will load it.

Usage: python .ci/macho_check.py FILE [--min-macos 11.0]
FILE is the extension (``_core.abi3.so``) or a wheel holding ``neardup/_core.abi3.so``.
Exit 0 and a summary when the file passes; exit 1 with ``ERROR (macho_check): ...`` when not.
Standard library only (it runs on the Linux build machine and on the macOS release runner).

What is checked, and why:

* the Mach-O header: a thin little-endian 64-bit file, ``cputype`` arm64 with the plain arm64
  subtype (arm64e would need the pointer-authentication ABI), file type MH_DYLIB or MH_BUNDLE
  (what ``dlopen`` loads), MH_DYLDLINK and MH_TWOLEVEL set and no flag outside the set a
  linker writes on a shared library;
* the libraries it links: all macOS's own (/usr/lib, /System/Library/Frameworks), libSystem
  among them (a library from elsewhere, e.g. Homebrew's, is missing on most Macs); the minimum
  macOS in LC_BUILD_VERSION equals the wheel tag's (``--min-macos``);
* the code signature: arm64 macOS kills a process that maps a page whose hash is not the
  one in the signature's CodeDirectory, so any byte changed after linking (a patched header
  flag, a stripped symbol) makes ``import`` die with SIGKILL. The SuperBlob
  (0xfade0cc0) is parsed, and for every CodeDirectory (0xfade0c02) the hash of every page of
  the file up to ``codeLimit`` is recomputed (SHA-1, SHA-256, truncated SHA-256 or SHA-384 as
  ``hashType`` says) and compared with the stored one, as are the special slots of the blobs
  embedded next to it (requirements, entitlements). ``codeLimit`` must be where the signature
  starts, and the signature must end the file (nothing unsigned before it, nothing after it);
* the symbol bindings dyld performs (the bind and lazy-bind opcodes, or the chained-fixups
  imports): every CPython symbol (``_Py*``) is looked up in the flat namespace (library ordinal
  -2, ``-undefined dynamic_lookup``), so it binds to whichever interpreter loaded the module;
  every other one comes from one of the linked libraries (two-level namespace), so a symbol
  bound to nowhere fails the check here rather than ``import`` on a Mac; ``_PyInit__core`` is
  exported. (The symbol table's library ordinals are not checked: dyld reads them only for
  old files without LC_DYLD_INFO or chained fixups, and zig writes 0 there for the
  flat-lookup symbols where ld64 writes 0xfe.)

MH_NOUNDEFS is accepted although the module has undefined (flat-lookup) symbols: Apple's ld64
sets MH_NOUNDEFS together with MH_TWOLEVEL on every two-level-namespace image, with or without
``-undefined dynamic_lookup`` (ld64 src/ld/HeaderAndLoadCommands.hpp, ``flags()``), and dyld
never reads the flag (no dyld release, dyld-43 to dyld-1378, tests it): it binds each symbol by
the library ordinal in its bind record, which is what the last check verifies.
"""

from __future__ import annotations

import argparse
import hashlib
import struct
import sys
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

MH_MAGIC_64 = 0xFEEDFACF
CPU_TYPE_ARM64 = 0x0100000C
CPU_SUBTYPE_ARM64_ALL = 0
CPU_SUBTYPE_MASK = 0xFF000000  # capability bits (pointer-authentication ABI version)
MH_DYLIB, MH_BUNDLE = 6, 8
FILE_TYPES = {MH_DYLIB: "MH_DYLIB", MH_BUNDLE: "MH_BUNDLE"}

FLAG_NAMES = {
    0x1: "MH_NOUNDEFS",
    0x2: "MH_INCRLINK",
    0x4: "MH_DYLDLINK",
    0x8: "MH_BINDATLOAD",
    0x10: "MH_PREBOUND",
    0x20: "MH_SPLIT_SEGS",
    0x40: "MH_LAZY_INIT",
    0x80: "MH_TWOLEVEL",
    0x100: "MH_FORCE_FLAT",
    0x200: "MH_NOMULTIDEFS",
    0x400: "MH_NOFIXPREBINDING",
    0x800: "MH_PREBINDABLE",
    0x1000: "MH_ALLMODSBOUND",
    0x2000: "MH_SUBSECTIONS_VIA_SYMBOLS",
    0x4000: "MH_CANONICAL",
    0x8000: "MH_WEAK_DEFINES",
    0x10000: "MH_BINDS_TO_WEAK",
    0x20000: "MH_ALLOW_STACK_EXECUTION",
    0x40000: "MH_ROOT_SAFE",
    0x80000: "MH_SETUID_SAFE",
    0x100000: "MH_NO_REEXPORTED_DYLIBS",
    0x200000: "MH_PIE",
    0x400000: "MH_DEAD_STRIPPABLE_DYLIB",
    0x800000: "MH_HAS_TLV_DESCRIPTORS",
    0x1000000: "MH_NO_HEAP_EXECUTION",
    0x2000000: "MH_APP_EXTENSION_SAFE",
    0x4000000: "MH_NLIST_OUTOFSYNC_WITH_DYLDINFO",
    0x8000000: "MH_SIM_SUPPORT",
    0x80000000: "MH_DYLIB_IN_CACHE",
}
FLAGS_REQUIRED = 0x4 | 0x80  # MH_DYLDLINK | MH_TWOLEVEL
# What ld64 and zig may write on a shared library (the module docstring says why MH_NOUNDEFS is
# harmless). Refused: whatever else, e.g. MH_FORCE_FLAT (every image bound flat),
# MH_ALLOW_STACK_EXECUTION, MH_PREBOUND, MH_INCRLINK, MH_DYLIB_IN_CACHE.
FLAGS_ALLOWED = FLAGS_REQUIRED | sum(
    bit
    for bit, name in FLAG_NAMES.items()
    if name
    in (
        "MH_NOUNDEFS",
        "MH_BINDATLOAD",
        "MH_WEAK_DEFINES",
        "MH_BINDS_TO_WEAK",
        "MH_NO_REEXPORTED_DYLIBS",
        "MH_PIE",
        "MH_DEAD_STRIPPABLE_DYLIB",
        "MH_HAS_TLV_DESCRIPTORS",
        "MH_NO_HEAP_EXECUTION",
        "MH_APP_EXTENSION_SAFE",
        "MH_NLIST_OUTOFSYNC_WITH_DYLDINFO",
    )
)

LC_REQ_DYLD = 0x80000000
LC_SEGMENT_64 = 0x19
LC_SYMTAB = 0x2
LC_DYSYMTAB = 0xB
LC_LOAD_DYLIB = 0xC
LC_LOAD_WEAK_DYLIB = 0x18 | LC_REQ_DYLD
LC_REEXPORT_DYLIB = 0x1F | LC_REQ_DYLD
LC_LAZY_LOAD_DYLIB = 0x20
LC_LOAD_UPWARD_DYLIB = 0x23 | LC_REQ_DYLD
DYLIB_COMMANDS = (LC_LOAD_DYLIB, LC_LOAD_WEAK_DYLIB, LC_REEXPORT_DYLIB, LC_LAZY_LOAD_DYLIB,
                  LC_LOAD_UPWARD_DYLIB)  # fmt: skip
LC_CODE_SIGNATURE = 0x1D
LC_DYLD_INFO = 0x22
LC_DYLD_INFO_ONLY = 0x22 | LC_REQ_DYLD
LC_BUILD_VERSION = 0x32
LC_DYLD_CHAINED_FIXUPS = 0x34 | LC_REQ_DYLD
PLATFORM_MACOS = 1
SYSTEM_LIBRARIES = ("/usr/lib/lib", "/System/Library/Frameworks/")  # on every Mac

CSMAGIC_EMBEDDED_SIGNATURE = 0xFADE0CC0
CSMAGIC_CODEDIRECTORY = 0xFADE0C02
CSSLOT_CODEDIRECTORY = 0
CSSLOT_ALTERNATE_CODEDIRECTORIES = range(0x1000, 0x1005)
# Special slots whose blob, when embedded in the SuperBlob, is hashed into slot -type.
CSSLOT_EMBEDDED = {2: "requirements", 5: "entitlements", 7: "DER entitlements"}
HASH_TYPES = {  # hashType: (name, digest size, hashlib name)
    1: ("SHA-1", 20, "sha1"),
    2: ("SHA-256", 32, "sha256"),
    3: ("SHA-256 truncated", 20, "sha256"),
    4: ("SHA-384", 48, "sha384"),
}
CS_ADHOC, CS_LINKER_SIGNED = 0x2, 0x20000

BIND_SPECIAL_DYLIB_FLAT_LOOKUP = -2
PYTHON_PREFIXES = ("_Py", "__Py")
INIT_SYMBOL = "_PyInit__core"


class MachOError(Exception):
    """The file would not load (or not as intended) on an arm64 Mac."""


@dataclass
class Report:
    """What a passing file holds (printed by main)."""

    flags: list[str]
    filetype: str
    dylibs: list[str]
    minos: str
    signature: list[str] = field(default_factory=list)
    flat: list[str] = field(default_factory=list)
    twolevel: dict[str, int] = field(default_factory=dict)


def _u32(data: bytes, at: int, what: str, big: bool = False) -> int:
    if at < 0 or at + 4 > len(data):
        raise MachOError(
            f"truncated file: {what} at offset {at} is past the end ({len(data)} bytes)"
        )
    return int(struct.unpack_from(">I" if big else "<I", data, at)[0])


def _cstring(data: bytes, at: int, end: int, what: str) -> str:
    stop = data.find(b"\0", at, end)
    if at < 0 or stop < 0:
        raise MachOError(f"{what} at offset {at} is not a terminated string")
    return data[at:stop].decode("utf-8", "replace")


def _version(raw: int) -> str:
    return f"{raw >> 16}.{(raw >> 8) & 0xFF}"


def load_commands(data: bytes) -> tuple[int, int, list[tuple[int, int, int]]]:
    """Checks the header; returns (filetype, flags, [(cmd, offset, size)])."""
    if len(data) < 32:
        raise MachOError(f"{len(data)} bytes: too short for a Mach-O header")
    magic = _u32(data, 0, "magic")
    if magic in (0xCAFEBABE, 0xBEBAFECA):
        raise MachOError("a universal (fat) file; the wheel tag promises a thin arm64 Mach-O")
    if magic != MH_MAGIC_64:
        raise MachOError(f"magic 0x{magic:08x}: not a little-endian 64-bit Mach-O (0xfeedfacf)")
    cputype, cpusubtype, filetype, ncmds, sizeofcmds, flags = struct.unpack_from("<iIIIII", data, 4)
    if cputype & 0xFFFFFFFF != CPU_TYPE_ARM64:
        raise MachOError(f"cputype 0x{cputype & 0xFFFFFFFF:08x}, expected arm64 (0x0100000c)")
    if cpusubtype & ~CPU_SUBTYPE_MASK != CPU_SUBTYPE_ARM64_ALL:
        raise MachOError(f"cpusubtype {cpusubtype & ~CPU_SUBTYPE_MASK}: expected plain arm64 (0)")
    if filetype not in FILE_TYPES:
        raise MachOError(f"file type {filetype}, expected MH_DYLIB (6) or MH_BUNDLE (8)")
    if flags & FLAGS_REQUIRED != FLAGS_REQUIRED:
        raise MachOError(f"flags {flag_names(flags)} lack MH_DYLDLINK and MH_TWOLEVEL")
    if flags & ~FLAGS_ALLOWED:
        raise MachOError(f"unexpected header flags {flag_names(flags & ~FLAGS_ALLOWED)}")
    if 32 + sizeofcmds > len(data):
        raise MachOError(f"load commands ({sizeofcmds} bytes) run past the end of the file")
    commands, offset = [], 32
    for i in range(ncmds):
        if offset + 8 > 32 + sizeofcmds:
            raise MachOError(f"load command {i} starts past sizeofcmds")
        cmd, size = struct.unpack_from("<II", data, offset)
        if size < 8 or size % 8 or offset + size > 32 + sizeofcmds:
            raise MachOError(f"load command {i} (0x{cmd:x}) has a bad size {size}")
        commands.append((cmd, offset, size))
        offset += size
    return filetype, flags, commands


def flag_names(flags: int) -> str:
    names = [FLAG_NAMES.get(1 << b, f"0x{1 << b:x}") for b in range(32) if flags >> b & 1]
    return "|".join(names) or "none"


def _segments(data: bytes, commands: list[tuple[int, int, int]]) -> dict[str, tuple[int, int]]:
    segments = {}
    for cmd, at, _ in commands:
        if cmd == LC_SEGMENT_64:
            name = data[at + 8 : at + 24].split(b"\0")[0].decode("ascii", "replace")
            fileoff, filesize = struct.unpack_from("<QQ", data, at + 40)
            segments[name] = (fileoff, filesize)
    return segments


def check_signature(data: bytes, commands: list[tuple[int, int, int]]) -> list[str]:
    """Recomputes every page hash of every CodeDirectory; returns a line per directory."""
    found = [(at, size) for cmd, at, size in commands if cmd == LC_CODE_SIGNATURE]
    if not found:
        raise MachOError("no LC_CODE_SIGNATURE: arm64 macOS refuses to load unsigned code")
    if len(found) > 1:
        raise MachOError(f"{len(found)} LC_CODE_SIGNATURE commands")
    dataoff, datasize = struct.unpack_from("<II", data, found[0][0] + 8)
    end = dataoff + datasize
    if end > len(data):
        raise MachOError(f"the signature ({dataoff}+{datasize}) runs past the file ({len(data)})")
    linkedit = _segments(data, commands).get("__LINKEDIT")
    if linkedit is None or sum(linkedit) != end:
        raise MachOError(f"the signature does not end __LINKEDIT ({linkedit}, signature end {end})")
    if end != len(data):
        raise MachOError(
            f"{len(data) - end} bytes after the signature (unsigned, outside __LINKEDIT)"
        )
    blob = data[dataoff:end]
    magic, length, count = (_u32(blob, i, "SuperBlob header", big=True) for i in (0, 4, 8))
    if magic != CSMAGIC_EMBEDDED_SIGNATURE:
        raise MachOError(f"signature magic 0x{magic:08x}, expected SuperBlob 0xfade0cc0")
    if length > len(blob) or 12 + 8 * count > length:
        raise MachOError(
            f"SuperBlob length {length} / {count} entries do not fit in {len(blob)} bytes"
        )
    blobs: dict[int, bytes] = {}
    for i in range(count):
        slot, off = struct.unpack_from(">II", blob, 12 + 8 * i)
        blen = _u32(blob, off + 4, f"blob {slot} length", big=True)
        if off + blen > length or blen < 8:
            raise MachOError(f"blob in slot 0x{slot:x} ({off}+{blen}) is outside the SuperBlob")
        blobs[slot] = blob[off : off + blen]
    directories = [
        s for s in blobs if s == CSSLOT_CODEDIRECTORY or s in CSSLOT_ALTERNATE_CODEDIRECTORIES
    ]
    if CSSLOT_CODEDIRECTORY not in blobs:
        raise MachOError("the SuperBlob has no CodeDirectory (slot 0)")
    return [_check_directory(data, dataoff, s, blobs[s], blobs) for s in sorted(directories)]


def _check_directory(
    data: bytes, dataoff: int, slot: int, cd: bytes, blobs: dict[int, bytes]
) -> str:
    where = f"CodeDirectory (slot 0x{slot:x})"
    if len(cd) < 44:
        raise MachOError(f"{where}: {len(cd)} bytes, too short")
    magic, length, version, cd_flags, hash_offset, ident_offset, n_special, n_code, code_limit = (
        struct.unpack_from(">9I", cd, 0)
    )
    hash_size, hash_type, _platform, page_log2 = struct.unpack_from(">4B", cd, 36)
    if magic != CSMAGIC_CODEDIRECTORY:
        raise MachOError(f"{where}: magic 0x{magic:08x}, expected 0xfade0c02")
    if version >= 0x20300 and len(cd) >= 64:
        code_limit64 = struct.unpack_from(">Q", cd, 56)[0]
        code_limit = code_limit64 or code_limit
    if hash_type not in HASH_TYPES:
        raise MachOError(f"{where}: unknown hashType {hash_type}")
    hash_name, digest_size, algorithm = HASH_TYPES[hash_type]
    if hash_size != digest_size:
        raise MachOError(f"{where}: hashSize {hash_size} for {hash_name} ({digest_size} expected)")
    if page_log2 not in (12, 14):
        raise MachOError(f"{where}: page size 2**{page_log2}, expected 4096 or 16384")
    page = 1 << page_log2
    if code_limit != dataoff:
        raise MachOError(
            f"{where}: codeLimit {code_limit} is not where the signature starts ({dataoff}):"
            f" bytes {min(code_limit, dataoff)}..{max(code_limit, dataoff)} are not covered"
        )
    if n_code != -(-code_limit // page):
        raise MachOError(
            f"{where}: {n_code} code slots for {code_limit} bytes in {page}-byte pages"
        )
    first = hash_offset - n_special * hash_size
    if first < 44 or hash_offset + n_code * hash_size > length or length > len(cd):
        raise MachOError(f"{where}: hash slots outside the directory")

    def digest(chunk: bytes) -> bytes:
        return hashlib.new(algorithm, chunk).digest()[:hash_size]

    bad = []
    for i in range(n_code):
        stored = cd[hash_offset + i * hash_size : hash_offset + (i + 1) * hash_size]
        if digest(data[i * page : min((i + 1) * page, code_limit)]) != stored:
            bad.append(i)
    if bad:
        shown = ", ".join(
            f"page {i} (bytes {i * page}..{min((i + 1) * page, code_limit) - 1})" for i in bad[:5]
        )
        more = f" and {len(bad) - 5} more" if len(bad) > 5 else ""
        raise MachOError(
            f"{where}: {hash_name} hash mismatch in {len(bad)} of {n_code} pages: {shown}{more}."
            " The file was changed after it was signed; an arm64 Mac kills the process that"
            " maps such a page (re-sign, or do not patch the binary after linking)"
        )
    for kind, name in CSSLOT_EMBEDDED.items():
        stored = cd[hash_offset - kind * hash_size : hash_offset - (kind - 1) * hash_size]
        if kind in blobs:
            if kind > n_special or digest(blobs[kind]) != stored:
                raise MachOError(f"{where}: the {name} blob does not match special slot -{kind}")
        elif kind <= n_special and any(stored):
            raise MachOError(
                f"{where}: special slot -{kind} ({name}) is set but there is no such blob"
            )
    ident = _cstring(cd, ident_offset, len(cd), "identifier") if ident_offset else ""
    kinds = [
        n
        for bit, n in ((CS_ADHOC, "ad hoc"), (CS_LINKER_SIGNED, "linker-signed"))
        if cd_flags & bit
    ]
    return (
        f"{where}: {hash_name}, {n_code} pages of {page} bytes up to {code_limit}, all match;"
        f" identifier {ident!r}, {', '.join(kinds) or f'flags 0x{cd_flags:x}'}"
    )


def _uleb(data: bytes, at: int, end: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if at >= end:
            raise MachOError("truncated ULEB128 in the bind opcodes")
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def _binds(data: bytes, start: int, size: int) -> list[tuple[str, int]]:
    """(symbol, library ordinal) of every bind in a bind or lazy-bind opcode stream."""
    out, at, end, ordinal, symbol = [], start, start + size, 0, ""
    while at < end:
        op, imm = data[at] & 0xF0, data[at] & 0x0F
        at += 1
        if op == 0x00:  # DONE (lazy binds: the end of one entry)
            continue
        if op == 0x10:  # SET_DYLIB_ORDINAL_IMM
            ordinal = imm
        elif op == 0x20:  # SET_DYLIB_ORDINAL_ULEB
            ordinal, at = _uleb(data, at, end)
        elif op == 0x30:  # SET_DYLIB_SPECIAL_IMM (0, -1, -2, -3)
            ordinal = imm - 16 if imm else 0
        elif op == 0x40:  # SET_SYMBOL_TRAILING_FLAGS_IMM
            symbol = _cstring(data, at, end, "bind symbol")
            at += len(symbol.encode()) + 1
        elif op in (0x50, 0xB0, 0x90):  # SET_TYPE_IMM, DO_BIND_ADD_ADDR_IMM_SCALED, DO_BIND
            if op != 0x50:
                out.append((symbol, ordinal))
        elif op in (0x60, 0x70, 0x80):  # SET_ADDEND_SLEB, SET_SEGMENT_AND_OFFSET_ULEB, ADD_ADDR
            _, at = _uleb(data, at, end)
        elif op == 0xA0:  # DO_BIND_ADD_ADDR_ULEB
            out.append((symbol, ordinal))
            _, at = _uleb(data, at, end)
        elif op == 0xC0:  # DO_BIND_ULEB_TIMES_SKIPPING_ULEB
            out.append((symbol, ordinal))
            _, at = _uleb(data, at, end)
            _, at = _uleb(data, at, end)
        elif op == 0xD0 and imm == 0:  # THREADED: SET_BIND_ORDINAL_TABLE_SIZE_ULEB
            _, at = _uleb(data, at, end)
        elif op == 0xD0 and imm == 1:  # THREADED: APPLY
            continue
        else:
            raise MachOError(f"unknown bind opcode 0x{op | imm:02x} at offset {at - 1}")
    return out


def _chained_imports(data: bytes, start: int) -> list[tuple[str, int]]:
    """(symbol, library ordinal) of every import of LC_DYLD_CHAINED_FIXUPS."""
    _, _, imports_offset, symbols_offset, count, fmt, _ = struct.unpack_from("<7I", data, start)
    out = []
    for i in range(count):
        if fmt == 3:  # DYLD_CHAINED_IMPORT_ADDEND64: lib_ordinal:16, weak:1, ..., name_offset:32
            raw = struct.unpack_from("<Q", data, start + imports_offset + 16 * i)[0]
            ordinal, name = raw & 0xFFFF, raw >> 32
            ordinal = ordinal - 0x10000 if ordinal >= 0xFFF0 else ordinal
        elif fmt in (1, 2):  # lib_ordinal:8, weak:1, name_offset:23 (+ addend for 2)
            raw = _u32(data, start + imports_offset + (4 if fmt == 1 else 8) * i, "chained import")
            ordinal, name = raw & 0xFF, raw >> 9
            ordinal = ordinal - 0x100 if ordinal >= 0xF0 else ordinal
        else:
            raise MachOError(f"unknown chained-fixups imports format {fmt}")
        at = start + symbols_offset + name
        out.append((_cstring(data, at, len(data), "chained import name"), ordinal))
    return out


def check_bindings(
    data: bytes, commands: list[tuple[int, int, int]], dylibs: list[str]
) -> tuple[list[str], dict[str, int]]:
    """The imports dyld binds: CPython's flat, the rest two-level from a linked library."""
    binds: list[tuple[str, int]] = []
    for cmd, at, _ in commands:
        if cmd in (LC_DYLD_INFO, LC_DYLD_INFO_ONLY):
            bind_off, bind_size, _, _, lazy_off, lazy_size = struct.unpack_from(
                "<6I", data, at + 16
            )
            binds += _binds(data, bind_off, bind_size) + _binds(data, lazy_off, lazy_size)
        elif cmd == LC_DYLD_CHAINED_FIXUPS:
            binds += _chained_imports(data, struct.unpack_from("<I", data, at + 8)[0])
    flat: set[str] = set()
    twolevel: dict[str, set[str]] = {}
    wrong = []
    for symbol, ordinal in sorted(set(binds)):
        if symbol.startswith(PYTHON_PREFIXES):
            if ordinal != BIND_SPECIAL_DYLIB_FLAT_LOOKUP:
                wrong.append(f"{symbol} (library ordinal {ordinal}, not flat lookup -2)")
            flat.add(symbol)
        elif 1 <= ordinal <= len(dylibs):
            twolevel.setdefault(dylibs[ordinal - 1], set()).add(symbol)
        else:
            linked = f"{len(dylibs)} linked libraries"
            wrong.append(f"{symbol} (library ordinal {ordinal}, not one of the {linked})")
    if wrong:
        raise MachOError(f"{len(wrong)} imports bound wrongly: {'; '.join(sorted(wrong)[:8])}")
    if not flat:
        raise MachOError("no CPython symbol is imported by flat lookup: not a Python extension?")
    return sorted(flat), {lib: len(symbols) for lib, symbols in twolevel.items()}


def _exports_init(data: bytes, commands: list[tuple[int, int, int]]) -> bool:
    symtab = next(((at, size) for cmd, at, size in commands if cmd == LC_SYMTAB), None)
    if symtab is None:
        raise MachOError("no LC_SYMTAB")
    symoff, nsyms, stroff, strsize = struct.unpack_from("<4I", data, symtab[0] + 8)
    for i in range(nsyms):
        strx, n_type = struct.unpack_from("<IB", data, symoff + 16 * i)
        if n_type & 0x0E == 0x0E and n_type & 0x01 and strx < strsize:  # N_SECT, N_EXT
            if _cstring(data, stroff + strx, stroff + strsize, "symbol name") == INIT_SYMBOL:
                return True
    return False


def check(data: bytes, min_macos: str = "11.0") -> Report:
    """Every check in the module docstring; raises MachOError at the first failure."""
    filetype, flags, commands = load_commands(data)
    dylibs, minos = [], None
    for cmd, at, size in commands:
        if cmd in DYLIB_COMMANDS:
            name_at = _u32(data, at + 8, "dylib name offset")
            dylibs.append(_cstring(data, at + name_at, at + size, "dylib name"))
        elif cmd == LC_BUILD_VERSION:
            platform, raw_minos = struct.unpack_from("<II", data, at + 8)
            if platform != PLATFORM_MACOS:
                raise MachOError(f"LC_BUILD_VERSION platform {platform}, expected macOS (1)")
            minos = _version(raw_minos)
    bad = [d for d in dylibs if not d.startswith(SYSTEM_LIBRARIES)]
    if bad:
        raise MachOError(f"links libraries that are not macOS's own (/usr/lib, frameworks): {bad}")
    if "/usr/lib/libSystem.B.dylib" not in dylibs:
        raise MachOError(f"does not link /usr/lib/libSystem.B.dylib: {dylibs}")
    if minos != min_macos:
        raise MachOError(
            f"minimum macOS (LC_BUILD_VERSION) is {minos}, the wheel tag says {min_macos}"
        )
    signature = check_signature(data, commands)
    flat, twolevel = check_bindings(data, commands, dylibs)
    if not _exports_init(data, commands):
        raise MachOError(f"{INIT_SYMBOL} is not exported: Python cannot import the module")
    return Report(
        flag_names(flags).split("|"), FILE_TYPES[filetype], dylibs, minos, signature, flat, twolevel
    )


def read_extension(path: Path) -> bytes:
    """The bytes of the file, or of neardup/_core.abi3.so inside a wheel."""
    if path.suffix == ".whl":
        with zipfile.ZipFile(path) as wheel:
            names = [
                n for n in wheel.namelist() if n.startswith("neardup/_core") and n.endswith(".so")
            ]
            if names != ["neardup/_core.abi3.so"]:
                raise MachOError(f"{path.name}: expected neardup/_core.abi3.so, found {names}")
            return wheel.read(names[0])
    return path.read_bytes()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", type=Path, help="the extension module, or a wheel holding it")
    parser.add_argument("--min-macos", default="11.0", help="the wheel tag's macOS version")
    args = parser.parse_args(argv)
    try:
        report = check(read_extension(args.file), args.min_macos)
    except (MachOError, OSError, zipfile.BadZipFile) as exc:
        print(f"ERROR (macho_check): {args.file}: {exc}", file=sys.stderr)
        return 1
    print(f"{args.file}: Mach-O arm64 {report.filetype}, flags {'|'.join(report.flags)}")
    print(f"  links {', '.join(report.dylibs)}; minimum macOS {report.minos}")
    for line in report.signature:
        print(f"  {line}")
    libs = ", ".join(f"{n} from {d}" for d, n in report.twolevel.items())
    print(f"  imports: {len(report.flat)} CPython symbols by flat lookup; {libs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
