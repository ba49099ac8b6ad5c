"""Repeatable speed and size measurements: `make bench` (python -m benchmarks.run).

Each figure is the median of repeated runs with its range (min..max); ratios
are taken against a baseline measured in the same run. See docs/performance.md.
"""
