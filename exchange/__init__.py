"""Exchange with the tools researchers already use: RO-Crates of anything reprokg computes or
holds (:mod:`.crate`, :mod:`.views`), citable frozen comparisons with DataCite metadata and
tables (:mod:`.freeze`, :mod:`.datacite`, :mod:`.tables`). The importers (RO-Crate, MLflow,
OpenML, tirex-tracker) are loaders (``reprokg.loaders``). See docs/exchange.md.
"""
