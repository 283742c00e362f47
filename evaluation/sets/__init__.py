"""Labelled sets and benchmarks measured against the shipped code."""
