"""Session capture: one reader per agent format, all producing ``Transcript``."""
