"""Onboarding: the memories each agent already keeps, read once into the write path."""
