"""Captures (`trace -o DIR`) and Triton cache folders: made, read, compared and checked."""
