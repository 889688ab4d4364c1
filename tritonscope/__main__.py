"""`python -m tritonscope`: the same command line as `tritonscope`."""

from .cli import main

main()
