"""SPARQL without HTTP: the query guard, result formats (the one ``Accept`` parser), the
kill-able query runner and the named queries. The service mounts these; the CLI uses them
directly."""
