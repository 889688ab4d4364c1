"""Many cubins disassembled by one nvdisasm run.

nvdisasm spends 0.2-0.3 s setting up for an architecture whatever the input, more than Triton
takes to compile a small kernel, and reads one file per run. A sweep's cubins are therefore put
into one ELF of the same architecture: each kernel's code section, renamed so that none collide,
with its symbols (the kernel's, and the helpers ptxas placed in the same section, such as sm_100's
tcgen05 guardrail traps). nvdisasm prints every section of that file; the listing is cut back into
one per cubin, names, labels and column widths as a run on that cubin alone prints them (but
for nvdisasm 13's control fields, `&wr=0x1 ?trans8`, whose column it sets by rules of the whole
file not yet known here: cubins of different kernels in ptxas 13's layout may keep the merged
file's spacing there). With
`lines`, each cubin's line tables (`.debug_line`, Python lines; `.nv_debug_line_sass`, PTX lines)
are carried over too, their relocations pointed at the merged symbols, for `nvdisasm -gi -gp`.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable
from dataclasses import dataclass, field

_HEADER = struct.Struct("<16sHHIQQQIHHHHHH")  # Elf64_Ehdr
_SECTION = struct.Struct("<IIQQQQIIQQ")  # Elf64_Shdr
_SYMBOL = struct.Struct("<IBBHQQ")  # Elf64_Sym
_REL, _RELA = struct.Struct("<QQ"), struct.Struct("<QQq")  # Elf64_Rel, Elf64_Rela
_PROGBITS, _SYMTAB, _STRTAB, _RELA_TYPE, _NOTE, _REL_TYPE = 1, 2, 3, 4, 7, 9  # section types
_OBJECT, _FUNC, _SECTION_SYMBOL = 1, 2, 3  # symbol types (a section symbol is bound locally: 3 is its st_info)
_INFO_LINK = 0x40  # SHF_INFO_LINK: a relocation section's info names the section it patches
_LINE_TABLES = (".debug_line", ".nv_debug_line_sass")  # what nvdisasm -gi and -gp read
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
    symbol: int  # the kernel's symbol's index in its cubin
    section_symbol: int | None  # the section's own symbol's index in its cubin (relocations may name it)
    helpers: tuple[tuple[int, str, int, int, int, int], ...]  # other functions in the section:
    # (index in its cubin, name, st_info, st_other, value, size)


def architecture(cubin: bytes) -> int:
    """The ELF header's flags (the SM and its variant): only cubins that agree share a run."""
    return _HEADER.unpack_from(cubin)[7]


def cuda_format(cubin: bytes) -> int:
    """The CUDA release whose ELF layout the cubin has: 13 for e_version 1 (ptxas 13's), 12 for the
    older 0x80 and 0x81 (ptxas 12's). nvdisasm analyzes the data flow of its own release's only."""
    return 13 if _HEADER.unpack_from(cubin)[3] == 1 else 12


def mergeable(cubin: bytes) -> bool:
    """Whether the cubin's listing comes out of a merged file as it does alone: not where data patched
    with code addresses makes labels (a jump table for BRX in `.nv.constant2`, as Gluon's warp
    specialization compiles), which `merge` does not carry over."""
    sections, name_of = _sections(cubin)
    return not any(name_of(s[0]).startswith((".rel.nv.constant2", ".rela.nv.constant2")) for s in sections)


def merge(cubins: list[bytes], lines: bool = False) -> bytes:
    """One ELF holding every cubin's code sections, kernel K of cubin I renamed K__tritonscopeI (and
    the helpers in its section likewise); with `lines`, their line tables too."""
    header = _HEADER.unpack_from(cubins[0])
    names, strings = _Table(), _Table()
    codes = [(i, f"{c.name}{_MARK}{i}", c) for i, cubin in enumerate(cubins) for c in _code_sections(cubin)]
    symbols, functions, kernels, moved = _symbol_table(codes, strings)
    fixed = [names.add(n) for n in (".shstrtab", ".strtab", ".symtab")]
    code_names = [names.add(f".text.{name}") for _, name, _ in codes]  # every name in before the table is placed
    described = _description(cubins[0])
    described_names = [names.add(name) for name, _, _, _ in described]
    tables = _line_tables(cubins, moved) if lines else []
    table_names = [(names.add(name), names.add(relocations)) for name, relocations, *_ in tables]
    out = _Image()
    places = [out.put(names.data, 1), out.put(strings.data, 1), out.put(b"".join(symbols), 8)]
    sections = [
        _SECTION.pack(0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
        _SECTION.pack(fixed[0], _STRTAB, 0, 0, places[0], len(names.data), 0, 0, 1, 0),
        _SECTION.pack(fixed[1], _STRTAB, 0, 0, places[1], len(strings.data), 0, 0, 1, 0),
        _SECTION.pack(fixed[2], _SYMTAB, 0, 0, places[2], len(symbols) * _SYMBOL.size, 2, functions, 8, _SYMBOL.size),
    ]
    for k, (_, _, code) in enumerate(codes):
        offset = out.put(code.code, code.align)
        info = (code.info & 0xFF000000) | kernels[k]
        sections.append(_SECTION.pack(code_names[k], 1, code.flags, 0, offset, len(code.code), 3, info, code.align, 0))
    renumbered = {old: len(sections) + k for k, (_, old, _, _) in enumerate(described)}
    for name, (_, _, header_fields, body) in zip(described_names, described, strict=True):
        kind, flags, _, _, _, link, info, align, entry = header_fields[1:]
        offset = out.put(body, max(align, 1))
        link, info = renumbered.get(link, 0), renumbered.get(info, 0)  # indices into the first cubin, renumbered
        sections.append(_SECTION.pack(name, kind, flags, 0, offset, len(body), link, info, align, entry))
    for (name, relocations), (_, _, body, kind, entries) in zip(table_names, tables, strict=True):
        patched = len(sections)
        sections.append(_SECTION.pack(name, _PROGBITS, 0, 0, out.put(body, 1), len(body), 0, 0, 1, 0))
        size = _RELA.size if kind == _RELA_TYPE else _REL.size
        place = out.put(entries, 8)
        sections.append(_SECTION.pack(relocations, kind, _INFO_LINK, 0, place, len(entries), 3, patched, 8, size))
    table = out.put(b"".join(sections), 8)
    fields = list(header)
    fields[5], fields[6], fields[10], fields[12], fields[13] = 0, table, 0, len(sections), 1  # no program headers
    return out.finish(_HEADER.pack(*fields))


def _symbol_table(codes: list, strings: _Table) -> tuple[list[bytes], int, list[int], dict[tuple[int, int], int]]:
    """A section symbol for each code section (local symbols come first), then each kernel's function
    symbol and its section's helpers: (the symbols, the first non-local one, each code's kernel
    symbol, and `moved`: {(cubin, its symbol index): the merged symbol's index})."""
    symbols = [_SYMBOL.pack(0, 0, 0, 0, 0, 0)]
    symbols += [
        _SYMBOL.pack(strings.add(f".text.{n}"), _SECTION_SYMBOL, 0, 4 + k, 0, 0) for k, (_, n, _) in enumerate(codes)
    ]
    functions = len(symbols)
    moved: dict[tuple[int, int], int] = {}
    kernels = []
    for k, (i, name, code) in enumerate(codes):  # sections 4.. follow NULL, .shstrtab, .strtab, .symtab
        moved[(i, code.symbol)] = len(symbols)
        if code.section_symbol is not None:  # a relocation against the section means its kernel
            moved.setdefault((i, code.section_symbol), len(symbols))
        kernels.append(len(symbols))
        symbols.append(_SYMBOL.pack(strings.add(name), code.symbol_info, code.symbol_other, 4 + k, 0, len(code.code)))
        for index, helper, info, other, value, size in code.helpers:
            moved[(i, index)] = len(symbols)
            symbols.append(_SYMBOL.pack(strings.add(f"{helper}{_MARK}{i}"), info, other, 4 + k, value, size))
    return symbols, functions, kernels, moved


@dataclass
class _Joined:
    """One line table of every cubin, joined (one line program per cubin), with its relocations."""

    relocations: str = ""  # the relocation section's name (`.rel.debug_line` or `.rela.debug_line`)
    kind: int = 0  # SHT_REL or SHT_RELA
    body: bytearray = field(default_factory=bytearray)
    entries: bytearray = field(default_factory=bytearray)


def _line_tables(cubins: list[bytes], moved: dict[tuple[int, int], int]) -> list[tuple]:
    """Each line table of the cubins, joined: (name, its relocations' name, contents, SHT_REL or
    SHT_RELA, the relocations), their symbols the merged ones. ValueError where a relocation names a
    symbol not carried over."""
    found: dict[str, _Joined] = {}
    for i, cubin in enumerate(cubins):
        sections, name_of = _sections(cubin)
        by_name = {name_of(s[0]): s for s in sections}
        for table in _LINE_TABLES:
            if table not in by_name:
                continue
            body = by_name[table]
            joined = found.setdefault(table, _Joined())
            start = len(joined.body)
            joined.body += cubin[body[4] : body[4] + body[5]]
            for prefix, kind, layout in ((".rel", _REL_TYPE, _REL), (".rela", _RELA_TYPE, _RELA)):
                relocations = by_name.get(prefix + table)
                if relocations is None:
                    continue
                if joined.kind not in (0, kind):
                    raise ValueError(f"{table}: relocations of two kinds")
                joined.relocations, joined.kind = prefix + table, kind
                for at in range(relocations[4], relocations[4] + relocations[5], layout.size):
                    offset, info, *addend = layout.unpack_from(cubin, at)
                    symbol = moved.get((i, info >> 32))
                    if symbol is None:
                        raise ValueError(f"{table}: a relocation against symbol {info >> 32}, not carried over")
                    joined.entries += layout.pack(offset + start, (symbol << 32) | (info & 0xFFFFFFFF), *addend)
    return [(name, j.relocations, bytes(j.body), j.kind, bytes(j.entries)) for name, j in found.items() if j.kind]


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
    per_cubin: list[list[tuple[str, str]]] = [[] for _ in cubins]
    for chunk in chunks:
        found = re.search(rf"{_MARK}(\d+)", chunk)
        if found is None:
            raise ValueError("a section of the merged listing names no cubin")
        per_cubin[int(found[1])].append((chunk, _as_alone(chunk)))
    column = _control_column(listing)
    return [
        (head + "".join(_in_own_column(pieces, column))).rstrip("\n") + _objects(cubin)
        for pieces, cubin in zip(per_cubin, cubins, strict=True)
    ]


# An instruction and the control fields nvdisasm 13 writes after it (`&wr=0x1  ?trans8;`), from a
# column one past the file's longest instruction: a merged file's, until moved to the cubin's own.
_CONTROLLED = re.compile(r"^(\s*/\*[0-9a-f]+\*/\s+\S.*?)( +)([&?]\S.*)$")


def _control_column(text: str) -> int | None:
    widths = [len(m[1]) for m in map(_CONTROLLED.match, text.splitlines()) if m]
    return max(widths) + 1 if widths else None


def _in_own_column(pieces: list[tuple[str, str]], column: int | None) -> list[str]:
    """A cubin's chunks (as merged, as renamed), their control fields where a file of the cubin alone
    has them: as far past its own column as they were past the merged file's. Labels renamed shorter
    or longer than they were merged (`.L_x_12` back to `.L_x_2`) move nothing."""
    own = _control_column("".join(alone for _, alone in pieces))
    if column is None or own is None:
        return [alone for _, alone in pieces]
    out = []
    for merged, alone in pieces:
        lines = []
        for was, line in zip(merged.split("\n"), alone.split("\n"), strict=True):
            before, after = _CONTROLLED.match(was), _CONTROLLED.match(line)
            if before and after:
                past = len(before[1]) + len(before[2]) - column  # 0 for `&` fields, more for a lone `?`
                line = after[1] + " " * max(own + past - len(after[1]), 1) + after[3]
            lines.append(line)
        out.append("\n".join(lines))
    return out


def _as_alone(chunk: str) -> str:
    """One kernel's part of the listing with its own name back, and its labels numbered as nvdisasm
    numbers them in a file of its own: the branch targets in the order the branches come, then the
    labels no branch names (the end of the function), in the order they come. The start of each
    function ptxas placed after the kernel's code but the first (sm_100's guardrail traps) ends the
    one before it, and takes a number there too, though its name is printed."""
    chunk = re.sub(rf"{_MARK}\d+", "", chunk)
    chunk = re.sub(r"^(//-+ )(\S+) +(-+)$", lambda m: f"{m[1]}{m[2]:<25} {m[3]}", chunk, count=1, flags=re.M)
    branched = re.findall(r"(?m)^\s*/\*[0-9a-f]+\*/.*?\.L_x_(\d+)", chunk)
    order = {n: k for k, n in enumerate(dict.fromkeys(branched))}
    number, functions = len(order), 0
    for label, function in re.findall(r"(?m)^(?:\.L_x_(\d+)|([^\s.]\S*)):$", chunk):
        if function:
            functions += 1
            number += functions > 2  # the kernel, then its first helper: neither ends another
        elif label not in order:
            order[label] = number
            number += 1
    return re.sub(r"\.L_x_(\d+)", lambda m: f".L_x_{order.get(m[1], m[1])}", chunk)


def _objects(cubin: bytes) -> str:
    """The SYMBOLS part nvdisasm ends a listing with: the cubin's data objects in no section (those
    in one, sm_100's reserved shared memory, belong to a section `-c` does not print)."""
    objects = [(name, size) for name, info, size, section in _symbols(cubin) if info & 0xF == _OBJECT and not section]
    if not objects:
        return "\n"
    lines = "".join(f"\t.type\t\t{name},@object\n\t.size\t\t{name},0x{size:x}\n" for name, size in objects)
    return f"\n\n\n//--------------------- SYMBOLS --------------------------\n\n{lines}"


def _symbols(cubin: bytes) -> list[tuple[str, int, int, int]]:
    """(name, st_info, st_size, st_shndx) of every symbol."""
    return [(name, e[1], e[5], e[3]) for name, e in _symbol_entries(cubin, _sections(cubin)[0])]


def _code_sections(cubin: bytes) -> list[_Code]:
    """Each code section, with the kernel it is named for (`.text.K`: K) and the other functions in it."""
    sections, name_of = _sections(cubin)
    symbols = _symbol_entries(cubin, sections)
    codes = []
    for index, s in enumerate(sections):
        section = name_of(s[0])
        if not section.startswith(".text."):
            continue
        functions = [(j, n, y) for j, (n, y) in enumerate(symbols) if y[3] == index and y[1] & 0xF == _FUNC]
        if not functions:
            raise ValueError(f"{section}: no function symbol")  # not laid out as Triton's: read alone
        j, name, symbol = next((f for f in functions if f[1] == section[len(".text.") :]), functions[0])
        helpers = tuple((k, n, y[1], y[2], y[4], y[5]) for k, n, y in functions if k != j)
        own = next((k for k, (_, y) in enumerate(symbols) if y[3] == index and y[1] == _SECTION_SYMBOL), None)
        body = cubin[s[4] : s[4] + s[5]]
        codes.append(_Code(name, s[2], s[7], max(s[8], 1), symbol[1], symbol[2], body, j, own, helpers))
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
