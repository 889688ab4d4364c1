"""tritonscope: see what the Triton compiler does to a GPU kernel."""

__version__ = "0.1.0"
