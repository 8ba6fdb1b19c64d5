#!/usr/bin/env python3
"""Build a wheelhouse of real wheels from the Python distributions Debian has installed.

    debian_wheelhouse.py OUT ROOT [ROOT...] [--site DIR]

For each root distribution (e.g. ipykernel, notebook) the Requires-Dist closure is walked with
importlib.metadata over DIR (default /usr/lib/python3/dist-packages), and each distribution in it
is written as a PEP 427 wheel into OUT/wheels, with its METADATA beside it as <wheel>.metadata.
OUT/simple/ is a PEP 503 index of them that pip installs from over a loopback HTTP server: links
with #sha256= fragments, data-requires-python, and the PEP 658 / PEP 714 attributes
data-dist-info-metadata and data-core-metadata (the .metadata file's sha256). pip reading these
pages asks for <wheel>.metadata next to each wheel, so a server of them serves those files too.
A JSON summary goes to standard output: {"wheels": [file, ...], "dropped": ["dist: requirement (why)", ...]} (additions
are listed there too, with a "+").

What is changed on the way, so that pip resolves the closure with nothing but these wheels:
- Requires-Dist entries whose markers do not apply (extras, other platforms or Pythons) are
  dropped; so are those naming a distribution that is not installed (Debian leaves optional
  ones out). A version specifier the installed version does not meet (Debian patches a pin) is
  dropped, the name kept. Each change is listed under "dropped".
- Debian strips some install_requires from the metadata it installs (python3-notebook's
  requires.txt keeps only the extras) and states them as package Depends instead. So the
  Python distributions shipped by each python3-* package a distribution's Debian package
  Depends on are added as unversioned requirements (dpkg's file lists and dpkg-query).
- Requirement names are spelled as the required distribution's Name field ("jupyter-client" becomes
  "jupyter_client"): pip 23.0 rejects a PEP 658 metadata file whose Name differs from the
  requirement's spelling, even when both normalize alike.
- Files come from the distribution's RECORD where it has one, else from top_level.txt (the
  package folder or module next to it). Paths that leave DIR (console scripts: pip writes its
  own from entry_points.txt), __pycache__ and symbolic links (Debian links notebook's JavaScript
  to /usr/share/javascript; the server's REST API does not need them) are left out.
- Compiled modules keep their names (e.g. *.cpython-311-x86_64-linux-gnu.so) and the wheel is
  tagged py3-none-any: the wheels are for this very Python, never for publishing.
"""

import base64
import hashlib
import html
import importlib.metadata
import json
import os
import re
import sys
import zipfile

from packaging.markers import default_environment
from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import InvalidVersion, Version


def normalize(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def wheel_part(text):
    return re.sub(r"[-_.]+", "_", text)


def record_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def installed(site):
    found = {}
    for dist in importlib.metadata.distributions(path=[site]):
        name = dist.metadata["Name"]
        if name and normalize(name) not in found:
            found[normalize(name)] = dist
    return found


def debian_depends(site):
    """Distribution key -> keys of the distributions its Debian package's Depends ship."""
    site = os.path.realpath(site)
    owner, ships = {}, {}
    info = "/var/lib/dpkg/info"
    if not os.path.isdir(info):
        return {}
    for list_file in os.listdir(info):
        if not list_file.endswith(".list"):
            continue
        package = list_file[:-5].split(":")[0]
        with open(os.path.join(info, list_file), errors="replace") as f:
            for line in f:
                path = line.strip()
                if os.path.dirname(path) != site or not re.search(r"\.(dist|egg)-info$", path):
                    continue
                name = re.sub(r"-[^-]+\.(dist|egg)-info$", "", os.path.basename(path))
                owner[normalize(name)] = package
                ships.setdefault(package, set()).add(normalize(name))
    try:
        import subprocess
        query = subprocess.run(["dpkg-query", "-W", "-f", "${Package}\t${Depends}\n"], capture_output=True,
                               text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    depends = {}
    for line in query.splitlines():
        package, _, text = line.partition("\t")
        names = []
        for group in text.split(","):
            for alternative in group.split("|"):
                name = alternative.strip().split(" ")[0].split(":")[0]
                if name in ships:
                    names.append(name)
                    break
        depends[package] = names
    out = {}
    for key, package in owner.items():
        out[key] = sorted({d for dep in depends.get(package, []) for d in ships[dep]} - {key})
    return out


def applies(requirement):
    if requirement.marker is None:
        return True
    environment = default_environment()
    environment["extra"] = ""
    return requirement.marker.evaluate(environment)


def kept_requirements(dist, available, dropped, debian):
    label = dist.metadata["Name"]
    kept = []
    named = set()
    for text in dist.requires or []:
        try:
            requirement = Requirement(text)
        except InvalidRequirement:
            dropped.append(f"{label}: {text} (not a valid requirement)")
            continue
        if not applies(requirement):
            continue  # an extra or another platform: not part of this install
        target = available.get(normalize(requirement.name))
        if target is None:
            dropped.append(f"{label}: {text} (not installed)")
            continue
        requirement.marker = None
        requirement.extras = set()
        # Spelled as the target's Name: with PEP 658 metadata pip 23.0 compares the two verbatim.
        requirement.name = target.metadata["Name"]
        if requirement.specifier:
            try:
                ok = requirement.specifier.contains(Version(target.version), prereleases=True)
            except InvalidVersion:
                ok = False
            if not ok:
                dropped.append(f"{label}: {text} (installed {target.version} does not meet it; name kept)")
                requirement.specifier = type(requirement.specifier)("")
        kept.append(str(requirement))
        named.add(normalize(requirement.name))
    for key in debian.get(normalize(label), []):
        if key not in named and key in available:
            kept.append(available[key].metadata["Name"])
            dropped.append(f"{label}: + {available[key].metadata['Name']} (from its Debian package's Depends)")
    return kept


def files_of(dist, site):
    site = os.path.realpath(site)
    names = []
    if dist.read_text("RECORD") is not None and dist.files:
        names = [str(f) for f in dist.files]
    else:
        # Without top_level.txt (an egg-info that is a single file) the package bears the name.
        tops = (dist.read_text("top_level.txt") or "").split() or [wheel_part(dist.metadata["Name"])]
        for top in tops:
            top = top.replace("/", os.sep)
            folder = os.path.join(site, top)
            if os.path.isdir(folder):
                for root, dirs, files in os.walk(folder):
                    dirs[:] = [d for d in dirs if d != "__pycache__" and not os.path.islink(os.path.join(root, d))]
                    names += [os.path.relpath(os.path.join(root, f), site) for f in files]
            for entry in os.listdir(site):
                if entry == top + ".py" or (entry.startswith(top + ".") and entry.endswith(".so")):
                    names.append(entry)
    out = []
    for name in names:
        path = os.path.normpath(os.path.join(site, name))
        if not path.startswith(site + os.sep) or "__pycache__" in name.split("/"):
            continue
        if os.path.islink(path) or not os.path.isfile(path):
            continue
        if re.match(r"^[^/]+\.(dist|egg)-info/", name.replace(os.sep, "/")):
            continue  # the metadata is written anew
        out.append(name.replace(os.sep, "/"))
    return sorted(set(out))


def metadata_text(dist, requirements):
    # dist.metadata also reads an egg-info that is a single file (PKG-INFO text under that name).
    lines = ["Metadata-Version: 2.1"]
    for key, value in dist.metadata.items():
        if key.lower() in ("metadata-version", "requires-dist", "provides-extra"):
            continue
        lines.append(f"{key}: {' '.join(str(value).splitlines())}")
    lines += [f"Requires-Dist: {r}" for r in requirements]
    return ("\n".join(lines) + "\n").encode()


def write_wheel(dist, site, out, requirements):
    """Writes the wheel and, beside it, its METADATA as <wheel>.metadata (PEP 658)."""
    name, version = dist.metadata["Name"], dist.version
    file_name = f"{wheel_part(name)}-{version.replace('-', '_')}-py3-none-any.whl"
    info = f"{wheel_part(name)}-{version.replace('-', '_')}.dist-info"
    metadata = metadata_text(dist, requirements)
    record = []
    with zipfile.ZipFile(os.path.join(out, file_name), "w", zipfile.ZIP_DEFLATED) as wheel:
        def add(arcname, data):
            wheel.writestr(arcname, data)
            record.append(f"{arcname},{record_hash(data)},{len(data)}")
        for relative in files_of(dist, site):
            with open(os.path.join(site, relative), "rb") as f:
                add(relative, f.read())
        add(f"{info}/METADATA", metadata)
        add(f"{info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: tfsetup-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        entry_points = dist.read_text("entry_points.txt")
        if entry_points:
            add(f"{info}/entry_points.txt", entry_points.encode())
        record.append(f"{info}/RECORD,,")
        wheel.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    with open(os.path.join(out, file_name + ".metadata"), "wb") as f:
        f.write(metadata)
    return file_name


def main(argv):
    site = "/usr/lib/python3/dist-packages"
    if "--site" in argv:
        i = argv.index("--site")
        site = argv[i + 1]
        del argv[i:i + 2]
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    out, roots = argv[0], argv[1:]
    available = installed(site)
    debian = debian_depends(site)
    wheels_dir = os.path.join(out, "wheels")
    os.makedirs(wheels_dir, exist_ok=True)
    dropped, wheels, done, requires_python = [], [], set(), {}
    pending = [normalize(r) for r in roots]
    for root in pending:
        if root not in available:
            print(f"{root} is not installed in {site}", file=sys.stderr)
            return 1
    while pending:
        key = pending.pop()
        if key in done:
            continue
        done.add(key)
        dist = available[key]
        requirements = kept_requirements(dist, available, dropped, debian)
        wheels.append(write_wheel(dist, site, wheels_dir, requirements))
        if dist.metadata["Requires-Python"]:
            requires_python[wheels[-1]] = dist.metadata["Requires-Python"]
        pending += [normalize(Requirement(r).name) for r in requirements]
    # PEP 503: one page per normalized project name, each link with the file's sha256; PEP 658 /
    # PEP 714: the metadata file's sha256 under both attribute names (pip 23.0 knows only the old).
    projects = {}
    for file_name in wheels:
        projects.setdefault(normalize(file_name.split("-")[0]), []).append(file_name)
    os.makedirs(os.path.join(out, "simple"), exist_ok=True)
    for project, files in projects.items():
        os.makedirs(os.path.join(out, "simple", project), exist_ok=True)
        links = []
        for file_name in files:
            with open(os.path.join(wheels_dir, file_name), "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()
            with open(os.path.join(wheels_dir, file_name + ".metadata"), "rb") as f:
                metadata_digest = hashlib.sha256(f.read()).hexdigest()
            attributes = ""
            if file_name in requires_python:
                attributes += f' data-requires-python="{html.escape(requires_python[file_name], quote=True)}"'
            attributes += (f' data-dist-info-metadata="sha256={metadata_digest}"'
                           f' data-core-metadata="sha256={metadata_digest}"')
            links.append(f'<a href="../../wheels/{file_name}#sha256={digest}"{attributes}>{file_name}</a><br>')
        with open(os.path.join(out, "simple", project, "index.html"), "w") as f:
            f.write("<!DOCTYPE html><html><body>\n" + "\n".join(links) + "\n</body></html>\n")
    with open(os.path.join(out, "simple", "index.html"), "w") as f:
        f.write("<!DOCTYPE html><html><body>\n"
                + "\n".join(f'<a href="{p}/">{p}</a><br>' for p in sorted(projects)) + "\n</body></html>\n")
    json.dump({"wheels": sorted(wheels), "dropped": dropped}, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
