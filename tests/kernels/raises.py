"""Raises while being imported."""

import math

x = math.pi / 0
