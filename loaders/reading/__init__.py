"""The source-reading machinery every loader shares (bytes in, limits, YAML scanning,
archives, the loader contract and its summaries); no format of its own."""
