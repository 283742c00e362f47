"""The evaluation environment and its metrics: probes, runs, judges, reports."""
