"""Properties of the `.file`/`.loc` reader for PTX and AMDGCN assembly."""

from __future__ import annotations

from hostile import large, motifs, repeated, within
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tritonscope.parsers import asm_loc

FILES = {1: "/d/k.py", 2: "/d/helpers.py", 3: "/other/k2.py"}  # base names unique: call sites name files by base
PTX_CODE = [
    "add.s32 %r1, %r2, %r3;",
    "@%p1 bra $L__BB0_2;",
    "@!%p2 st.global.b32 [%rd1], %r1;",
    "ret;",
    "mov.u32 %r1, 0;",
]
AMDGCN_CODE = [
    "\ts_load_dword s0, s[0:1], 0x0",
    "\tv_add_f32_e32 v0, v1, v2",
    "\ts_endpgm",
    "\tbuffer_load_dword v1, v0",
]
NOISE = ["$L__BB0_2:", "// a comment", "\t.reg .b32 %r<5>;", "{", "}", "", ";;#ASMSTART", ".Ltmp0:"]


@st.composite
def listings(draw, amdgcn: bool):
    """(assembly, expected map): `.loc`s with inlined_at and `@[ ... ]` call sites, then instructions."""
    lines, expected, current = [], {}, ()
    if amdgcn:  # AMDGCN names its files up front, as directory and name
        lines += [f'\t.file\t{n} "{path.rsplit("/", 1)[0]}" "{path.rsplit("/", 1)[1]}"' for n, path in FILES.items()]
    for _ in range(draw(st.integers(0, 25))):
        kind = draw(st.sampled_from(["loc", "code", "code", "noise", "end"]))
        if kind == "loc":
            index, line = draw(st.sampled_from(sorted(FILES))), draw(st.integers(0, 10**6))
            text, found = f"\t.loc\t{index} {line} {draw(st.integers(0, 80))}", [(FILES[index], line)]
            for outer, outer_line in draw(st.lists(st.tuples(st.sampled_from(sorted(FILES)), st.integers(0, 999)))):
                text += f", inlined_at {outer} {outer_line} 4"
                found.append((FILES[outer], outer_line))
            calls = draw(st.lists(st.tuples(st.sampled_from(sorted(FILES)), st.integers(0, 999)), max_size=3))
            if calls:
                text += " // k.py:1:1 " + " ".join(f"@[ {FILES[f].rsplit('/', 1)[1]}:{n}:7" for f, n in calls)
                text += " ]" * len(calls)
                found += [(FILES[f], n) for f, n in calls]
            current = tuple(dict.fromkeys(found)) if line > 0 else ()
            lines.append(text)
        elif kind == "code":
            lines.append(draw(st.sampled_from(AMDGCN_CODE if amdgcn else PTX_CODE)))
            if current:
                expected[len(lines)] = current
        elif kind == "noise":
            lines.append(draw(st.sampled_from(NOISE)))
        else:  # the end of a function or a debug section: what follows is not code
            lines.append(draw(st.sampled_from([".Lfunc_end0:", "\t.section\t.debug_info", ".section .debug_abbrev"])))
            current = ()
    if not amdgcn:  # PTX names its files at the end
        lines += [f'\t.file\t{n} "{path}"' for n, path in FILES.items()]
    return "\n".join(lines), expected


@settings(max_examples=300, deadline=None)
@given(listing=listings(amdgcn=False))
def test_ptx_lines_found_are_exactly_the_ones_put_in(listing):
    text, expected = listing
    assert asm_loc.parse_ptx(text) == expected


@settings(max_examples=300, deadline=None)
@given(listing=listings(amdgcn=True))
def test_amdgcn_lines_found_are_exactly_the_ones_put_in(listing):
    text, expected = listing
    assert asm_loc.parse_amdgcn(text) == expected


@given(index=st.integers(0, 99), line=st.integers(0, 10**6), column=st.integers(0, 99), code=st.sampled_from(PTX_CODE))
def test_is_directive_tells_directives_from_code(index, line, column, code):
    assert asm_loc.is_directive(f"\t.loc\t{index} {line} {column} // k.py:{line}:{column}")
    assert asm_loc.is_directive(f'\t.file\t{index} "/d/k.py"')
    assert asm_loc.is_directive(f'\t.file\t{index} "/d" "k.py"')
    assert not asm_loc.is_directive(code)


# --- anything at all: only a mapping comes back, fast ------------------------------------------------------------

_FRAGMENTS = [
    ".loc 1 ",
    ".file 1 ",
    '"',
    "\\",
    "@[",
    " ]",
    "k.py:",
    ":",
    "1",
    "99999",
    " ",
    "\t",
    "\n",
    "inlined_at 1 ",
]
_FRAGMENTS += ["add.s32 %r1;", "x", ",", ".section", ".Lfunc_end0"]


def _check(result: dict) -> None:
    for number, found in result.items():
        assert isinstance(number, int) and number >= 1 and found
        assert all(isinstance(path, str) and isinstance(line, int) for path, line in found)


@settings(max_examples=500, deadline=None)
@given(text=st.text(st.sampled_from('.loc.file 1"@[]:k\n\t;') | st.characters(), max_size=200))
@example(text='.file 1 "k.py"\n.loc 1 ' + "9" * 5000 + " 0\nadd.s32 %r1;")
@example(text='.file 1 "k.py"\n.loc 1 1 0 // @[ k.py:' + "9" * 5000 + ":1 ]\nadd.s32 %r1;")
def test_any_text_gives_a_map(text):
    _check(asm_loc.parse_ptx(text))
    _check(asm_loc.parse_amdgcn(text))
    for line in text.splitlines():
        asm_loc.is_directive(line)


@large
@given(motif=motifs(_FRAGMENTS))
@example(motif="@[")  # a call-site name ran over every following `@[`: 22 s on 100 KB
@example(motif="@[ k.py")
def test_large_hostile_text_finishes(motif):
    text = repeated(motif)
    line = text.replace("\n", " ")
    with within():
        _check(asm_loc.parse_ptx(text))
        _check(asm_loc.parse_amdgcn(text))
        _check(asm_loc.parse_ptx(f'.file 1 "/d/k.py"\n.loc 1 1 0 // {line}\nadd.s32 %r1;'))
        asm_loc.is_directive(line)


def test_kept_line_numbers_name_each_kept_line_in_the_original():
    ptx = (
        "\t.loc 1 21 16\n"
        "\t// begin inline asm\n"
        "\t.loc 1 21 16\n"
        "\tld.global.v4.b32 { %r1, %r2, %r3, %r4 }, [ %rd1 + 0 ];\n"
        "\t.loc 1 22 16\n"
        "\t// end inline asm\n"
        "\tadd.f32 %f3, %f1, %f2;\n"
    )
    kept = asm_loc.without_inline_asm_locs(ptx).splitlines()
    numbers = asm_loc.kept_line_numbers(ptx)
    assert numbers == [1, 2, 4, 6, 7]
    assert kept == [ptx.splitlines()[n - 1] for n in numbers]


# --- non-ASCII file names (issue 27, item 5) ---------------------------------------------------

_names = st.lists(
    st.text(st.characters(blacklist_characters='/"\n\r\x00', blacklist_categories=("Cs",)), min_size=1, max_size=6),
    min_size=1,
    max_size=4,
).map(lambda parts: "/" + "/".join(parts) + ".py")


def _escaped(name: str, byte: str) -> str:
    """The name as LLVM writes it: a backslash doubled, each byte of a non-ASCII character as `byte`."""
    return "".join(
        "\\\\" if c == "\\" else c if c.isascii() else "".join(byte.format(b) for b in c.encode()) for c in name
    )


def _octal(name: str) -> str:
    return _escaped(name, "\\{:03o}")


def _nvdisasm(name: str) -> str:
    """nvdisasm's spelling: the octal escapes, the last one of the file's own name behind a `/`."""
    folder, _, base = _octal(name).rpartition("/")
    head, sep, tail = base.rpartition("\\")
    return f"{folder}/{head}/{tail}" if sep and base.count("\\") > 1 else f"{folder}/{base}"


@given(_names)
@example("/a\\303/k\\001\u00e9.py")  # CI: a backslash before digits was read as the start of a byte
def test_escaped_file_names_read_back_as_written(name):
    from tritonscope.parsers.asm_loc import ascii_only, unescaped_hex, unescaped_name

    assert unescaped_name(_octal(name)) == name
    assert unescaped_hex(_escaped(name, "\\{:02X}")) == name
    assert ascii_only(f".loc 1 8 0 // {name}:8:0\n").isascii()
    if not name.rpartition("/")[2].isascii() and "\\" not in name:
        assert unescaped_name(_nvdisasm(name)) == name


def test_a_folder_named_by_digits_is_not_a_byte():
    from tritonscope.parsers.asm_loc import unescaped_name

    assert unescaped_name("/a/200/caf\\303\\251/k.py") == "/a/200/café/k.py"
    assert unescaped_name("/x\\303\\251/201/k.py") == "/xé/201/k.py"
