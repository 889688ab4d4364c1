"""Pygments lexers for the stages Pygments cannot highlight: MLIR (TTIR, TTGIR), NVIDIA SASS, AMDGCN.

Registered under the `pygments.lexers` entry point, so `pygmentize -l ttgir` works too.
Every lexer ends with catch-all rules: foreign text never produces Error tokens.
"""

from __future__ import annotations

from pygments.lexer import RegexLexer, bygroups, include, words
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Text, Whitespace

# Token types of our own, so that themes (and tests) can tell these apart.
Location = Comment.Location  # loc(...) in MLIR, .loc in AMDGCN, nvdisasm's //## File lines
Layout = Name.Layout  # #blocked, #mma, #shared ... attribute aliases and #ttg.* layouts
Op = Name.Function  # tt.load, arith.addi, LDG.E.128, v_add_f32
Type = Keyword.Type  # tensor<...>, !tt.ptr<f32>, f32, i32
Register = Name.Variable  # R12, UR4, P0 / v3, s[0:1]


class MLIRLexer(RegexLexer):
    """MLIR as Triton prints it: TTIR, TTGIR and the LLVM dialect."""

    name = "MLIR"
    aliases = ["mlir"]
    filenames = ["*.mlir"]

    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"//.*?$", Comment.Single),
            (r"loc\(", Location, "location"),
            (r"#loc\d*", Location),
            (r"#[A-Za-z_][\w.$]*", Layout),
            (r"%[\w.$#-]+(:\d+)?", Name.Variable),
            (r"\^[\w.$-]+", Name.Label),
            (r"@[\w.$-]+|@\"[^\"]*\"", Name.Constant),
            (r'"[a-z_]\w*\.[\w.]+"(?=\s*\()', Op),  # generic form: "tt.reduce"(...)
            (r'"(\\\\|\\"|[^"])*"', String.Double),
            (r"!tt\.[\w.]+|![\w.]+", Type),
            (r"\b(tensor|memref|vector|ptr|tuple|none|index)\b", Type),
            (r"\b([iu]\d+|f\d+|bf16|tf32|f8E\w+)\b", Type),
            (r"\b(\d+x)+(?=[a-zA-Z!])", Number.Integer),  # tensor shapes: 128x64xf16
            (r"\b[a-z_][\w]*(\.[\w]+)+(?=\s*=)", Name.Attribute),  # tt.divisibility = 16
            (r"\b[A-Za-z_][\w]*(?=\s*=)", Name.Attribute),  # sizePerThread = [1, 4]
            (r"\b[a-z_]\w*(\.[\w]+)+", Op),  # tt.load, arith.addi, scf.for
            (
                r"\b(module|attributes|func|public|private|to|step|iter_args|dense|true|false|"
                r"loc|unknown|fused|callsite|at|nsw|nuw|eq|ne|slt|sle|sgt|sge|ult|ule|ugt|uge|"
                r"olt|ole|ogt|oge|oeq|one)\b",
                Keyword,
            ),
            (r"0x[0-9a-fA-F]+", Number.Hex),
            (r"-?\d+\.\d*([eE][-+]?\d+)?|-?\d+[eE][-+]?\d+", Number.Float),
            (r"-?\d+", Number.Integer),
            (r"->|=|:|\*", Operator),
            (r"[()\[\]{}<>,.]", Punctuation),
            (r"\w+", Name),
            (r".", Text),
        ],
        "location": [
            (r"\(", Location, "#push"),
            (r"\)", Location, "#pop"),
            (r'"(\\\\|\\"|[^"])*"', Location),
            (r"[^()\"]+", Location),
        ],
    }


class TTIRLexer(MLIRLexer):
    """Triton IR (`.ttir`), the MLIR that Triton's front end emits."""

    name = "Triton IR"
    aliases = ["ttir"]
    filenames = ["*.ttir"]


class TTGIRLexer(MLIRLexer):
    """Triton GPU IR (`.ttgir`): TTIR with layouts assigned."""

    name = "Triton GPU IR"
    aliases = ["ttgir"]
    filenames = ["*.ttgir"]


class SASSLexer(RegexLexer):
    """NVIDIA SASS as nvdisasm and cuobjdump print it."""

    name = "NVIDIA SASS"
    aliases = ["nvsass", "nvidia-sass"]
    filenames = ["*.sass"]

    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"//##.*?$", Location),  # nvdisasm -g: //## File "k.py", line 7
            (r"//.*?$", Comment.Single),
            (r"/\*[0-9a-fA-F]{4,}\*/", Comment.Special),  # instruction address
            (r"/\*.*?\*/", Comment.Multiline),
            (r"\.[A-Za-z_][\w.]*:", Name.Label),
            (r"\.[a-z_][\w]*", Keyword.Declaration),  # .section, .align ...
            (r"@!?U?P(T|\d+)", Keyword.Pseudo),  # predicate guard
            (r"[A-Za-z_][\w.]*:", Name.Label),
            (r"\b[A-Z][A-Z0-9_]*(\.[A-Z0-9_]+)*(?=\s|;|$)", Op, "operands"),
            (r'"[^"]*"', String),
            (r"@\"[^\"]*\"", String),
            include("common"),
        ],
        "operands": [
            (r";", Punctuation, "#pop"),
            (r"\n", Whitespace, "#pop"),
            (r"[ \t]+", Whitespace),
            (r"\b(c|cx)(\[)(0x[0-9a-fA-F]+|\w+)(\])", bygroups(Name.Constant, Punctuation, Number.Hex, Punctuation)),
            (r"\bdesc\b", Name.Builtin),
            (r"\b(U?R\d+|U?RZ|U?P\d+|U?PT|SR_[A-Z_.0-9]+|SRZ|B\d+)(\.(reuse|64|H[01]|B\d|X\d+))*\b", Register),
            (r"`\([^)]*\)", Name.Label),
            include("common"),
        ],
        "common": [
            (r"-?0x[0-9a-fA-F]+", Number.Hex),
            (r"-?\d+\.\d+(e[-+]?\d+)?|-?(INF|NAN|QNAN)\b", Number.Float),
            (r"-?\d+", Number.Integer),
            (r"[\[\](){},|~!+\-*]", Punctuation),
            (r"\w+", Name),
            (r".", Text),
        ],
    }


class AMDGCNLexer(RegexLexer):
    """AMDGCN assembly as the AMDGPU LLVM backend prints it."""

    name = "AMDGCN"
    aliases = ["amdgcn"]
    filenames = ["*.amdgcn", "*.s"]

    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"\.loc\b.*?(?=;|$)", Location),
            (r";.*?$", Comment.Single),
            (r"//.*?$", Comment.Single),
            (r"^[\w.$]+:", Name.Label),
            (r"\.[A-Za-z_][\w.]*:?", Keyword.Declaration),  # .amdhsa_*, .section, metadata keys
            (r"\b[sv]_[a-z0-9_]+|\b(global|buffer|ds|flat|scratch|image|exp)_[a-z0-9_]+", Op),
            (r"\b([vsa]\[\d+:\d+\]|[vsa]\d+|vcc(_lo|_hi)?|exec(_lo|_hi)?|m0|scc|vccz|execz|off|null)\b", Register),
            (r'"(\\\\|\\"|[^"])*"', String),
            (r"0x[0-9a-fA-F]+", Number.Hex),
            (r"-?\d+\.\d+([eE][-+]?\d+)?", Number.Float),
            (r"-?\d+", Number.Integer),
            (r"[\[\](){},:|&+\-*/<>=!]", Punctuation),
            (r"\w+", Name),
            (r".", Text),
        ],
    }


LLVM_WORDS = (
    # instructions
    "add", "fadd", "sub", "fsub", "mul", "fmul", "udiv", "sdiv", "fdiv", "urem", "srem", "frem", "fneg",
    "shl", "lshr", "ashr", "and", "or", "xor", "icmp", "fcmp", "phi", "select", "call", "tail", "musttail",
    "br", "switch", "ret", "unreachable", "load", "store", "alloca", "getelementptr", "inbounds", "fence",
    "atomicrmw", "cmpxchg", "extractelement", "insertelement", "shufflevector", "extractvalue",
    "insertvalue", "trunc", "zext", "sext", "fptrunc", "fpext", "fptoui", "fptosi", "uitofp", "sitofp",
    "ptrtoint", "inttoptr", "bitcast", "addrspacecast", "freeze", "asm", "sideeffect",
    # definitions and flags
    "define", "declare", "attributes", "global", "constant", "private", "internal", "external",
    "dso_local", "local_unnamed_addr", "unnamed_addr", "addrspace", "align", "section", "target",
    "datalayout", "triple", "source_filename", "nuw", "nsw", "exact", "nnan", "ninf", "nsz", "arcp",
    "contract", "afn", "reassoc", "fast", "volatile", "atomic", "syncscope", "seq_cst", "acquire",
    "release", "acq_rel", "monotonic", "to", "x", "splat", "eq", "ne", "ugt", "uge", "ult", "ule", "sgt",
    "sge", "slt", "sle", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "une", "uno",
    "true", "false", "null", "undef", "poison", "zeroinitializer", "noundef", "nonnull", "immarg",
)  # fmt: skip


class LLVMIRLexer(RegexLexer):
    """LLVM IR as Triton prints it, in few tokens: runs of spaces and punctuation are one token and
    only the words worth a colour are listed, so that the terminal draws thousands of lines quickly.
    Pygments' own `llvm` lexer knows every keyword of LLVM and is three times slower."""

    name = "LLVM IR"
    aliases = ["llvm-ir"]
    filenames = ["*.ll", "*.llir"]

    tokens = {
        "root": [
            (r"[ \t,()\[\]{}<>=*|]+", Punctuation),
            (r"\n", Whitespace),
            (r'%[-\w.$]+|%"[^"\n]*"', Name.Variable),
            (r'@[-\w.$]+|@"[^"\n]*"', Name.Variable.Global),
            (r"^[-\w.$]+:", Name.Label),
            (r";.*", Comment.Single),
            (r'c?"[^"\n]*"', String),
            (r"0x[0-9A-Fa-f]+|-?\d+(\.\d+)?([eE][-+]?\d+)?", Number),
            (r'![-\w.]+|!"[^"\n]*"|#\d+', Name.Attribute),
            (r"(i\d+|half|bfloat|float|double|fp128|ptr|void|label|metadata|token)\b", Type),
            (words(LLVM_WORDS, suffix=r"\b"), Keyword),
            (r"[A-Za-z_$.][-\w$.]*", Name),
            (r".", Text),
        ],
    }


def lexer_for(alias: str):
    """A lexer instance for a stage's lexer alias (ours or Pygments' own)."""
    ours = {cls.aliases[0]: cls for cls in (TTIRLexer, TTGIRLexer, SASSLexer, AMDGCNLexer, MLIRLexer, LLVMIRLexer)}
    ours["llvm"] = LLVMIRLexer  # the LLVM IR stage
    if alias in ours:
        return ours[alias]()
    from pygments.lexers import get_lexer_by_name

    return get_lexer_by_name(alias)
