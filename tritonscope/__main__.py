"""`python -m tritonscope`: the same command line as `tritonscope`."""

from .launch import main

main()
