#!/usr/bin/env python3
"""Make the signed catalog update of a tfsetup release (the procedure: RELEASING.md).

    python3 resources/catalog/release_catalog.py --key /secure/place/catalog-release.pem \
        --out dist/catalog [--previous catalog-update.json|URL] [--catalog resources/catalog]

Checks that every catalog file is a JSON object, that release.json's version was raised above the
previously published update's (--previous: that update, as a file or its URL), signs the catalog
with sign_catalog.py, and writes catalog-update.json and catalog-update.json.sha256 into --out.
Then it prints the upload step: the asset's name must be the last part of release.json's
update_url, where tfsetup looks for updates.
"""

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import sign_catalog  # noqa: E402  (beside this script)

ASSET = "catalog-update.json"
MAX_DOCUMENT_BYTES = 8 * 1024 * 1024  # CatalogUpdates::maxDocumentBytes


def fail(message):
    sys.exit(f"error: {message}")


def load_object(path):
    try:
        with open(path, encoding="utf-8") as f:
            value = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path} cannot be read as JSON: {e}")
    if not isinstance(value, dict):
        fail(f"{path} is not a JSON object")
    return value


def previous_version(where):
    if re.match(r"^https?://", where):
        try:
            with urllib.request.urlopen(where, timeout=60) as response:
                data = response.read(MAX_DOCUMENT_BYTES)
        except OSError as e:
            fail(f"the previous update {where} cannot be fetched: {e}")
    else:
        try:
            with open(where, "rb") as f:
                data = f.read()
        except OSError as e:
            fail(f"the previous update {where} cannot be read: {e}")
    try:
        document = json.loads(data.decode("utf-8"))
        return int(document["version"])
    except (ValueError, KeyError, TypeError) as e:
        fail(f"the previous update {where} is not a catalog update document: {e}")


def main():
    parser = argparse.ArgumentParser(description="Make the signed catalog update of a tfsetup release.")
    parser.add_argument("--key", required=True, help="the release key (Ed25519, PEM), kept outside the repository")
    parser.add_argument("--out", required=True, help="the folder to write catalog-update.json and its .sha256 into")
    parser.add_argument("--previous", help="the previously published update (file or URL): its version must be lower")
    parser.add_argument("--catalog", default=HERE, help="the catalog folder (default: this script's folder)")
    args = parser.parse_args()

    for name in sign_catalog.FILES:
        load_object(os.path.join(args.catalog, name))
    release = load_object(os.path.join(args.catalog, "release.json"))
    version = release.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        fail("release.json's version must be a whole number, 1 or higher")
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(release.get("date", ""))):
        fail("release.json's date must be written YYYY-MM-DD")
    url = str(release.get("update_url", ""))
    if not url.endswith("/" + ASSET):
        fail(f"release.json's update_url must end with /{ASSET}, the asset this script makes")
    if args.previous:
        published = previous_version(args.previous)
        if version <= published:
            fail(f"release.json's version {version} is not higher than the published update's ({published}): "
                 f"raise it (and the date) before releasing a changed catalog")

    os.makedirs(args.out, exist_ok=True)
    out = os.path.join(args.out, ASSET)
    subprocess.run([sys.executable, os.path.join(HERE, "sign_catalog.py"), "--key", args.key,
                    "--catalog", args.catalog, "--out", out], check=True)
    with open(out, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    with open(out + ".sha256", "w", encoding="utf-8") as f:
        f.write(f"{digest}  {ASSET}\n")

    print(f"catalog version {version} of {release['date']}: {out} (sha256 {digest})")
    print("Upload both files as assets of the release that GitHub marks as latest, for example:")
    print(f"    gh release upload vX.Y.Z {out} {out}.sha256 --clobber")
    print(f"tfsetup then finds the update at {url}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
