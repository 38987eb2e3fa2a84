#!/usr/bin/env bash
# Refresh the vendored browser assets of the web interface from npm, at pinned versions.
#
#   service/web/refresh_vendor.sh [TARGET]      (default: static/vendor next to this script)
#
# Downloads the two npm tarballs with `npm pack` (no dependencies, no install scripts; npm
# checks each tarball against the registry's integrity hash), copies only the files the
# pages load plus their licenses into TARGET/<name>/, and writes two manifests:
#   TARGET/VERSIONS.json  package, version, npm integrity, license, and every file's size
#                         and sha256 (the files are byte-identical to the tarball's)
#   TARGET/SHA256SUMS     the same hashes for `cd TARGET && sha256sum -c SHA256SUMS`
# Source maps are not copied (about 9 MB); the bundles keep their sourceMappingURL
# comment, which a browser follows only with its developer tools open.
#
# ReDoc is not vendored: redoc 2.5.x draws the Redocly logo from its CDN in every page (an
# <img> no option turns off), so it cannot be offline; /redoc redirects to /docs.
#
# YASGUI: the npm tarball has no LICENSE file (the repository's root LICENSE, MIT, is not
# in `files`), so it is taken from the repository at the release tag and checked against
# the pinned hash below; with no network to GitHub an already vendored copy with that hash
# is kept, or YASGUI_LICENSE=/path/to/LICENSE names one. The bundle inlines third-party
# code: the packages named in its source map are installed (npm install --ignore-scripts)
# to collect their licenses into yasgui/THIRD_PARTY_LICENSES.txt.
#
# To move to a new version: change the pins, run, review `git diff TARGET`, run the
# browser tests. Changing YASGUI_VERSION needs YASGUI_LICENSE_SHA256 checked again.
set -euo pipefail

YASGUI_VERSION=4.6.2
SWAGGER_UI_VERSION=5.35.0
YASGUI_LICENSE_SHA256=8f71659370c5268d9a1dc962a46232540e8fca63462586d8efaa95aab492a208
YASGUI_LICENSE_URL="https://raw.githubusercontent.com/rdfjs/Yasgui/%40zazuko%2Fyasgui%40${YASGUI_VERSION}/LICENSE"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
target="$(realpath -m "${1:-$here/static/vendor}")"
for tool in npm tar python3 sha256sum; do
    command -v "$tool" >/dev/null || { echo "refresh_vendor: $tool is needed" >&2; exit 2; }
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false

echo "== npm pack (pinned)"
(
    cd "$work"
    npm pack --json "@zazuko/yasgui@${YASGUI_VERSION}" "swagger-ui-dist@${SWAGGER_UI_VERSION}" \
        >pack.json 2>pack.log
)
for t in "$work"/*.tgz; do
    mkdir -p "${t%.tgz}" && tar -xzf "$t" -C "${t%.tgz}"
done
yasgui="$work/zazuko-yasgui-${YASGUI_VERSION}/package"
swagger="$work/swagger-ui-dist-${SWAGGER_UI_VERSION}/package"

stage="$work/stage"
mkdir -p "$stage/yasgui" "$stage/swagger-ui"
cp "$yasgui/build/yasgui.min.js" "$yasgui/build/yasgui.min.css" "$stage/yasgui/"
cp "$swagger/swagger-ui-bundle.js" "$swagger/swagger-ui-bundle.js.LICENSE.txt" \
    "$swagger/swagger-ui.css" "$swagger/favicon-32x32.png" "$swagger/LICENSE" \
    "$swagger/NOTICE" "$stage/swagger-ui/"

echo "== YASGUI license"
lic="$stage/yasgui/LICENSE"
if [[ -n "${YASGUI_LICENSE:-}" ]]; then
    cp "$YASGUI_LICENSE" "$lic"
elif ! curl -fsSL -m 20 -o "$lic" "$YASGUI_LICENSE_URL" 2>/dev/null; then
    rm -f "$lic"
    if [[ -f "$target/yasgui/LICENSE" ]]; then
        echo "   GitHub unreachable: keeping $target/yasgui/LICENSE"
        cp "$target/yasgui/LICENSE" "$lic"
    else
        echo "refresh_vendor: cannot fetch $YASGUI_LICENSE_URL; set YASGUI_LICENSE" >&2
        exit 1
    fi
fi
got="$(sha256sum "$lic" | cut -d' ' -f1)"
if [[ "$got" != "$YASGUI_LICENSE_SHA256" ]]; then
    echo "refresh_vendor: YASGUI LICENSE sha256 $got, pinned $YASGUI_LICENSE_SHA256:" \
        "read it, then update the pin" >&2
    exit 1
fi

echo "== licenses of the code the YASGUI bundle inlines"
(
    mkdir -p "$work/deps" && cd "$work/deps"
    printf '{"name":"vendor-licenses","private":true}\n' >package.json
    npm install --ignore-scripts --omit=dev --no-package-lock \
        "@zazuko/yasgui@${YASGUI_VERSION}" >install.log 2>&1
)

python3 - "$work" "$stage" "$yasgui" "$swagger" <<'PY'
"""Write yasgui/THIRD_PARTY_LICENSES.txt, VERSIONS.json and SHA256SUMS into the stage."""
import hashlib
import json
import re
import sys
from pathlib import Path

work, stage, yasgui, swagger = (Path(p) for p in sys.argv[1:])
deps = work / "deps" / "node_modules"

# packages whose files the bundle contains, from the paths in its source map
sources = json.loads((yasgui / "build" / "yasgui.min.js.map").read_text())["sources"]
bundled = sorted(
    {m.group(1) for s in sources if (m := re.search(r"node_modules/((?:@[^/]+/)?[^/]+)/", s))}
)
parts = [
    "Third-party code inlined in yasgui.min.js (@zazuko/yasgui), one section per npm\n"
    "package named in the bundle's source map. Versions are those npm resolves today for\n"
    "the bundle's declared ranges; the bundle may have been built with other patch releases.\n"
]
for name in bundled:
    pkg = deps / name
    if not (pkg / "package.json").is_file():
        hits = sorted(deps.glob(f"*/node_modules/{name}/package.json"))
        if not hits:
            parts.append(f"\n==== {name}: not found in the installed tree\n")
            continue
        pkg = hits[0].parent
    meta = json.loads((pkg / "package.json").read_text())
    licence = meta.get("license") or meta.get("licenses")
    texts = sorted(
        p for p in pkg.iterdir()
        if p.is_file() and re.match(r"(?i)^(licen[sc]e|copying|notice)", p.name)
    )
    parts.append(f"\n==== {name}@{meta.get('version')}  license: {licence}\n")
    for t in texts:
        parts.append(f"---- {t.name}\n{t.read_text(errors='replace').rstrip()}\n")
    if not texts:
        parts.append("(the package ships no license file; see its license field above)\n")
(stage / "yasgui" / "THIRD_PARTY_LICENSES.txt").write_text("".join(parts))

pack = {p["name"]: p for p in json.loads((work / "pack.json").read_text())}
roots = {"yasgui": yasgui, "swagger-ui": swagger}
packages = []
sums = []
for folder, root in roots.items():
    meta = json.loads((root / "package.json").read_text())
    files = []
    for f in sorted((stage / folder).iterdir()):
        digest = hashlib.sha256(f.read_bytes()).hexdigest()
        files.append({"path": f"{folder}/{f.name}", "size": f.stat().st_size, "sha256": digest})
        sums.append(f"{digest}  {folder}/{f.name}\n")
    packages.append({
        "folder": folder,
        "npm": meta["name"],
        "version": meta["version"],
        "license": meta.get("license"),
        "integrity": pack[meta["name"]]["integrity"],
        "tarball": f"https://registry.npmjs.org/{meta['name']}/-/"
                   f"{meta['name'].split('/')[-1]}-{meta['version']}.tgz",
        "files": files,
    })
manifest = {"generated_by": "refresh_vendor.sh", "packages": packages}
(stage / "VERSIONS.json").write_text(json.dumps(manifest, indent=2) + "\n")
(stage / "SHA256SUMS").write_text("".join(sums))
PY

echo "== install into $target"
mkdir -p "$target"
for d in yasgui swagger-ui; do
    rm -rf "${target:?}/$d"
    cp -r "$stage/$d" "$target/$d"
done
cp "$stage/VERSIONS.json" "$stage/SHA256SUMS" "$target/"
(cd "$target" && sha256sum --quiet -c SHA256SUMS)
du -b "$target"/*/* | sort -k2
