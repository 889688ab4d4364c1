"""Sample Triton kernels bundled with tritonscope (`tritonscope samples` lists them).

Each module is a small, commented kernel plus the hooks documented in
docs/kernel-files.md: `tritonscope_defaults`, `make_inputs`, `launch` and
`reference`. torch is imported inside the hooks only, so that inspecting a
sample never loads it.
"""
