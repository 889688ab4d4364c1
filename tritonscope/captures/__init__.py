"""The capture format: a capture folder (`trace -o DIR`) or a Triton cache folder, read and
written in one place, below app/: its entries, its logs, what they recorded, a kernel read back
or rebuilt from its record, and the environment a traced program is run with."""
