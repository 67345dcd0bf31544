"""The ``kgmem`` command line (:mod:`kgmem.cli.main`), its Neo4j bulk import and the demo."""
