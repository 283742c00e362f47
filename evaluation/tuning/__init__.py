"""Profile and relevance tuning: fitting, checking and applying profiles and the gate model."""
