"""The code-replicability survey analysis (seed 001): statistics recomputed from the graph,
their charts and the SPARQL that reads them."""
