"""The simplification suite (003): PPDB rules, the systems that need no training, their scoring."""
