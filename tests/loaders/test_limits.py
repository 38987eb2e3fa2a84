"""The input limits (loaders/reading/limits.py) against the real parsers: exact on generated
documents, never below libyaml on adversarial text, silent on every real file, located on
the crash inputs, linear in time. Reference depths come from the parsers' event streams:
libyaml's event parser keeps its state on the heap (100,000 levels of events are fine);
only PyYAML's C *composer* recurses, so the events say exactly how deep the composer would
go before the parser gives up, and the pre-scan must never report less.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from reprokg.core.errors import InputTooLarge, LimitExceeded
from reprokg.loaders.reading.limits import (
    DEFAULT_LIMITS,
    InputLimits,
    check_json,
    check_lines,
    json_stats,
)
from reprokg.loaders.reading.yaml_scan import check_yaml, yaml_stats
from tests.conftest import REPO, SHARED_DATA, need

_OPEN = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
_CLOSE = (yaml.MappingEndEvent, yaml.SequenceEndEvent)


def yaml_event_depth(text: str, *, pure: bool = False) -> tuple[int, int, bool]:
    """(deepest nesting, nodes, parsed without error) from libyaml's (or PyYAML's) events."""
    loader = yaml.SafeLoader if pure else yaml.CSafeLoader
    depth = best = nodes = 0
    ok = True
    try:
        for ev in yaml.parse(text, Loader=loader):
            if isinstance(ev, _OPEN):
                depth += 1
                nodes += 1
                best = max(best, depth)
            elif isinstance(ev, _CLOSE):
                depth -= 1
            elif isinstance(ev, (yaml.ScalarEvent, yaml.AliasEvent)):
                nodes += 1
    except yaml.YAMLError:
        ok = False
    return best, nodes, ok


def value_depth(value: object) -> int:
    """Nesting of a parsed JSON/YAML value, iteratively (dicts and lists count one each)."""
    best = 0
    stack = [(value, 0)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            best = max(best, d + 1)
            stack.extend((x, d + 1) for x in v.values())
            stack.extend((k, d + 1) for k in v if isinstance(k, tuple))
        elif isinstance(v, list | tuple):
            best = max(best, d + 1)
            stack.extend((x, d + 1) for x in v)
    return best


def json_depth(text: str) -> int | None:
    try:
        return value_depth(json.loads(text))
    except (ValueError, RecursionError):
        return None


DATA = SHARED_DATA
EXAMPLES = REPO / "examples"
SLOW = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ----------------------------------------------------------------- the crash inputs


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ("[" * 100_000 + "]" * 100_000, 1, 65),
        ("- " * 100_000 + "1\n", 1, 129),
        ("a: " + "{x: " * 3000 + "1" + "}" * 3000 + "\n", 1, 256),
        ("".join(" " * i + "x:\n" for i in range(2000)) + " " * 2000 + "1\n", 65, 65),
        ("".join("  " * i + "-\n" for i in range(200)), 65, 129),
        ("a:\n" + "- " * 70 + "x\n", 2, 127),  # an indentless sequence counts
    ],
)
def test_crash_inputs_are_refused_with_a_location(text: str, line: int, column: int) -> None:
    with pytest.raises(LimitExceeded) as err:
        check_yaml(text, "x.yaml")
    exc = err.value
    assert (exc.line, exc.column, exc.limit, exc.http_status, exc.exit_code) == (
        line,
        column,
        "depth",
        400,
        1,
    )
    assert exc.message == f"nesting deeper than 64 at line {line}, column {column}"
    assert str(exc).startswith(f"x.yaml:{line}:{column}")


# found by fuzz/soup_fuzz.py: libyaml 0.2.5's parser swallows a ``]`` right after ``[?``
# (keeping the sequence open) and a KEY resolved after that wraps an outer entry
FUZZ_REGRESSIONS = [
    "[" + "[? ]: " * 100 + "x]",
    "[? ]: [",
    "[[? ]: [? ]: x]",
    "[a: - }a:[: [[a: ",
    " ##|- - !t \x85[? ]: [?     !a: ",
    "\ufeff\ufeff- ",
    "[? ]",
    "{? }: [? ]: x",
    "[a: , b]: c",  # a later key in the same flow level must not forget the pair
    "[a: , !!str ]:\n: #\u2028",
    "'''': [{a: {? }[a:b]- ---:aa: ]: {a: ?]a|+1?!<x> ",
]


@pytest.mark.parametrize("text", FUZZ_REGRESSIONS)
def test_fuzz_regressions_never_below_libyaml(text: str) -> None:
    assert yaml_stats(text).depth >= yaml_event_depth(text)[0]


@pytest.mark.parametrize("length", [1023, 1024, 1025])
def test_a_simple_key_spans_at_most_1024_characters(length: int) -> None:
    # libyaml 0.2.5 (stale_simple_keys): ``:`` resolves a key that started at most 1024
    # characters before it; the nesting inside such a key counts one level deeper. At
    # 1,025 libyaml's events stop early (a syntax error), so only "never below" holds.
    text = "[[" + "x" * (length - 4) + "]]: v\n"  # the ``:`` sits ``length`` after the key
    events, _nodes, ok = yaml_event_depth(text)
    assert ok == (length <= 1024)
    if ok:
        assert yaml_stats(text).depth == events == 3
    else:
        assert yaml_stats(text).depth >= events


def test_swallowed_bracket_nesting_is_refused() -> None:
    text = "[" + "[? ]: " * 100_000 + "x]"  # segfaults yaml.compose(CSafeLoader)
    with pytest.raises(LimitExceeded) as err:
        check_yaml(text, "x.yaml", check_lines=False)
    assert err.value.limit == "depth"


def test_json_crash_input() -> None:
    with pytest.raises(LimitExceeded) as err:
        check_json("[" * 100_000 + "]" * 100_000, "x.json")
    assert (err.value.line, err.value.column, err.value.limit) == (1, 65, "depth")
    with pytest.raises(LimitExceeded):
        check_json('{"a":' * 3000 + "1" + "}" * 3000, "x.json")


def test_depth_limit_is_exact_at_the_boundary() -> None:
    limits = InputLimits(max_depth=10)
    check_yaml("[" * 10 + "]" * 10, "x", limits)
    check_json("[" * 10 + "]" * 10, "x", limits)
    with pytest.raises(LimitExceeded):
        check_yaml("[" * 11 + "]" * 11, "x", limits)
    with pytest.raises(LimitExceeded):
        check_json("[" * 11 + "]" * 11, "x", limits)


def test_line_offset_shifts_reported_lines() -> None:
    with pytest.raises(LimitExceeded) as err:
        check_yaml("a: " + "[" * 70, "run.txt", line_offset=41)
    assert err.value.line == 42


def test_aliases_and_anchors_are_counted() -> None:
    doc = "a: &x 1\n" + "".join(f"b{i}: *x\n" for i in range(101))
    with pytest.raises(LimitExceeded) as err:
        check_yaml(doc, "x.yaml")
    assert err.value.limit == "aliases" and err.value.line == 102
    check_yaml("a: '1,*'\nb: 1,*\nc: x*y\n", "x.yaml")  # '*' in scalars is no alias
    assert yaml_stats("a: [*x, *y]\nb: &z 1").aliases == 2


def test_line_and_field_limits() -> None:
    with pytest.raises(LimitExceeded) as err:
        check_lines("a b\n" + "x " * 40_000 + "\n", "run.txt", what="run line")
    assert (err.value.limit, err.value.line, err.value.http_status) == ("line length", 2, 413)
    assert isinstance(err.value, InputTooLarge)
    with pytest.raises(LimitExceeded) as err:
        check_lines("a,b\n" + "," * 2_000 + "\n", "x.csv", delimiter=",")
    assert (err.value.limit, err.value.line) == ("fields", 2)
    check_lines("301 Q0 doc 1 1.0 tag\n" * 10, "run.txt")


# ---------------------------------------------------- generated documents: exact depth

_TEXT = st.text(
    alphabet=st.sampled_from(list("ab -?:,[]{}#&*!|>'\"%@`\\\n\t") + ["é", "\u2028"]),
    max_size=12,
)
_SCALAR = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), _TEXT)
_VALUE = st.recursive(
    _SCALAR,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_TEXT, inner, max_size=4)),
    max_leaves=40,
)


@pytest.mark.slow
@SLOW
@given(
    value=_VALUE,
    flow=st.sampled_from([False, True, None]),
    indent=st.integers(2, 6),
    width=st.sampled_from([8, 20, 80, 10_000]),
    canonical=st.booleans(),
    explicit_start=st.booleans(),
)
def test_depth_equals_the_parsers_on_dumped_documents(
    value: object,
    flow: bool | None,
    indent: int,
    width: int,
    canonical: bool,
    explicit_start: bool,
) -> None:
    text = yaml.safe_dump(
        value,
        default_flow_style=flow,
        indent=indent,
        width=width,
        canonical=canonical,
        explicit_start=explicit_start,
        allow_unicode=True,
    )
    events, _nodes, ok = yaml_event_depth(text)
    assert ok
    assert events == value_depth(yaml.load(text, Loader=yaml.CSafeLoader))
    stats = yaml_stats(text)
    assert stats.depth == events, text
    assert stats.stopped_at is None
    assert stats.nodes >= _nodes


def _block(value: object, indent: int, col: int, compact: bool) -> list[str]:
    """Block YAML by hand: compact ``- - x`` and ``- k: v`` forms, indentless sequences."""
    pad = " " * col
    if isinstance(value, dict) and value:
        out = []
        for k, v in value.items():
            if isinstance(v, (dict, list)) and v:
                out.append(f"{pad}{k}:")
                inner = col if (isinstance(v, list) and compact) else col + indent
                out += _block(v, indent, inner, compact)
            else:
                out.append(f"{pad}{k}: {json.dumps(v) if v in ({}, []) else v}")
        return out
    if isinstance(value, list) and value:
        out = []
        for v in value:
            if isinstance(v, (dict, list)) and v and compact:
                sub = _block(v, indent, col + 2, compact)
                out.append(f"{pad}- " + sub[0][col + 2 :])
                out += sub[1:]
            elif isinstance(v, (dict, list)) and v:
                out.append(f"{pad}-")
                out += _block(v, indent, col + indent, compact)
            else:
                out.append(f"{pad}- {json.dumps(v) if v in ({}, []) else v}")
        return out
    return [f"{pad}{json.dumps(value) if value in ({}, []) else value}"]


_PLAIN_KEY = st.from_regex(r"[a-z][a-z0-9_]{0,5}", fullmatch=True)
_BLOCK_VALUE = st.recursive(
    st.sampled_from(["x", "1", "a b", "'q [ '", '"d { "', "[]", "{}"]),
    lambda inner: st.one_of(
        st.lists(inner, min_size=1, max_size=3),
        st.dictionaries(_PLAIN_KEY, inner, min_size=1, max_size=3),
    ),
    max_leaves=30,
)


@pytest.mark.slow
@SLOW
@given(value=_BLOCK_VALUE, indent=st.integers(1, 4), compact=st.booleans())
def test_depth_equals_the_parsers_on_compact_block_forms(
    value: object, indent: int, compact: bool
) -> None:
    text = "\n".join(_block(value, indent, 0, compact)) + "\n"
    events, _nodes, ok = yaml_event_depth(text)
    assume(ok)
    assert yaml_stats(text).depth == events, text


# ------------------------------------------------- adversarial text: never below libyaml

_PIECES = st.sampled_from(
    [
        "- ",
        "-",
        "? ",
        "?",
        ": ",
        ":",
        "[",
        "]",
        "{",
        "}",
        ",",
        "'",
        '"',
        "\\",
        "#",
        " #",
        "|",
        ">",
        "|2",
        ">-",
        "&a ",
        "*a",
        "!t ",
        "!!str ",
        "!<x> ",
        "%YAML 1.1",
        "---",
        "...",
        "\n",
        "\n",
        "\n",
        " ",
        "  ",
        "    ",
        "\t",
        "a",
        "b",
        "x y",
        "\ufeff",
        "\r",
        "@",
        "''",
        '\\"',
        "- - ",
        "a: ",
        "  - ",
        "\n  ",
        "\n- ",
        "\n? ",
        "\n: ",
    ]
)


@pytest.mark.slow
@settings(max_examples=600, deadline=None)
@given(st.lists(_PIECES, max_size=60).map("".join))
def test_never_below_libyaml_on_token_soup(text: str) -> None:
    events, _nodes, _ok = yaml_event_depth(text)
    stats = yaml_stats(text)
    assert stats.depth >= events, text
    if stats.stopped_at is None and _ok:
        assert stats.nodes >= _nodes


def _real_yaml_files() -> list[Path]:
    found = []
    if DATA.is_dir():
        found = sorted(DATA.rglob("*.yaml")) + sorted(DATA.rglob("*.yml"))
    found += sorted(EXAMPLES.rglob("*.yaml")) if EXAMPLES.is_dir() else []
    return found


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(
    source=st.sampled_from(_real_yaml_files()),
    edits=st.lists(st.tuples(st.floats(0, 1), _PIECES, st.integers(0, 3)), max_size=8),
)
def test_never_below_libyaml_on_mutated_real_files(
    source: Path, edits: list[tuple[float, str, int]]
) -> None:
    text = source.read_text(encoding="utf-8-sig")
    for where, piece, cut in edits:  # insert a token, delete a few characters
        i = int(where * len(text))
        text = text[:i] + piece + text[i + cut :]
    events, _nodes, _ok = yaml_event_depth(text)
    assert yaml_stats(text).depth >= events


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_arbitrary_text_only_ever_raises_limit_exceeded(text: str) -> None:
    for check in (check_yaml, check_json, check_lines):
        with contextlib.suppress(LimitExceeded):
            check(text, "x", InputLimits(max_depth=3, max_nodes=20, max_line_length=50))
    yaml_stats(text)
    json_stats(text)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_arbitrary_bytes(data: bytes) -> None:
    text = data.decode("utf-8", errors="replace")
    for check in (check_yaml, check_json, check_lines):
        with contextlib.suppress(LimitExceeded):
            check(text, "x")


# ------------------------------------------------------------------------------ JSON

_JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=8)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=50,
)


@pytest.mark.slow
@SLOW
@given(value=_JSON, indent=st.sampled_from([None, 0, 2]))
def test_json_depth_is_exact(value: object, indent: int | None) -> None:
    text = json.dumps(value, indent=indent)
    stats = json_stats(text)
    assert stats.depth == value_depth(value)
    values = 0
    stack = [value]
    while stack:  # values and keys, iteratively
        v = stack.pop()
        values += 1
        if isinstance(v, dict):
            values += len(v)
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    assert stats.nodes >= values


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(list('[]{},:"\\ a1') + ['"[', ']"']), max_size=80).map("".join))
def test_json_never_below_the_decoder(text: str) -> None:
    depth = json_depth(text)
    if depth is not None:
        assert json_stats(text).depth >= depth


# ------------------------------------------------------------------------ real files


def test_every_real_yaml_file_passes_and_is_measured_exactly() -> None:
    paths = _real_yaml_files()
    need(len(paths) > 70, "the real YAML files are missing")
    for path in paths:
        text = path.read_text(encoding="utf-8-sig")
        check_yaml(text, str(path))
        events, _nodes, ok = yaml_event_depth(text)
        assert ok
        assert yaml_stats(text).depth == events, path


def _real_json_files() -> list[Path]:
    found = sorted(DATA.rglob("*.json")) if DATA.is_dir() else []
    return found + (sorted(EXAMPLES.rglob("*.json")) if EXAMPLES.is_dir() else [])


@pytest.mark.slow
def test_every_real_json_file_passes_and_is_measured_exactly() -> None:
    need(DATA.is_dir(), f"real data folder {DATA} is missing")
    paths = _real_json_files()
    assert len(paths) > 400
    for path in paths:
        text = path.read_text(encoding="utf-8-sig")
        check_json(text, str(path))
        assert json_stats(text).depth == json_depth(text), path


_MARKER = re.compile(r"^\s*(#\s*)?ir_metadata\.(start|end)\s*$")


def _header_yaml(run_text: str) -> tuple[str, int] | None:
    """The YAML between the markers (``# `` prefixes dropped) and the line before it."""
    lines = run_text.split("\n")
    marks = [i for i, ln in enumerate(lines) if _MARKER.match(ln)]
    if len(marks) < 2:
        return None
    start, end = marks[0], marks[1]
    prefixed = lines[start].lstrip().startswith("#")
    body = lines[start + 1 : end]
    if prefixed:
        body = [
            ln[2:] if ln.startswith("# ") else ln[1:] if ln.startswith("#") else ln for ln in body
        ]
    return "\n".join(body) + "\n", start + 1


def test_ir_metadata_headers_pass() -> None:
    need(DATA.is_dir(), f"real data folder {DATA} is missing")
    runs = [DATA / "ir_metadata/annotated_run_example.txt"]
    runs += sorted((EXAMPLES / "runs").rglob("*")) if (EXAMPLES / "runs").is_dir() else []
    checked = 0
    for run in runs:
        if not run.is_file() or run.suffix == ".md":
            continue
        text = run.read_text(encoding="utf-8-sig")
        check_lines(text, str(run), what="run line")
        if "ir_metadata.start" in text:
            found = _header_yaml(text)
            if found is None:
                continue
            header, offset = found
            check_yaml(header, str(run), line_offset=offset, check_lines=False)
            assert yaml_stats(header).depth == yaml_event_depth(header)[0]
            checked += 1
    assert checked >= 1


def test_every_real_line_file_passes() -> None:
    need(DATA.is_dir(), f"real data folder {DATA} is missing")
    files = sorted((DATA / "trec").rglob("*"))
    files += [p for p in DATA.rglob("*") if p.suffix in (".csv", ".tsv")]
    files += sorted((DATA / "surveys/gundersen_kjensmo_2018/data").glob("sampled_*"))
    for path in files:
        if path.is_file() and "LICENSE" not in path.name:
            delimiter = "\t" if path.suffix == ".tsv" else "," if path.suffix == ".csv" else None
            check_lines(path.read_text(encoding="utf-8-sig"), str(path), delimiter=delimiter)


# ---------------------------------------------------------------------- linear time


@pytest.mark.slow
@pytest.mark.parametrize(
    "make",
    [
        lambda n: "a:\n" + "  b: [1, 2, {c: d}]  # c\n" * n,
        lambda n: "- 'x [ y'\n" * n,
        lambda n: "k: |\n" + "  - [ a: { \n" * n + "z: 1\n",
        lambda n: "[" * 40 + "a, " * n + "]" * 40,
        lambda n: '"' + '\\" [ ' * n + '"\n',
    ],
)
def test_scan_time_is_linear(make) -> None:
    def cost(n: int) -> float:
        text = make(n)
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            yaml_stats(text)
            best = min(best, time.perf_counter() - t0)
        return best

    small, big = cost(2_000), cost(16_000)
    assert big < 8 * 3 * small + 0.01  # 8x the input: far from 64x


def test_defaults_follow_the_settings() -> None:
    from reprokg.core.settings import Settings, configure
    from reprokg.loaders.reading.limits import current_limits

    assert DEFAULT_LIMITS.max_depth == 64 == Settings().max_depth
    assert InputLimits.of(Settings()) == DEFAULT_LIMITS
    configure(Settings(max_depth=5))
    assert current_limits().max_depth == 5
    with pytest.raises(LimitExceeded):
        check_yaml("[" * 6 + "]" * 6, "x")
    configure(None)


# -------------------------------------------------------------- through the loaders

DEEP_100K = b"[" * 100_000 + b"]" * 100_000
DEEP_3000 = b"a: " + b"{x: " * 3000 + b"1" + b"}" * 3000 + b"\n"


@pytest.mark.parametrize(
    ("data", "name", "kind", "where"),
    [
        (DEEP_100K, "x.yaml", "audit", (1, 65)),
        (DEEP_3000, "x.yaml", "audit", (1, 256)),
        (DEEP_100K, "x.json", "audit", (1, 65)),
        (b"[" + b"[? ]: " * 100_000 + b"x]", "x.yaml", "audit", (1, 188)),
        (b"- " * 100_000 + b"x\n", "m.yaml", "mlrc", (1, 129)),
        (b"ir_metadata.start\n" + DEEP_3000 + b"ir_metadata.end\n", "r.txt", "run", (2, 256)),
        (b"[" + b'{"a": ' * 3000 + b"1" + b"}" * 3000 + b"]", "x.json", "survey", (1, 380)),
        (b"title: x\nobservations: " + b"[" * 5000, "s.yaml", "stability", (2, 78)),
    ],
)
def test_the_crash_inputs_through_every_loader(data: bytes, name: str, kind: str, where) -> None:
    from reprokg import loaders

    with pytest.raises(LimitExceeded) as err:
        loaders.load_source(name, data, kind=kind)
    assert (err.value.line, err.value.column) == where
    assert err.value.limit == "depth" and err.value.http_status == 400


def test_a_control_character_after_an_alias_is_a_located_load_error() -> None:
    """atheris found it: PyYAML's reader refuses the character when the loader is made,
    which was outside the try (a ReaderError, a 500)."""
    from reprokg import loaders
    from reprokg.core.errors import LoadError

    with pytest.raises(LoadError) as err:
        loaders.load_source("x.yaml", b"a: *b\x1e", kind="audit")
    assert (err.value.line, err.value.column) == (1, 6) and "\\x1e" in err.value.message
    regression = REPO / "tests/loaders/fuzz_regressions/audit-readererror-outside-try.yaml"
    with pytest.raises(LoadError):
        loaders.load_source("x.yaml", regression.read_bytes(), kind="audit")


def test_lines_of_csv_and_trec_files_are_limited() -> None:
    from reprokg import loaders

    with pytest.raises(InputTooLarge) as err:
        loaders.load_source("r.run", b"1 Q0 d 1 1.0 t\n" + b"x " * 40_000, kind="run")
    assert err.value.limit == "line length" and err.value.line == 2
    with pytest.raises(InputTooLarge) as err:
        loaders.load_source("q.txt", b"1 0 d 1\n" + b"x " * 2_000 + b"\n", kind="qrels")
    assert err.value.limit == "fields"
    with pytest.raises(InputTooLarge) as err:
        loaders.load_source("evaluations.csv", b"a,b\n" + b"," * 2_000, kind="gk2018")
    assert err.value.limit == "fields" and err.value.line == 2
