"""``reprokg ontology check``: load the ontology with owlready2 and reason over it (HermiT)."""

from __future__ import annotations

import argparse
from pathlib import Path

from reprokg.cli.base import Command


def register(command: Command) -> None:
    p = command(
        "ontology",
        "check the ontology: owlready2 loads it, HermiT (Java) finds inconsistency and "
        "unsatisfiable classes",
        _ontology,
    )
    p.add_argument("action", choices=["check"], help="what to do with the ontology")
    p.add_argument(
        "--extra",
        nargs="*",
        default=[],
        type=Path,
        metavar="TTL",
        help="your own Turtle modules, checked merged with reprokg's ontology",
    )


def _ontology(args: argparse.Namespace) -> int:
    from reprokg.ontology.check import check_ontology

    result = check_ontology(args.extra)
    merged = f" (reprokg's merged with {len(args.extra)} file(s))" if args.extra else ""
    print(
        f"ontology{merged}: {result.classes} classes, {result.properties} properties "
        "loaded by owlready2"
    )
    if not result.consistent:
        print("HermiT: the ontology is INCONSISTENT")
        return 1
    if result.unsatisfiable:
        print(f"HermiT: {len(result.unsatisfiable)} unsatisfiable classes:")
        for iri in result.unsatisfiable:
            print(f"  {iri}")
        return 1
    print("HermiT: consistent, no unsatisfiable class")
    return 0
