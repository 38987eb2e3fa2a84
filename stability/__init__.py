"""The stability analysis of seed 003: linear mixed models over seeded, repeated runs read
from the graph, with the numbers lme4 + lmerTest give (``lmm``), the paper's tests
(``analysis``), its chart (``chart``), the SPARQL that reads the observations
(``observations``) and the analysis written back as a document (``document``)."""
