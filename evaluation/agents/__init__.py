"""The real agents (Hermes Agent, Pi), installed on demand, writing sessions as they do."""
