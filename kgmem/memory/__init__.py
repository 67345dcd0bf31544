"""The facade (:class:`kgmem.memory.facade.Memory`) and the satellites it hands its writes and reads to: merges, erase, undo, named reads, entity summaries and their consolidation."""
