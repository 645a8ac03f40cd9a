"""Benchmarks of Agent Brain Lab: code-search quality, indexing and query speed, peers.

Run ``python -m benchmarks --quick`` (CI size) or ``python -m benchmarks --full``.
"""
