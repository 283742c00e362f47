"""``python -m evaluation.bench`` (``make bench``): runs ``evaluation.bench.speed``."""

from evaluation.bench.speed import main

main()
