"""The SHACL engine: shapes compiled to SPARQL, evaluated by pyoxigraph.

``compiler`` (shapes graph to a compiled plan), ``queries`` (the SPARQL text it writes
and reads: merged queries, screens, SHACL-SPARQL checks), ``runtime`` (documents loaded
into a store, the plan run, results decoded), ``terms`` (literals stored losslessly).
"""
