"""One-off surveys (embedders, rerankers, search legs, backends), kept apart from shipped code."""
