"""paragen: regenerate the automatic-metric tables of four paraphrase-generation papers."""

__version__ = "0.1.0"
