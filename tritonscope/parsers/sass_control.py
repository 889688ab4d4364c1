"""Decodes the control codes of NVIDIA machine instructions (sm70 on): the scheduling fields ptxas
writes into every 128-bit instruction word.

    bits 105-108  stall     cycles the warp waits before issuing its next instruction (0-15)
    bit  109      yield     0: the scheduler may switch to another warp here (shown `Y`)
    bits 110-112  write     the scoreboard (0-5) released once the result is written; 7: none
    bits 113-115  read      the scoreboard released once the source registers are read; 7: none
    bits 116-121  wait      a mask of the scoreboards that must be released before it issues
    bits 122-125  reuse     operand slots (0-3) whose register stays in the reuse cache

A variable-latency instruction (a memory access, MUFU, a tensor-core op, S2R ...) names a
write scoreboard; a later instruction that reads its result waits on it. A fixed-latency
result is covered by the stall counts alone.

Sources, checked against each other:
  - Jia, Maggioni, Staiger, Scarpazza, "Dissecting the NVIDIA Volta GPU Architecture via
    Microbenchmarking" (arXiv:1804.06826, 2018), section 2.1: every Volta instruction carries 4 bits
    of reuse flags, a 6-bit wait mask, 3-bit read and write scoreboard indices, a yield flag and 4
    bits of stall cycles; Jia, Maggioni, Smith, Scarpazza, "Dissecting the NVidia Turing T4 GPU via
    Microbenchmarking" (arXiv:1903.07486, 2019): the same on Turing (sm75).
  - CuAssembler (github.com/cloudcores/CuAssembler), CuAsm/CuSMVersion.py: the control code at
    bit 64+41 = 105 of sm7x and sm8x words (`CCPos_7x_8x`; its version table reads sm89 and sm90
    the same way), and CuAsm/CuControlCode.py `splitCode`: stall 0x0000f, yield 0x00010 (`Y` when
    0), write 0x000e0, read 0x00700, wait 0x1f800 (7: no scoreboard). It notes that a few
    instructions (HMMA.SP, TEXS, BRA) use the reuse bits for other fields.
  - turingas (github.com/daadaada/turingas), turingas/grammar.py `ReadCtrl` and `GenReuse`: the
    same fields (`stall | yield << 4 | write << 5 | read << 8 | wait << 11`, shifted by 41 in the
    high 64-bit word) and the reuse flags at bits 58-60 of the high word (122-124).
  - Luo et al. ("Benchmarking and Dissecting the Nvidia Hopper GPU Architecture", arXiv:2402.13499;
    "Dissecting the NVIDIA Hopper Architecture through Microbenchmarking and Multiple Level
    Analysis", arXiv:2501.12084) measure Hopper's instructions but publish no encoding.

Where the layout is known (`LAYOUT_EVIDENCE`, said beside every decoded listing): Volta and Turing
by the papers and both assemblers; sm80-sm89 by CuAssembler; sm90 by nobody's publication but
the same layout, held here to the invariants below. sm120: nvdisasm (CUDA 12.8) prints the fields
itself (`&req={..}` the wait mask, `&rd`, `&wr`, `?transN` the stall, `?WAITN_END_GROUP` with the
yield hint), and the decoder agrees with it on every instruction tested. sm100 (and sm103,
sm110): unpublished; read with the same layout, which nvdisasm's own `.reuse` marks and the
scoreboard pairing agree with. tests/test_sass_control.py holds every target the bundled nvdisasm
reads to nvdisasm's `-hex` words and `.reuse` marks, to CuAssembler's printed codes, and to the
invariant that every use of a variable-latency result waits on its producer's scoreboard.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from .errors import ParseError

WORD = 16  # bytes per instruction, sm70 on
NO_SCOREBOARD = 7
_CONTROL_SHIFT = 105
SCOREBOARDS = 6

LAYOUT_EVIDENCE = {
    70: "published for Volta (Jia et al. 2018; CuAssembler; turingas)",
    75: "published for Turing (Jia et al. 2019; CuAssembler; turingas)",
    80: "published for sm8x (CuAssembler's sm_80 and sm_86 repositories)",
    90: "published for sm7x and sm8x (CuAssembler, which reads sm90 the same way); checked on compiled code",
    100: (
        "not published for Blackwell: read with the sm70-sm90 layout, which nvdisasm's .reuse marks and the "
        "scoreboard pairing agree with on every kernel tested"
    ),
    120: "printed by nvdisasm itself for sm120 (&req, &rd, &wr, ?trans, ?WAIT): the decoder agrees with it",
}
UNPUBLISHED = LAYOUT_EVIDENCE[100]


@dataclass(frozen=True)
class Control:
    """One instruction's control code."""

    stall: int  # cycles before the warp's next instruction may issue
    yield_hint: bool  # the scheduler may switch warps after it (the bit is 0)
    write: int | None  # scoreboard released when its result is written
    read: int | None  # scoreboard released when its sources are read (their registers may then change)
    wait: tuple[int, ...]  # scoreboards it waits on before issuing
    reuse: tuple[int, ...]  # operand slots kept in the reuse cache

    @property
    def text(self) -> str:
        """CuAssembler's notation: `B0-2---:R-:W1:Y:S04` (wait mask, read, write, yield, stall)."""
        mask = "".join(str(b) if b in self.wait else "-" for b in range(SCOREBOARDS))
        read = "-" if self.read is None else str(self.read)
        write = "-" if self.write is None else str(self.write)
        return f"B{mask}:R{read}:W{write}:{'Y' if self.yield_hint else '-'}:S{self.stall:02d}"


def layout_evidence(arch: int) -> str:
    """How the layout is known for an architecture (sm70 on)."""
    if arch < 70:
        raise ParseError(f"sm{arch}: control codes before Volta (sm70) are laid out otherwise; not decoded")
    return LAYOUT_EVIDENCE.get(arch) or (
        UNPUBLISHED if arch >= 100 else LAYOUT_EVIDENCE[max(a for a in LAYOUT_EVIDENCE if a <= arch)]
    )


def decode_word(word: int) -> Control:
    """The control code of one 128-bit instruction word (the low 64 bits first in memory)."""
    return _decode_code(word >> _CONTROL_SHIFT)


@functools.lru_cache(maxsize=8192)  # a kernel's control codes repeat: each is decoded once
def _decode_code(code: int) -> Control:
    write, read = (code >> 5) & 7, (code >> 8) & 7
    wait, reuse = (code >> 11) & 0x3F, (code >> 17) & 0xF
    return Control(
        stall=code & 0xF,
        yield_hint=not (code >> 4) & 1,
        write=None if write == NO_SCOREBOARD else write,
        read=None if read == NO_SCOREBOARD else read,
        wait=tuple(b for b in range(SCOREBOARDS) if wait >> b & 1),
        reuse=tuple(s for s in range(4) if reuse >> s & 1),
    )


def decode(code: bytes) -> dict[int, Control]:
    """{offset: control code} of every instruction of a kernel's code (its `.text` section)."""
    if len(code) % WORD:
        raise ParseError(f"the code is {len(code)} bytes, not a whole number of {WORD}-byte instructions")
    return {
        offset: decode_word(int.from_bytes(code[offset : offset + WORD], "little"))
        for offset in range(0, len(code), WORD)
    }


def words(code: bytes) -> dict[int, int]:
    """{offset: the 128-bit word}, as `nvdisasm -hex` prints it (two 64-bit halves, low first)."""
    return {offset: int.from_bytes(code[offset : offset + WORD], "little") for offset in range(0, len(code), WORD)}
