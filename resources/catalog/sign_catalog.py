#!/usr/bin/env python3
"""Sign the knowledge catalog as one catalog update document for a release.

    python3 resources/catalog/sign_catalog.py --key /secure/place/catalog-release.pem \
        --out catalog-update.json [--catalog resources/catalog] [--version N] [--date YYYY-MM-DD] \
        [--mirror ORIGIN=URL ...] [--pin LABEL=SHA256 ...]

The document carries every knowledge file of the catalog folder, the version and date (by
default those of release.json: raise its version with each release whose catalog changed) and an
Ed25519 signature over the canonical form that tfsetup checks (wizard/core/catalog/catalogupdate.h):

    b"tfsetup-catalog-update\\nschema 1\\nversion N\\ndate D\\nfiles COUNT\\n"
    then per file, sorted by name: b"file NAME LENGTH\\n" + the file's bytes + b"\\n"

The private key never belongs in the repository: keep it offline and give its path with --key
(PEM, as `openssl genpkey -algorithm ed25519 -out KEY` writes it). --print-public-key prints the
raw public key in hex, the form wizard/core/catalog/catalogupdate.cpp ships.

A lab signs its own copy of the catalog with its own key the same way (an administrator trusts
the public half on each machine with `tfsetup catalog trust`). --mirror nvidia=URL names the lab's
copy of NVIDIA's download tree in the signed sources.json ("mirrors"), so every machine with the
catalog fetches from it without further options; --pin LABEL=SHA256 sets the SHA-256 of the
cuda_manifests / cudnn_manifests record with that label (the manifests the lab's mirror serves).
Both change only the signed copy, never the files in the catalog folder.

Signs with Python's cryptography package (Debian: python3-cryptography) or, without it, with
`openssl pkeyutl -rawin`.
"""

import argparse
import base64
import hashlib
import json
import os
import subprocess
import sys
import tempfile

FORMAT = "tfsetup-catalog-update"
FILES = ["causes.json", "cuda.json", "gpus.json", "libraries.json", "placement.json",
         "routes.json", "sources.json", "tensorflow.json", "tflog.json"]


def canonical_form(version, date, files):
    out = f"{FORMAT}\nschema 1\nversion {version}\ndate {date}\nfiles {len(files)}\n".encode()
    for name in sorted(files):
        data = files[name]
        out += f"file {name} {len(data)}\n".encode() + data + b"\n"
    return out


MIRROR_ORIGINS = ("nvidia", "python", "python-build-standalone")


def lab_sources(data, mirrors, pins):
    """sources.json with the lab's mirrors and manifest pins, or the bytes unchanged without any."""
    if not mirrors and not pins:
        return data
    sources = json.loads(data.decode("utf-8"))
    if mirrors:
        listed = []
        for spec in mirrors:
            origin, sep, url = spec.partition("=")
            if not sep or origin not in MIRROR_ORIGINS:
                sys.exit(f"error: --mirror {spec}: write ORIGIN=URL with ORIGIN one of {', '.join(MIRROR_ORIGINS)}")
            if not url.startswith(("http://", "https://", "file://")):
                sys.exit(f"error: --mirror {spec}: the URL must start with http://, https:// or file://")
            listed.append({"origin": origin, "url": url, "note": "named by the lab that signed this catalog"})
        sources["mirrors"] = listed
    for spec in pins:
        label, sep, digest = spec.partition("=")
        digest = digest.lower()
        if not sep or len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
            sys.exit(f"error: --pin {spec}: write LABEL=SHA256 with 64 hexadecimal digits")
        found = False
        for key in ("cuda_manifests", "cudnn_manifests"):
            for record in sources.get(key, []):
                if record.get("label") == label:
                    record["sha256"] = digest
                    record["source"] = f"pinned by the lab that signed this catalog (was: {record.get('source', '')})"
                    found = True
        if not found:
            sys.exit(f"error: --pin {spec}: no cuda_manifests or cudnn_manifests record has the label {label}")
    return (json.dumps(sources, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def _with_cryptography(key_path):
    try:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    except ImportError:
        return None
    with open(key_path, "rb") as f:
        key = serialization.load_pem_private_key(f.read(), password=None)
    if not isinstance(key, Ed25519PrivateKey):
        sys.exit(f"error: {key_path} is not an Ed25519 private key")
    public = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return public, key.sign


def _with_openssl(key_path):
    der = subprocess.run(["openssl", "pkey", "-in", key_path, "-pubout", "-outform", "DER"],
                         check=True, capture_output=True).stdout
    public = der[-32:]

    def sign(message):
        with tempfile.NamedTemporaryFile(delete=False) as m:
            m.write(message)
        try:
            return subprocess.run(["openssl", "pkeyutl", "-sign", "-rawin", "-inkey", key_path, "-in", m.name],
                                  check=True, capture_output=True).stdout
        finally:
            os.unlink(m.name)
    return public, sign


def signer(key_path):
    found = _with_cryptography(key_path)
    if found is None:
        try:
            found = _with_openssl(key_path)
        except (OSError, subprocess.CalledProcessError) as e:
            sys.exit(f"error: cannot sign: install python3-cryptography or openssl ({e})")
    return found


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description="Sign the tfsetup knowledge catalog as a catalog update.")
    parser.add_argument("--key", required=True, help="the Ed25519 private key (PEM), kept outside the repository")
    parser.add_argument("--catalog", default=here, help="the catalog folder (default: this script's folder)")
    parser.add_argument("--version", type=int, help="the update's version (default: release.json's)")
    parser.add_argument("--date", help="the update's date, YYYY-MM-DD (default: release.json's)")
    parser.add_argument("--out", help="where to write the update document")
    parser.add_argument("--mirror", action="append", default=[], metavar="ORIGIN=URL",
                        help="name a mirror in the signed sources.json (nvidia=http://mirror.lab.example/nvidia); "
                             "may be repeated")
    parser.add_argument("--pin", action="append", default=[], metavar="LABEL=SHA256",
                        help="pin the manifest with this label (11.8.0=…) in the signed sources.json; may be repeated")
    parser.add_argument("--print-public-key", action="store_true", help="print the raw public key (hex) and stop")
    args = parser.parse_args()

    public, sign = signer(args.key)
    if args.print_public_key:
        print(public.hex())
        return 0
    if not args.out:
        parser.error("--out is required")

    with open(os.path.join(args.catalog, "release.json"), encoding="utf-8") as f:
        release = json.load(f)
    version = args.version if args.version is not None else int(release["version"])
    date = args.date or release["date"]
    if version < 1:
        sys.exit("error: the version must be 1 or higher")

    files = {}
    for name in FILES:
        with open(os.path.join(args.catalog, name), "rb") as f:
            data = f.read()
        json.loads(data.decode("utf-8"))  # refuse to sign a file that is not JSON
        files[name] = data
    files["sources.json"] = lab_sources(files["sources.json"], args.mirror, args.pin)

    signature = sign(canonical_form(version, date, files))
    document = {
        "format": FORMAT,
        "schema": 1,
        "version": version,
        "date": date,
        "files": {name: data.decode("utf-8") for name, data in sorted(files.items())},
        "signature": {
            "algorithm": "ed25519",
            "key_id": hashlib.sha256(public).hexdigest()[:16],
            "value": base64.b64encode(signature).decode("ascii"),
        },
    }
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(document, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"signed catalog version {version} of {date} with key {document['signature']['key_id']}: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
