"""Generated ir_metadata run headers (YAML) for the ingest benchmark.

Each header is the ir_metadata website's assembled example (MIT, irgroup/ir_metadata,
``website_checklist_examples_assembled.yaml``; a copy is embedded here so the benchmark
runs anywhere) with per-run values varied: tag, commit, BM25 parameters, venue year, team,
library versions. Deterministic for a given index.
"""

from __future__ import annotations

import random

TEMPLATE = """\
schema-version: 0.1
run-version: 1.0
tag: {tag}
platform:
  hardware:
    cpu:
      model: Intel(R) Xeon(R) Gold 6144 CPU @ 3.50GHz
      architecture: x86_64
      operation mode: 64-bit
      number of cores: {cores}
    gpu:
      model: NVIDIA RTX A6000
      memory: 48 GB
      number of cores: 10752
    ram: {ram} GB
  operating system:
    kernel: GNU/Linux 4.15.0-166-generic
    distribution: Ubuntu 18.04.5 LTS
  software:
    libraries:
      python:
      - numpy==1.{np}.4
      - scikit-learn==0.20.1
      - scipy==1.1.0
      java:
      - lucene==7.{lucene}
    retrieval toolkit:
    - anserini==0.3.{anserini}
research goal:
  venue:
    name: ECIR
    year: {year}
  publication:
    doi: https://doi.org/10.1007/978-3-030-15712-8_26
  evaluation:
    reported measures:
    - map
    - P_10
    baseline:
    - WCrobust04
implementation:
  executable:
    cmd: python generate_runs.py --config ccrf.{i}.json
  source:
    lang:
    - Java
    - Python
    repository: https://github.com/castorini/anserini
    commit: {commit}
method:
  automatic: true
  indexing:
    tokenizer: org.apache.lucene.analysis.en.StandardTokenizer
    stemmer: org.apache.lucene.analysis.en.PorterStemFilter
  retrieval:
  - name: bm25
    method: org.apache.lucene.search.similarities.Similarity.BM25Similarity
    b: {b}
    k1: {k1}
  - name: reranker
    method: sklearn.linear_model.LogisticRegression
    reranks: bm25
actor:
  name: Jimmy Lin
  orcid: 0000-0002-0661-7189
  team: team{team}
  role: experimenter
data:
  test collection:
    name: TREC Common Core 2017
    source: https://trec.nist.gov/data/core2017.html
"""


def header(i: int) -> bytes:
    """The YAML text of generated header number ``i``."""
    r = random.Random(i)
    return TEMPLATE.format(
        i=i,
        tag=f"gen-run-{i:05d}",
        cores=r.choice([8, 16, 32]),
        ram=r.choice([32, 64, 128]),
        np=r.randint(15, 26),
        lucene=r.randint(0, 9),
        anserini=r.randint(0, 9),
        year=r.randint(2015, 2024),
        commit=f"{r.getrandbits(28):07x}",
        b=round(r.uniform(0.2, 0.9), 2),
        k1=round(r.uniform(0.6, 1.6), 2),
        team=r.randint(1, 40),
    ).encode("utf-8")
