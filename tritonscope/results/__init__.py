"""What each command returns: frozen results that renderers turn into text, JSON, HTML or files.

One module per command family. Every result derives from `base.Result`: it names its JSON
document's `kind`, and its `exit_status` (core/status.py) is success unless the result can fail
and says so. Results sit between analysis/ and app/ + render/: app/ builds them, render/ draws
them (render/registry.py), and nothing here imports either.
"""
