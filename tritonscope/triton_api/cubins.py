"""Many cubins disassembled by one nvdisasm run.

nvdisasm spends 0.2-0.3 s starting up whatever the input, more than Triton takes to compile
a small kernel, and reads one file per run. A sweep's cubins are therefore put into one ELF
of the same architecture: each kernel's code section, renamed so that none collide, with a
symbol for it. nvdisasm prints every section of that file; the listing is cut back into one
per cubin, names and labels as a run on that cubin alone prints them. Only the code is
carried over: the listing has no line information (nvdisasm -gi needs each cubin's debug
sections), which a sweep does not use.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable
from dataclasses import dataclass

_HEADER = struct.Struct("<16sHHIQQQIHHHHHH")  # Elf64_Ehdr
_SECTION = struct.Struct("<IIQQQQIIQQ")  # Elf64_Shdr
_SYMBOL = struct.Struct("<IBBHQQ")  # Elf64_Sym
_SYMTAB, _STRTAB, _NOTE = 2, 3, 7  # section types
_OBJECT, _FUNC, _SECTION_SYMBOL = 1, 2, 3  # symbol types (a section symbol is bound locally: 3 is its st_info)
_MARK = "__tritonscope"


@dataclass(frozen=True)
class _Code:
    name: str  # the kernel's symbol
    flags: int  # the section's flags (SHF_BARRIERS ... are nvdisasm's .sectionflags)
    info: int  # the section's info: registers in the top byte, the symbol below
    align: int
    symbol_info: int
    symbol_other: int
    code: bytes


def architecture(cubin: bytes) -> int:
    """The ELF header's flags (the SM and its variant): only cubins that agree share a run."""
    return _HEADER.unpack_from(cubin)[7]


def cuda_format(cubin: bytes) -> int:
    """The CUDA release whose ELF layout the cubin has: 13 for e_version 1 (ptxas 13's), 12 for the
    older 0x80 and 0x81 (ptxas 12's). nvdisasm analyzes the data flow of its own release's only."""
    return 13 if _HEADER.unpack_from(cubin)[3] == 1 else 12


def merge(cubins: list[bytes]) -> bytes:
    """One ELF holding every cubin's code sections, kernel K of cubin I renamed K__tritonscopeI."""
    header = _HEADER.unpack_from(cubins[0])
    names, strings = _Table(), _Table()
    codes = [(f"{c.name}{_MARK}{i}", c) for i, cubin in enumerate(cubins) for c in _code_sections(cubin)]
    # A section symbol for each (local symbols come first), then each kernel's function symbol.
    symbols = [_SYMBOL.pack(0, 0, 0, 0, 0, 0)]
    symbols += [
        _SYMBOL.pack(strings.add(f".text.{n}"), _SECTION_SYMBOL, 0, 4 + k, 0, 0) for k, (n, _) in enumerate(codes)
    ]
    functions = len(symbols)
    for k, (name, code) in enumerate(codes):  # sections 4.. follow NULL, .shstrtab, .strtab, .symtab
        symbols.append(_SYMBOL.pack(strings.add(name), code.symbol_info, code.symbol_other, 4 + k, 0, len(code.code)))
    fixed = [names.add(n) for n in (".shstrtab", ".strtab", ".symtab")]
    code_names = [names.add(f".text.{name}") for name, _ in codes]  # every name in before the table is placed
    described = _description(cubins[0])
    described_names = [names.add(name) for name, _, _, _ in described]
    out = _Image()
    places = [out.put(names.data, 1), out.put(strings.data, 1), out.put(b"".join(symbols), 8)]
    sections = [
        _SECTION.pack(0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
        _SECTION.pack(fixed[0], _STRTAB, 0, 0, places[0], len(names.data), 0, 0, 1, 0),
        _SECTION.pack(fixed[1], _STRTAB, 0, 0, places[1], len(strings.data), 0, 0, 1, 0),
        _SECTION.pack(fixed[2], _SYMTAB, 0, 0, places[2], len(symbols) * _SYMBOL.size, 2, functions, 8, _SYMBOL.size),
    ]
    for k, (_, code) in enumerate(codes):
        offset = out.put(code.code, code.align)
        info = (code.info & 0xFF000000) | (functions + k)
        sections.append(_SECTION.pack(code_names[k], 1, code.flags, 0, offset, len(code.code), 3, info, code.align, 0))
    moved = {old: len(sections) + k for k, (_, old, _, _) in enumerate(described)}
    for name, (_, _, header_fields, body) in zip(described_names, described, strict=True):
        kind, flags, _, _, _, link, info, align, entry = header_fields[1:]
        offset = out.put(body, max(align, 1))
        link, info = moved.get(link, 0), moved.get(info, 0)  # indices into the first cubin, renumbered
        sections.append(_SECTION.pack(name, kind, flags, 0, offset, len(body), link, info, align, entry))
    table = out.put(b"".join(sections), 8)
    fields = list(header)
    fields[5], fields[6], fields[10], fields[12], fields[13] = 0, table, 0, len(sections), 1  # no program headers
    return out.finish(_HEADER.pack(*fields))


def _description(cubin: bytes) -> list[tuple[str, int, tuple, bytes]]:
    """The sections that describe the whole file, not a kernel: CUDA 13's notes, which say the
    architecture with its variant (`.target sm_90a`), and what they name (`.nv.compat`).
    As (name, index, header, contents)."""
    sections, name_of = _sections(cubin)
    return [
        (name_of(s[0]), index, s, cubin[s[4] : s[4] + s[5]])
        for index, s in enumerate(sections)
        if s[1] == _NOTE or name_of(s[0]) == ".nv.compat"
    ]


def split(listing: str, cubins: list[bytes]) -> list[str]:
    """nvdisasm's listing of `merge(cubins)` cut into one listing per cubin, as if run on each alone."""
    listing = re.split(r"(?m)^\n\n//-+ SYMBOLS -+$", listing)[0]
    head, *chunks = re.split(r"(?m)^(?=//-+ \.text\.)", listing)
    per_cubin = [[] for _ in cubins]
    for chunk in chunks:
        found = re.search(rf"{_MARK}(\d+)", chunk)
        if found is None:
            raise ValueError("a section of the merged listing names no cubin")
        per_cubin[int(found[1])].append(_as_alone(chunk))
    return [(head + "".join(c)).rstrip("\n") + _objects(cubin) for c, cubin in zip(per_cubin, cubins, strict=True)]


def _as_alone(chunk: str) -> str:
    """One kernel's part of the listing with its own name back, and its labels numbered as nvdisasm
    numbers them in a file of its own: the branch targets in the order the branches come, then
    the labels no branch names (the end of the function)."""
    chunk = re.sub(rf"{_MARK}\d+", "", chunk)
    chunk = re.sub(r"^(//-+ )(\S+) +(-+)$", lambda m: f"{m[1]}{m[2]:<26}{m[3]}", chunk, count=1, flags=re.M)
    branched = re.findall(r"(?m)^\s*/\*[0-9a-f]+\*/.*?\.L_x_(\d+)", chunk)
    defined = re.findall(r"(?m)^\.L_x_(\d+):", chunk)
    order = {n: str(k) for k, n in enumerate(dict.fromkeys([*branched, *defined]))}
    return re.sub(r"\.L_x_(\d+)", lambda m: f".L_x_{order.get(m[1], m[1])}", chunk)


def _objects(cubin: bytes) -> str:
    """The SYMBOLS part nvdisasm ends a listing with: the cubin's data objects."""
    objects = [(name, size) for name, info, size in _symbols(cubin) if info & 0xF == _OBJECT]
    if not objects:
        return "\n\n\n"
    lines = "".join(f"\t.type\t\t{name},@object\n\t.size\t\t{name},0x{size:x}\n" for name, size in objects)
    return f"\n\n\n//--------------------- SYMBOLS --------------------------\n\n{lines}"


def _symbols(cubin: bytes) -> list[tuple[str, int, int]]:
    """(name, st_info, st_size) of every symbol."""
    return [(name, e[1], e[5]) for name, e in _symbol_entries(cubin, _sections(cubin)[0])]


def _code_sections(cubin: bytes) -> list[_Code]:
    sections, name_of = _sections(cubin)
    symbols = _symbol_entries(cubin, sections)
    codes = []
    for index, s in enumerate(sections):
        if not name_of(s[0]).startswith(".text."):
            continue
        name, symbol = next((n, y) for n, y in symbols if y[3] == index and y[1] & 0xF == _FUNC)
        body = cubin[s[4] : s[4] + s[5]]
        codes.append(_Code(name, s[2], s[7], max(s[8], 1), symbol[1], symbol[2], body))
    return codes


def _sections(cubin: bytes) -> tuple[list[tuple], Callable[[int], str]]:
    """The section headers, and the reader of section names."""
    header = _HEADER.unpack_from(cubin)
    sections = [_SECTION.unpack_from(cubin, header[6] + i * header[11]) for i in range(header[12])]
    return sections, _reader(cubin, sections[header[13]][4])


def _symbol_entries(cubin: bytes, sections: list[tuple]) -> list[tuple[str, tuple]]:
    """(name, Elf64_Sym fields) of every symbol of the symbol table."""
    symtab = next(s for s in sections if s[1] == _SYMTAB)
    name_of = _reader(cubin, sections[symtab[6]][4])
    entries = [_SYMBOL.unpack_from(cubin, symtab[4] + i * _SYMBOL.size) for i in range(symtab[5] // _SYMBOL.size)]
    return [(name_of(e[0]), e) for e in entries]


def _reader(blob: bytes, start: int):
    return lambda offset: blob[start + offset : blob.index(b"\0", start + offset)].decode()


class _Table:
    """An ELF string table being built."""

    def __init__(self):
        self.data = bytearray(b"\0")

    def add(self, text: str) -> int:
        offset = len(self.data)
        self.data += text.encode() + b"\0"
        return offset


class _Image:
    """The file being laid out, its header written last."""

    def __init__(self):
        self.data = bytearray(_HEADER.size)

    def put(self, blob: bytes, align: int) -> int:
        self.data += b"\0" * (-len(self.data) % align)
        offset = len(self.data)
        self.data += blob
        return offset

    def finish(self, header: bytes) -> bytes:
        self.data[: _HEADER.size] = header
        return bytes(self.data)


def damage(binary: bytes | str) -> str | None:
    """Why a compiled binary (an ELF: a cubin or an hsaco) is not whole, or None: the header's
    section table must lie inside it. What a cache entry cut short by a full disk looks like."""
    if isinstance(binary, str):
        return None  # a text format: nothing to check here
    if len(binary) < 64 or binary[:4] != b"\x7fELF" or binary[4] != 2:
        return f"the binary is not a 64-bit ELF ({len(binary)} bytes)"
    shoff = int.from_bytes(binary[0x28:0x30], "little")
    size, count = int.from_bytes(binary[0x3A:0x3C], "little"), int.from_bytes(binary[0x3C:0x3E], "little")
    if shoff + size * count > len(binary):
        return f"the binary is cut short: {len(binary)} bytes, its section table ends at byte {shoff + size * count}"
    return None
