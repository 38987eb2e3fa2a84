"""loaders."""
