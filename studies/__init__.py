"""Published reproducibility studies recomputed from the graph, exactly as published.

Each study is a named, registered analysis (:mod:`reprokg.studies.registry`): its
citation, the authors' code it follows, the SPARQL it reads (``studies/sparql/*.rq`` and
the survey's and named queries it shares), and its methods — ``published`` (the default:
the authors' own analysis choices, stated one by one) and documented alternatives such as
``corrected``. A study module reads its rows from the store (``sparql.rows``), computes
with pure functions on pandas frames, renders a table and charts, and its result is
written back as a ``study-result`` document through ``ingest.write_result``
(:mod:`reprokg.studies.study_result`).

Importing this package imports nothing heavy; the registry names each study's module,
which is imported when the study runs.
"""
