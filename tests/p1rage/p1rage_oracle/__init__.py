"""Slow, literal reference implementation of the P1-RAGE protocol.

This package restates sections A and B of shared/spec/p1rage-protocol.md as
plainly as possible, one round at a time.  It exists so that the vectorised
engine in ``linbandits`` can be checked statistically against something that
is easy to read; for that reason nothing here imports ``linbandits``.
"""
