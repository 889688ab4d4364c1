"""Reads a cubin's code: the bytes of each kernel's `.text.NAME` section (an ELF64 file).

The instruction at offset `/*0030*/` of nvdisasm's listing is the 16 bytes at 0x30 of its
kernel's `.text.NAME` section (sm70 on: one 128-bit word per instruction, the word
`nvdisasm -hex` prints). Reading them here costs no tool run.
"""

from __future__ import annotations

import struct

from .errors import ParseError

_HEADER = struct.Struct("<16sHHIQQQIHHHHHH")  # Elf64_Ehdr
_SECTION = struct.Struct("<IIQQQQIIQQ")  # Elf64_Shdr
_PROGBITS = 1
_TEXT = ".text."


def code_sections(cubin: bytes) -> dict[str, bytes]:
    """{kernel name: its code}, for every `.text.NAME` section of the file."""
    try:
        header = _HEADER.unpack_from(cubin)
        if header[0][:4] != b"\x7fELF" or header[0][4] != 2:
            raise ParseError("not a 64-bit ELF file: no cubin code to read")
        sections = [_SECTION.unpack_from(cubin, header[6] + i * header[11]) for i in range(header[12])]
        names = sections[header[13]][4]
        found = {}
        for s in sections:
            name = cubin[names + s[0] : cubin.index(b"\0", names + s[0])].decode(errors="replace")
            if s[1] == _PROGBITS and name.startswith(_TEXT):
                found[name.removeprefix(_TEXT)] = bytes(cubin[s[4] : s[4] + s[5]])
        return found
    except (struct.error, ValueError, IndexError) as exc:
        raise ParseError(f"the cubin's section table cannot be read ({exc}): is it whole?") from None


def kernel_code(cubin: bytes, kernel: str) -> bytes:
    """The code of one kernel; its only one where the cubin holds a single kernel of another name."""
    sections = code_sections(cubin)
    if kernel in sections:
        return sections[kernel]
    if len(sections) == 1:
        return next(iter(sections.values()))
    raise ParseError(f"the cubin holds no code for {kernel} (it has: {', '.join(sections) or 'none'})")
