"""`.ci/macho_check.py`, the check of the macOS arm64 wheel's extension (run by .ci/wheel-checks
and the release workflow): it accepts a correctly signed Mach-O and rejects what an arm64 Mac
would refuse or kill. The Mach-O files are built here, byte by byte, with their own ad hoc
signature (no Mac, no network); the real extension is checked too when .ci/wheels has left a
macOS wheel in dist/."""

from __future__ import annotations

import hashlib
import importlib.util
import struct
import subprocess
import sys
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / ".ci" / "macho_check.py"

ARM64, X86_64 = 0x0100000C, 0x01000007
MH_EXECUTE, MH_DYLIB, MH_BUNDLE = 2, 6, 8
NOUNDEFS, DYLDLINK, TWOLEVEL = 0x1, 0x4, 0x80
PAGE = 4096
TEXT_SIZE = 3 * PAGE
FLAT, LIBSYSTEM = -2, 1
IMPORTS = [("_PyList_New", FLAT), ("_Py_IncRef", FLAT), ("_malloc", LIBSYSTEM)]


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("macho_check", SCRIPT)
    assert spec is not None and spec.loader is not None, SCRIPT
    module = importlib.util.module_from_spec(spec)
    sys.modules["macho_check"] = module  # dataclasses look the module up
    spec.loader.exec_module(module)
    return module


mc = _load()


def _lc(cmd: int, body: bytes) -> bytes:
    body += b"\0" * (-(8 + len(body)) % 8)
    return struct.pack("<II", cmd, 8 + len(body)) + body


def _segment(name: str, fileoff: int, filesize: int) -> bytes:
    return _lc(0x19, struct.pack("<16sQQQQiiII", name.encode(), fileoff, filesize, fileoff,
                                 filesize, 5, 5, 0, 0))  # fmt: skip


def _bind_opcodes(imports: list[tuple[str, int]]) -> bytes:
    out = bytearray([0x72, 0x00])  # SET_SEGMENT_AND_OFFSET_ULEB: segment 2, offset 0
    for symbol, ordinal in imports:
        if ordinal <= 0:
            out.append(0x30 | (ordinal & 0x0F))  # SET_DYLIB_SPECIAL_IMM
        else:
            out.append(0x10 | ordinal)  # SET_DYLIB_ORDINAL_IMM
        out += b"\x40" + symbol.encode() + b"\0"  # SET_SYMBOL_TRAILING_FLAGS_IMM
        out += b"\x51\x90"  # SET_TYPE_IMM pointer, DO_BIND
    return bytes(out + b"\x00")


def _chained_fixups(imports: list[tuple[str, int]]) -> bytes:
    """LC_DYLD_CHAINED_FIXUPS data with imports in DYLD_CHAINED_IMPORT format (no page starts)."""
    names, table = b"\0", b""
    for symbol, ordinal in imports:
        table += struct.pack("<I", (ordinal & 0xFF) | len(names) << 9)
        names += symbol.encode() + b"\0"
    header = struct.pack("<7I", 0, 28, 28, 28 + len(table), len(imports), 1, 0)
    return header + table + names


def _signature(data: bytes, hash_type: int, requirements: bool) -> bytes:
    """An ad hoc SuperBlob over data (everything before the signature), as ld64 writes it."""
    algorithm, size = {1: ("sha1", 20), 2: ("sha256", 32)}[hash_type]
    ident = b"synthetic.so\0"
    reqs = struct.pack(">III", 0xFADE0C01, 12, 0) if requirements else b""
    n_special = 2 if requirements else 0
    n_code = -(-len(data) // PAGE)
    header_size = 88  # version 0x20400
    hash_offset = header_size + len(ident) + n_special * size
    specials = b""
    if requirements:  # slot -2 is the requirements blob, slot -1 (Info.plist) is empty
        specials = hashlib.new(algorithm, reqs).digest() + b"\0" * size
    hashes = b"".join(
        hashlib.new(algorithm, data[i * PAGE : (i + 1) * PAGE]).digest() for i in range(n_code)
    )
    length = hash_offset + len(hashes)
    cd = struct.pack(">9I4BI", 0xFADE0C02, length, 0x20400, 0x20002, hash_offset, header_size,
                     n_special, n_code, len(data), size, hash_type, 0, 12, 0)  # fmt: skip
    cd += struct.pack(">IIIQQQQ", 0, 0, 0, 0, 0, TEXT_SIZE, 0)  # scatter..execSegFlags
    assert len(cd) == header_size
    cd += ident + specials + hashes
    blobs = [(0, cd)] + ([(2, reqs)] if requirements else [])
    index, offset = b"", 12 + 8 * len(blobs)
    for slot, blob in blobs:
        index += struct.pack(">II", slot, offset)
        offset += len(blob)
    return (
        struct.pack(">III", 0xFADE0CC0, offset, len(blobs)) + index + b"".join(b for _, b in blobs)
    )


def build(
    *,
    cputype: int = ARM64,
    filetype: int = MH_BUNDLE,
    flags: int = NOUNDEFS | DYLDLINK | TWOLEVEL,
    signed: bool = True,
    hash_type: int = 2,
    requirements: bool = False,
    imports: list[tuple[str, int]] | None = None,
    minos: int = 11 << 16,
    dylib: str = "/usr/lib/libSystem.B.dylib",
    chained: bool = False,
) -> bytes:
    """A minimal arm64 extension: __TEXT (3 pages of pseudo-code), __LINKEDIT (binds, symbol
    table exporting _PyInit__core, then the code signature at the very end). The imports are
    bind opcodes (LC_DYLD_INFO_ONLY, what zig and ld64 with -undefined dynamic_lookup write) or
    chained-fixups imports (LC_DYLD_CHAINED_FIXUPS, newer Apple linkers)."""
    imports = IMPORTS if imports is None else imports
    binds = _chained_fixups(imports) if chained else _bind_opcodes(imports)
    strings = b"\0_PyInit__core\0"
    symtab = struct.pack("<IBBHQ", 1, 0x0F, 1, 0, 0x1000)  # N_SECT | N_EXT in section 1
    linkedit = binds + b"\0" * (-len(binds) % 8) + symtab + strings
    linkedit += b"\0" * (-len(linkedit) % 16)
    sig_off = TEXT_SIZE + len(linkedit)
    n_code = -(-sig_off // PAGE)
    sig_size = 12 + 8 * (2 if requirements else 1) + 88 + 13 + (12 if requirements else 0)
    sig_size += (n_code + (2 if requirements else 0)) * (32 if hash_type == 2 else 20)
    symoff = TEXT_SIZE + len(binds) + (-len(binds) % 8)
    commands = [
        _segment("__TEXT", 0, TEXT_SIZE),
        _segment("__LINKEDIT", TEXT_SIZE, len(linkedit) + (sig_size if signed else 0)),
        _lc(0xC, struct.pack("<IIII", 24, 2, 0x10000, 0x10000) + dylib.encode() + b"\0"),
        _lc(0x32, struct.pack("<IIII", 1, minos, minos, 0)),
        _lc(0x2, struct.pack("<IIII", symoff, 1, symoff + 16, len(strings))),
        _lc(0x80000034, struct.pack("<II", TEXT_SIZE, len(binds)))
        if chained
        else _lc(0x80000022, struct.pack("<10I", 0, 0, TEXT_SIZE, len(binds), 0, 0, 0, 0, 0, 0)),
    ]
    if signed:
        commands.append(_lc(0x1D, struct.pack("<II", sig_off, sig_size)))
    cmds = b"".join(commands)
    header = struct.pack("<IiIIIIII", 0xFEEDFACF, cputype, 0, filetype, len(commands), len(cmds),
                         flags, 0)  # fmt: skip
    text = header + cmds
    code = bytes((i * 7 + 3) % 251 for i in range(TEXT_SIZE - len(text)))  # not all zero
    data = text + code + linkedit
    if not signed:
        return data
    signature = _signature(data, hash_type, requirements)
    assert len(signature) == sig_size
    return data + signature


def rejected(data: bytes) -> str:
    with pytest.raises(mc.MachOError) as info:
        mc.check(data)
    return str(info.value)


@pytest.mark.parametrize("hash_type", [1, 2])
@pytest.mark.parametrize("filetype", [MH_BUNDLE, MH_DYLIB])
@pytest.mark.parametrize("chained", [False, True])
def test_accepts_a_correctly_signed_extension(hash_type, filetype, chained):
    data = build(hash_type=hash_type, filetype=filetype, requirements=True, chained=chained)
    report = mc.check(data)
    assert report.flat == ["_PyList_New", "_Py_IncRef"]
    assert report.twolevel == {"/usr/lib/libSystem.B.dylib": 1}
    assert report.minos == "11.0" and "MH_NOUNDEFS" in report.flags
    assert "4 pages of 4096 bytes" in report.signature[0]
    assert ("SHA-1" if hash_type == 1 else "SHA-256") in report.signature[0]


@pytest.mark.parametrize("offset", [100, TEXT_SIZE - 1, TEXT_SIZE + 5])
def test_one_byte_changed_after_signing_is_rejected(offset):
    data = bytearray(build())
    data[offset] ^= 0x01
    page = offset // PAGE
    message = rejected(bytes(data))
    assert f"hash mismatch in 1 of 4 pages: page {page} " in message
    assert "changed after it was signed" in message


def test_clearing_noundefs_after_signing_is_rejected():
    # What "fixing" MH_NOUNDEFS by patching the linked file would do: page 0 no longer matches.
    data = bytearray(build())
    struct.pack_into("<I", data, 24, DYLDLINK | TWOLEVEL)
    assert "hash mismatch in 1 of 4 pages: page 0 " in rejected(bytes(data))


def test_a_changed_requirements_blob_is_rejected():
    good = build(requirements=True)
    reqs_at = good.rindex(struct.pack(">III", 0xFADE0C01, 12, 0))
    data = bytearray(good)
    data[reqs_at + 11] = 1  # requirements count 0 -> 1
    assert "requirements blob does not match special slot -2" in rejected(bytes(data))


def test_missing_code_signature_is_rejected():
    assert "no LC_CODE_SIGNATURE" in rejected(build(signed=False))


def test_bytes_after_the_signature_are_rejected():
    assert "after the signature" in rejected(build() + b"\0" * 16)


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"cputype": X86_64}, "expected arm64"),
        ({"filetype": MH_EXECUTE}, "expected MH_DYLIB (6) or MH_BUNDLE (8)"),
        ({"flags": DYLDLINK}, "lack MH_DYLDLINK and MH_TWOLEVEL"),
        ({"flags": DYLDLINK | TWOLEVEL | 0x20000}, "MH_ALLOW_STACK_EXECUTION"),
        ({"minos": 12 << 16}, "minimum macOS (LC_BUILD_VERSION) is 12.0"),
        ({"dylib": "/opt/homebrew/lib/libintl.8.dylib"}, "not macOS's own"),
        ({"dylib": "/usr/lib/libiconv.2.dylib"}, "does not link /usr/lib/libSystem.B.dylib"),
    ],
)
def test_wrong_header_or_target_is_rejected(kwargs, expected):
    assert expected in rejected(build(**kwargs))


@pytest.mark.parametrize(
    ("imports", "expected"),
    [
        ([("_PyList_New", LIBSYSTEM)], "_PyList_New (library ordinal 1, not flat lookup -2)"),
        ([("_PyList_New", FLAT), ("_malloc", FLAT)], "_malloc (library ordinal -2, not one of"),
        ([("_PyList_New", FLAT), ("_malloc", 2)], "_malloc (library ordinal 2, not one of the 1"),
        ([("_malloc", LIBSYSTEM)], "no CPython symbol is imported by flat lookup"),
    ],
)
@pytest.mark.parametrize("chained", [False, True])
def test_imports_bound_the_wrong_way_are_rejected(imports, expected, chained):
    assert expected in rejected(build(imports=imports, chained=chained))


def test_command_line_exit_codes_and_wheels(tmp_path):
    good, bad = tmp_path / "good.whl", tmp_path / "bad.so"
    with zipfile.ZipFile(good, "w") as wheel:
        wheel.writestr("neardup/_core.abi3.so", build())
    bad.write_bytes(build(cputype=X86_64))
    ok = subprocess.run([sys.executable, str(SCRIPT), str(good)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert "all match" in ok.stdout and "2 CPython symbols by flat lookup" in ok.stdout
    no = subprocess.run([sys.executable, str(SCRIPT), str(bad)], capture_output=True, text=True)
    assert no.returncode == 1 and no.stderr.startswith("ERROR (macho_check): ")
    assert "cputype 0x01000007" in no.stderr


MAC_WHEELS = sorted((ROOT / "dist").glob("neardup-*-macosx_*_arm64.whl"))


@pytest.mark.skipif(not MAC_WHEELS, reason="no macOS arm64 wheel in dist/ (bash .ci/wheels)")
def test_the_built_macos_wheel():
    data = mc.read_extension(MAC_WHEELS[-1])
    report = mc.check(data)
    assert len(report.flat) > 50 and "/usr/lib/libSystem.B.dylib" in report.twolevel
    changed = bytearray(data)
    changed[len(data) // 3] ^= 0x40
    assert "changed after it was signed" in rejected(bytes(changed))
