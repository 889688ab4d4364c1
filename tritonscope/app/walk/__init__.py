"""The walk every command goes through: a request loaded, specialized and prepared (or read from a
capture), compiled here or in workers, under this Triton release or another."""
