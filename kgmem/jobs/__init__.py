"""Jobs of a memory's upkeep: retention, scheduled consolidation, the periodic runner of ``kgmem serve`` and ``kgmem check``."""
