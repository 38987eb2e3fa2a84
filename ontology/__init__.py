"""The ontology's Turtle modules are package data; :mod:`reprokg.ontology.reference` writes
their reference documentation (docs/ontology.md)."""
