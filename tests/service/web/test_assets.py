"""The vendored browser assets are what the manifest says: pinned npm versions, every
file's sha256, the licenses beside the code; the pages load nothing from elsewhere."""

from __future__ import annotations

import hashlib
import json
import re

from reprokg.service.web.assets import STATIC_DIR, VENDOR_DIR, vendor_manifest
from tests.conftest import REPO

SCRIPT = REPO / "service" / "web" / "refresh_vendor.sh"


def test_every_vendored_file_matches_the_manifest() -> None:
    manifest = vendor_manifest()
    listed = set()
    for pkg in manifest["packages"]:
        for f in pkg["files"]:
            data = (VENDOR_DIR / f["path"]).read_bytes()
            assert len(data) == f["size"], f["path"]
            assert hashlib.sha256(data).hexdigest() == f["sha256"], f["path"]
            listed.add(f["path"])
    on_disk = {
        p.relative_to(VENDOR_DIR).as_posix()
        for p in VENDOR_DIR.rglob("*")
        if p.is_file() and p.parent != VENDOR_DIR
    }
    assert on_disk == listed, "files in static/vendor/ not in VERSIONS.json (or missing)"
    sums = dict(
        reversed(line.split("  ", 1))
        for line in (VENDOR_DIR / "SHA256SUMS").read_text().splitlines()
    )
    assert sums == {f["path"]: f["sha256"] for pkg in manifest["packages"] for f in pkg["files"]}


def test_pins_licenses_and_the_refresh_script_agree() -> None:
    manifest = {p["folder"]: p for p in vendor_manifest()["packages"]}
    assert set(manifest) == {"yasgui", "swagger-ui"}
    script = SCRIPT.read_text()
    pins = dict(re.findall(r"^(YASGUI_VERSION|SWAGGER_UI_VERSION)=(\S+)$", script, re.M))
    assert manifest["yasgui"]["npm"] == "@zazuko/yasgui"
    assert manifest["yasgui"]["version"] == pins["YASGUI_VERSION"]
    assert manifest["swagger-ui"]["npm"] == "swagger-ui-dist"
    assert manifest["swagger-ui"]["version"] == pins["SWAGGER_UI_VERSION"]
    assert manifest["yasgui"]["license"] == "MIT"
    assert manifest["swagger-ui"]["license"] == "Apache-2.0"
    for folder in manifest:
        assert (VENDOR_DIR / folder / "LICENSE").is_file()
    assert "MIT License" in (VENDOR_DIR / "yasgui" / "LICENSE").read_text()
    assert (VENDOR_DIR / "yasgui" / "THIRD_PARTY_LICENSES.txt").stat().st_size > 1000
    assert json.loads(json.dumps(manifest))  # plain JSON


def test_our_pages_name_no_other_host() -> None:
    """Templates, CSS and our scripts load nothing from another host (scripts, styles,
    images, fonts): everything a page needs is served by us. Links may point anywhere."""
    texts = [p.read_text() for p in (REPO / "service" / "web" / "templates").glob("*.html")]
    texts += [p.read_text() for p in STATIC_DIR.glob("*.*") if p.suffix in (".css", ".js")]
    for text in texts:
        loads = re.findall(r"""src=["'](https?://[^"']+)""", text)
        loads += re.findall(r"""<link[^>]+href=["'](https?://[^"']+)""", text)
        loads += re.findall(r"""url\(["']?(https?://[^)"']+)""", text)
        assert not loads, f"a page loads {loads}"
        assert "@import url(http" not in text and "cdn." not in text
