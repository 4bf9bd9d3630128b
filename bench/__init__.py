"""Benchmarks: each prints ratios against an in-run baseline and ends with one JSON line."""
