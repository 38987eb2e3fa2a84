"""Validation of documents before anything touches the store: SHACL shapes plus the checks
SHACL cannot express, reported in one form (:mod:`reprokg.validation.report`)."""
