"""Speed and scale benchmarks of the shipped code (``python -m evaluation.bench``)."""
