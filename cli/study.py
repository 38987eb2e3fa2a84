"""``reprokg study``: published studies recomputed from the graph (``study list``, ``study NAME``).

``reprokg survey-stats`` (cli/survey.py) is ``study siggraph2020`` under its old name.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from reprokg.cli.base import Command, add_store_option, saved_id, store_location, tell

if TYPE_CHECKING:
    from reprokg.studies.plugin import OptionValue


def register(command: Command) -> None:
    p = command(
        "study",
        "recompute a published study from the graph (reprokg study list: the studies)",
        _study,
    )
    p.add_argument(
        "name",
        metavar="NAME",
        help="list, or a study: siggraph2020, gk2018, pwc-checklist-2019, audits, grsi-stamps",
    )
    add_method_options(p)
    p.add_argument(
        "--param",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="a study option (reprokg study list shows each study's), e.g. dataset=both, "
        "small_max=0.03; repeatable",
    )


def add_method_options(p: argparse.ArgumentParser) -> None:
    """The options ``study NAME`` and its alias ``survey-stats`` share."""
    add_store_option(p)
    p.add_argument(
        "--method",
        default=None,
        help="published (the default: the authors' own analysis choices) or a documented "
        "alternative such as corrected",
    )
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.add_argument("--save", action="store_true", help="write the result back as a document")
    p.add_argument("--charts", metavar="DIR", help="also write the charts (SVG, PNG) here")


def _study(args: argparse.Namespace) -> int:
    from reprokg.core.errors import UsageError

    if args.name == "list":
        return _list(args.format)
    options: dict[str, OptionValue] = {}
    for item in args.param:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise UsageError(f"--param expects KEY=VALUE, got {item!r}")
        options[key.strip()] = value.strip()
    return recompute_study(args, args.name, options)


def _list(fmt: str) -> int:
    from reprokg.studies.registry import REGISTRY

    if fmt == "json":
        print(json.dumps([s.to_dict() for s in REGISTRY.values()], indent=2))
        return 0
    for s in REGISTRY.values():
        methods = ", ".join(m.name for m in s.methods)
        print(f"{s.name:<20} {s.title}")
        print(f"{'':<20} methods: {methods} (default {s.default_method}); data: {s.data}")
        if s.options:
            opts = ", ".join(f"{k}={o.default}" for k, o in s.options.items())
            print(f"{'':<20} options: {opts}")
    return 0


def recompute_study(args: argparse.Namespace, name: str, options: dict[str, OptionValue]) -> int:
    """Read, compute, print, draw and save one study (``study NAME`` and ``survey-stats``)."""
    from reprokg.cli.base import open_cli_store
    from reprokg.studies.registry import get

    study = get(name)
    method = study.method(args.method).name
    options = study.coerce(options)
    impl = study.impl()
    with open_cli_store(args.store, read_only=not args.save, create=args.save) as store:
        inputs = study.read(store, **options)
        if impl.is_empty(inputs):
            print(f"no data of study {name} in the store ({study.data}); load it first")
            return 1
        result = study.analyze(inputs, method, **options)
        if args.format == "json":
            print(json.dumps(result.to_json(), indent=2, default=str))
        else:
            print(impl.format_table(result))
        if args.charts:
            out = Path(args.charts)
            out.mkdir(parents=True, exist_ok=True)
            written = []
            for fmt in ("svg", "png"):
                for stem, data in impl.charts(result, inputs, fmt).items():
                    (out / f"{stem}.{fmt}").write_bytes(data)
                    written.append(f"{stem}.{fmt}")
            tell(f"wrote {len(written)} chart(s) to {out}: {', '.join(written) or 'none'}")
        if args.save:
            from reprokg.ingest import write_result

            for part in result.parts():
                outcome = write_result(store, part)
                iri, status = outcome.iri, outcome.status
                label = ", ".join(f"{k}={v}" for k, v in study.explicit(part.options).items())
                tell(
                    f"saved {name} ({method}{', ' + label if label else ''}) as "
                    f"{saved_id(store, iri)} ({iri}, {status}) "
                    f"in the store {store_location(args.store)}"
                )
    return 0
