"""A kernel file whose import crashes the interpreter (a read of address 0 through ctypes, as a
broken C extension would): the command must say where, not end without a word."""

import ctypes

ctypes.string_at(0)
