"""The model every layer shares: namespaces, identifiers, the Document, errors, settings.

Imports nothing else of reprokg (tests/test_architecture.py), so every other package can
build on it without cycles.
"""
