"""One parser per foreign text format that tritonscope reads (cuobjdump, AMDGCN, ...)."""
