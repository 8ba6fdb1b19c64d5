#!/usr/bin/env python3
"""Writes the seed corpus of every fuzz target from the samples in tests/data and resources.

Seeds are committed; run this again after adding samples (it only adds and replaces files named
seed-*, so crash regressions committed beside them stay). Targets that read several formats take
a first byte that selects the reader, as in their source.
"""
import io
import json
import pathlib
import tarfile
import zipfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DATA = ROOT / "tests" / "data"
CORPUS = HERE / "corpus"


def put(target, name, data, selector=None):
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    if selector is not None:
        data = bytes([selector]) + data
    (folder / f"seed-{name}").write_bytes(data)


def files(pattern):
    return sorted(p for p in DATA.glob(pattern) if p.is_file())


def main():
    for p in files("gpu/smi/*") + files("gpu/linux-old-driver/.fixture/*.txt") + files("gpu/linux-old-driver/.fixture/*.csv"):
        put("nvidiasmi", p.parent.name + "-" + p.name, p.read_bytes())
    for p in files("fixtures/*/root/.fixture/nvidia-smi.txt"):
        put("nvidiasmi", p.parts[-4] + "-banner", p.read_bytes())

    groups = {
        0: files("parsers/os-release/*") + files("parsers/proc-version/*"),
        1: files("parsers/cpuinfo/*"),
        2: files("parsers/version-json/*") + files("parsers/version-txt/*"),
        3: files("parsers/cuda-h/*") + files("parsers/cudnn/*") + files("fixtures/*/root/**/patchlevel.h"),
        4: files("parsers/py-launcher/*"),
        5: files("parsers/pyvenv/*"),
    }
    for selector, paths in groups.items():
        for p in paths:
            put("versionparsers", f"{selector}-{p.parent.name}-{p.name}", p.read_bytes(), selector)
    names = ["v11.2", "cuda-11.8", "CUDA_PATH_V11_2", "libcudnn.so.8.6.0", "cudnn64_8.dll",
             "python-3.10.13-h966fe2a_0.json", "python310.dll", "python3.10"]
    for i, n in enumerate(names):
        put("versionparsers", f"6-name{i}", n, 6)
    put("versionparsers", "7-registry", "Windows 10 Pro\x0023H2\x0022631", 7)
    put("versionparsers", "5-probe", "3.10.11 64\n", 5)

    for p in files("manifests/*/*.json"):
        put("redistmanifest", p.parent.name + "-" + p.name, p.read_bytes())

    for p in files("solver/*.json"):
        put("hardwarereport", p.name, p.read_bytes())

    catalog = ROOT / "resources" / "catalog"
    for selector, name in enumerate(["tensorflow.json", "cuda.json", "libraries.json", "routes.json", "gpus.json",
                                     "sources.json"]):
        put("catalog", name, (catalog / name).read_bytes(), selector)
    put("catalog", "probe.json", (ROOT / "resources" / "verify" / "probe.json").read_bytes(), 6)

    for p in files("doctor/logs/*"):
        put("tflog", p.name, p.read_bytes())

    wheels = ["tensorflow-2.10.0-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
              "tensorflow-2.10.0-cp310-cp310-win_amd64.whl", "tensorflow-2.10.0-cp39-cp39-win_amd64.whl",
              "tensorflow-2.10.0-cp310-cp310-macosx_10_14_x86_64.whl", "tensorflow-2.10.0.tar.gz"]
    urls = [{"filename": w, "packagetype": "bdist_wheel" if w.endswith(".whl") else "sdist",
             "url": "https://files.example/" + w, "digests": {"sha256": "a" * 64}, "size": 10,
             "yanked": False} for w in wheels]
    put("pypi", "release", json.dumps({"urls": urls}, indent=1))

    for p in files("verify/environments/envs/*/environment.json"):
        put("records", "env-" + p.parent.name, p.read_bytes(), 0)
    put("records", "install-artifact", json.dumps({
        "kind": "cudnn-archive", "component": "cudnn", "version": "8.9.7.29", "platform": "linux-x86_64",
        "sha256": "b" * 64, "path": "/tmp/cudnn.tar.xz", "origin": "https://developer.download.nvidia.com/"}), 1)
    put("records", "artifact", json.dumps({
        "name": "cuda_cudart", "version": "11.8.89", "platform": "linux-x86_64", "kind": "cuda-redist-archive",
        "source": "nvidia-redist", "manifest": "redistrib_11.8.0.json", "archiveFormat": "tar.xz",
        "relativePath": "cuda_cudart/linux-x86_64/cuda_cudart-linux-x86_64-11.8.89-archive.tar.xz",
        "urls": ["https://developer.download.nvidia.com/compute/cuda/redist/x.tar.xz"], "sha256": "c" * 64,
        "size": 1000, "trust": "official"}), 2)
    for p in files("verify/smoke/*.json"):
        put("records", "smoke-" + p.name, p.read_bytes(), 4)
    for i, spec in enumerate(["https://mirror.example/nvidia", "/srv/bundle/nvidia", "file:///srv/bundle/nvidia",
                              "python=https://mirror.example/python", "pypi=tuna", "pypi=https://pypi.example/simple"]):
        put("records", f"mirror{i}", spec, 5)

    put("bundle", "bundle.json", json.dumps({
        "format": "tfsetup-bundle", "schema": 1, "route": "linux-toolkit", "tensorflow": "2.15.0", "os": "linux",
        "artifacts": [], "warnings": [{"code": "x", "message": "y"}],
        "files": [{"file": "nvidia/compute/cuda/redist/cuda_cudart/linux-x86_64/a.tar.xz", "artifact": "cuda_cudart",
                   "sha256": "d" * 64, "size": 3},
                  {"file": "wheelhouse/requirements.txt", "artifact": "wheelhouse", "md5": "e" * 32, "size": 1}]},
        indent=1))

    def tar(entries, mode):
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode=mode) as t:
            for name, kind, payload in entries:
                info = tarfile.TarInfo(name)
                if kind == "dir":
                    info.type = tarfile.DIRTYPE
                    t.addfile(info)
                elif kind in ("sym", "hard"):
                    info.type = tarfile.SYMTYPE if kind == "sym" else tarfile.LNKTYPE
                    info.linkname = payload
                    t.addfile(info)
                else:
                    info.size = len(payload)
                    t.addfile(info, io.BytesIO(payload))
        return buffer.getvalue()

    top = "cuda_cudart-linux-x86_64-11.8.89-archive"
    nvidia = [(top, "dir", None), (top + "/lib", "dir", None),
              (top + "/lib/libcudart.so.11.8.89", "file", b"\x7fELF"),
              (top + "/lib/libcudart.so.11.0", "sym", "libcudart.so.11.8.89"),
              (top + "/include/cuda_runtime.h", "file", b"#pragma once\n"),
              (top + "/LICENSE", "file", b"license\n")]
    put("archive", "nvidia.tar.xz", tar(nvidia, "w:xz"))
    put("archive", "nvidia.tgz", tar(nvidia, "w:gz"))
    put("archive", "slip.tar", tar([("../escape", "file", b"x"), ("a/../../b", "file", b"y")], "w"))
    put("archive", "link-out.tar", tar([("l", "sym", "/etc"), ("l/passwd", "file", b"x"),
                                        ("m", "sym", "../.."), ("h", "hard", "/etc/passwd")], "w"))
    zbuffer = io.BytesIO()
    with zipfile.ZipFile(zbuffer, "w") as z:
        z.writestr("cudnn-windows-x86_64-8.9.7.29_cuda12-archive/bin/cudnn64_8.dll", b"MZ")
        z.writestr("cudnn-windows-x86_64-8.9.7.29_cuda12-archive/include/cudnn_version.h", b"#define CUDNN_MAJOR 8\n")
        z.writestr("C:/abs.txt", b"x")
        z.writestr("..\\win-slip.txt", b"x")
    put("archive", "cudnn.zip", zbuffer.getvalue())

    placement = [
        "F" + top + "/lib/libcudart.so.11.8.89", "L" + top + "/lib/libcudart.so.11.0", "D" + top + "/include",
        "F" + top + "/include/cuda_runtime.h", "F" + top + "/LICENSE"]
    put("placement", "cudart-linux", "\n".join(placement), 8)
    cudnn = "cudnn-windows-x86_64-8.9.7.29_cuda12-archive"
    put("placement", "cudnn-windows", "\n".join(["F" + cudnn + "/bin/cudnn64_8.dll", "F" + cudnn + "/bin/CUDNN64_8.DLL",
                                                 "F" + cudnn + "/include/cudnn_version.h",
                                                 "F" + cudnn + "/lib/x64/cudnn.lib"]), 8)

    probe_kinds()

    for i, value in enumerate(["C:\\Users\\Zoë O'Brien\\tf env", "100% & (x86)!^ <a|b>", "Student\u2019s files",
                               "$HOME `x` \"q\" \\n", "/home/学生/环境", "a\nb", "%PATH%"]):
        put("quoting", f"value{i}", value)


def nested(depth, leaf="x"):
    """A JSON text of depth nested arrays (Qt's reader stops at 1024)."""
    return "[" * depth + json.dumps(leaf) + "]" * depth


def probe_kinds():
    """The kinds of input the issue 13 probe used against every document's shape check: a field of
    another type ("files": {}, "artifacts": "nope"), names and paths with "..", an undefined
    ${VARIABLE}, huge arrays, deep nesting, NUL bytes. Each document's reader must refuse them with
    a message naming the field, or accept only what stays confined."""
    # Just past each list's limit (profiles: 1000 requirements; records: 1000 launchers; bundles:
    # 1000 URLs per artifact; hardware reports: 64 GPUs), small enough to commit.

    # Lab profiles, read on Linux (selector 0) and on Windows (1).
    example = json.loads((ROOT / "resources" / "profiles" / "example-lab.json").read_text())
    def profile(name, selector=0, **changes):
        doc = json.loads(json.dumps(example))
        for key, value in changes.items():
            target = doc
            parts = key.split("__")
            for part in parts[:-1]:
                target = target.setdefault(part, {})
            target[parts[-1]] = value
        put("labprofile", name, json.dumps(doc, indent=1), selector)
    profile("example-linux")
    profile("example-windows", 1, installFolder="${USERPROFILE}\\tf-envs")
    profile("example-appdata", 1, installFolder="${APPDATA}/tf-envs", kernel={"name": "lab", "register": False})
    profile("lock-beside", requirementsLock="requirements.lock.txt")
    profile("lock-outside", requirementsLock="../../../../etc/hostname")
    profile("undefined-variable", installFolder="${UNDEFINED}/envs")
    profile("undefined-on-linux", installFolder="${USERPROFILE}/envs")
    profile("tilde", installFolder="~/tf-envs")
    profile("relative-folder", installFolder="tf-envs")
    profile("dotdot-folder", installFolder="${HOME}/../../etc")
    profile("nul-folder", installFolder="${HOME}/tf\u0000envs")
    profile("newline-folder", installFolder="${HOME}/tf\nenvs")
    profile("environment-dotdot", environment="../escape")
    profile("environment-dot", environment="..")
    profile("environment-device", 1, environment="CON")
    profile("environment-nul", environment="tf\u0000lab")
    profile("kernel-dotdot", kernel={"name": "../../kernels/x"})
    profile("kernel-slash", kernel={"name": "a/b"})
    profile("files-object", plan__requirements={})
    profile("artifacts-nope", plan="nope")
    profile("mirrors-nope", mirrors={"pypi": "nope", "trustedHosts": {}})
    profile("jupyter-number", jupyter=7)
    profile("jupyter-unknown", jupyter="bogus")
    profile("schema-text", schema="1")
    profile("huge-requirements", plan__requirements=["numpy"] * 1500)
    profile("huge-title", title="x" * 1500)
    put("labprofile", "deep-nesting", '{"schema": 1, "environment": "tf", "installFolder": "/x", "plan": '
        '{"route": "linux-pip", "requirements": ' + nested(2000) + '}}', 0)
    put("labprofile", "deep-nesting-in-limit", '{"schema": 1, "environment": "tf", "installFolder": "/x", '
        '"title": ' + nested(1000) + ', "plan": {"route": "r", "requirements": ["a"]}}', 0)
    put("labprofile", "nul-bytes", b'{"schema": 1, "environment": "tf\x00", "installFolder": "/x\x00/y"}', 0)

    # Environment records (fuzz_records, selector 0).
    record = {"schema": 1, "name": "tf", "os": "linux", "plan": {"kernel_name": "tf", "artifacts": []},
              "files": [{"path": "cuda/lib/libcudart.so.12", "sha256": "a" * 64, "size": 1, "origin": "x"}],
              "launchers": ["start-python"], "kernel_folder": "/home/student/.local/share/jupyter/kernels/tf"}
    def env(name, **changes):
        doc = json.loads(json.dumps(record))
        doc.update(changes)
        put("records", "probe-" + name, json.dumps(doc), 0)
    env("valid")
    env("files-object", files={})
    env("artifacts-nope", plan={"artifacts": "nope", "kernel_name": "../x"})
    env("path-dotdot", files=[{"path": "../../.bashrc", "sha256": "a" * 64}])
    env("path-absolute", files=[{"path": "/etc/passwd", "sha256": "a" * 64}])
    env("launcher-dotdot", launchers=["../start-python"])
    env("kernel-folder-dotdot", kernel_folder="/home/student/.local/share/jupyter/kernels/../../../../.ssh")
    env("kernel-folder-elsewhere", kernel_folder="/etc/kernels/tf")
    env("kernel-folder-variable", kernel_folder="${UNDEFINED}/envs")
    env("nul-path", files=[{"path": "cuda/lib\u0000/x", "sha256": "a" * 64}])
    env("huge-launchers", launchers=["start-python"] * 1500)
    env("size-text", files=[{"path": "f", "sha256": "a" * 64, "size": "12"}])
    put("records", "probe-deep-nesting", '{"schema": 1, "files": [], "plan": {"x": ' + nested(2000) + '}}', 0)

    # Offline bundles' bundle.json.
    bundle = json.loads((CORPUS / "bundle" / "seed-bundle.json").read_text())
    def bundle_seed(name, **changes):
        doc = json.loads(json.dumps(bundle))
        doc.update(changes)
        put("bundle", "probe-" + name, json.dumps(doc))
    bundle_seed("files-object", files={})
    bundle_seed("artifacts-nope", artifacts="nope")
    bundle_seed("file-dotdot", files=[{"file": "../../.bashrc", "artifact": "x", "sha256": "d" * 64, "size": 1}])
    bundle_seed("file-absolute", files=[{"file": "/etc/passwd", "artifact": "x", "sha256": "d" * 64, "size": 1}])
    bundle_seed("file-nul", files=[{"file": "nvidia/a\u0000.tar.xz", "artifact": "x", "sha256": "d" * 64, "size": 1}])
    bundle_seed("huge-urls", artifacts=[{"name": "x", "kind": "cuda-redist-archive", "urls": ["https://a/"] * 1500}])
    put("bundle", "probe-deep-nesting", '{"format": "tfsetup-bundle", "schema": 1, "files": ' + nested(2000) + '}')

    # Hardware reports (plan --hardware).
    put("hardwarereport", "probe-gpus-object", json.dumps({"os": {"family": "linux"}, "gpus": {}}))
    put("hardwarereport", "probe-gpus-nope", json.dumps({"os": "nope", "gpus": "nope", "pythons": {}}))
    put("hardwarereport", "probe-huge-gpus", json.dumps({"gpus": [{"vendor": "nvidia", "name": "x"}] * 100}))
    put("hardwarereport", "probe-nul-name", json.dumps({"gpus": [{"vendor": "nvidia", "name": "RTX\u0000 3060",
                                                                 "compute_capability": "8.6\u0000"}]}))
    put("hardwarereport", "probe-deep-nesting", '{"gpus": ' + nested(2000) + '}')

    # NVIDIA redist manifests.
    cudart = {"name": "CUDA Runtime", "license": "CUDA Toolkit", "version": "12.2.140",
              "linux-x86_64": {"relative_path": "cuda_cudart/linux-x86_64/a.tar.xz", "sha256": "a" * 64,
                               "md5": "b" * 32, "size": "1000"}}
    def manifest(name, component):
        put("redistmanifest", "probe-" + name, json.dumps({"release_date": "2023-10-01", "cuda_cudart": component}))
    manifest("valid", cudart)
    manifest("path-dotdot", dict(cudart, **{"linux-x86_64": dict(cudart["linux-x86_64"], relative_path="../../x")}))
    manifest("platform-nope", dict(cudart, **{"linux-x86_64": "nope"}))
    manifest("component-list", [])
    manifest("size-huge", dict(cudart, **{"linux-x86_64": dict(cudart["linux-x86_64"], size="1e400")}))
    manifest("nul-path", dict(cudart, **{"linux-x86_64": dict(cudart["linux-x86_64"], relative_path="a\u0000/b")}))
    put("redistmanifest", "probe-huge-components",
        json.dumps({"c%d" % i: cudart for i in range(300)}))
    put("redistmanifest", "probe-deep-nesting", '{"cuda_cudart": ' + nested(2000) + '}')

    # What a killed install or repair left (fuzz_worklock): 0 the work record, 1 a staging folder's
    # commit journal, 2 its owner marker. The harness's staging folder is .tf.staging-repair-fz with
    # the id below, holds files/, old/ and a link lnk to a folder outside; the environment holds a
    # link linkdir to the same folder.
    own = "0123456789abcdef0123456789abcdef"
    def work(name, folders):
        put("worklock", "work-" + name, json.dumps({"folders": folders}), 0)
    work("own", [{"name": ".tf.staging-repair-fz", "id": own, "role": "staging"}])
    work("previous", [{"name": ".tf.staging-repair-fz", "id": own, "role": "previous"}])
    work("look-alike", [{"name": ".tf.staging-keep", "id": own, "role": "staging"}])
    work("other-environment", [{"name": ".other.staging-fz", "id": "fedcba9876543210fedcba9876543210",
                                "role": "staging"}])
    work("dotdot", [{"name": ".tf.../victim", "id": own, "role": "staging"},
                    {"name": "../victim", "id": own, "role": "previous"}])
    work("the-environment", [{"name": "tf", "id": own, "role": "previous"}])
    work("nul-name", [{"name": ".tf.staging-repair-fz\u0000", "id": own, "role": "staging"}])
    work("huge", [{"name": ".tf.staging-repair-fz", "id": own, "role": "staging"}] * 200)
    put("worklock", "work-folders-object", '{"folders": {}}', 0)
    put("worklock", "work-folders-nope", '{"folders": "nope"}', 0)
    put("worklock", "work-deep-nesting", '{"folders": ' + nested(2000) + '}', 0)
    def journal(name, renames):
        put("worklock", "journal-" + name, json.dumps({"renames": renames}), 1)
    journal("repair", [{"path": "start-python", "staged": "files/start-python", "keepOld": True},
                       {"path": "cuda/bin/libcudart.so", "staged": "files/cuda/bin/libcudart.so"}])
    journal("relink", [{"path": "cuda/bin/libcudart.so", "staged": ""}])
    journal("path-dotdot", [{"path": "../../victim/secret.txt", "staged": "files/start-python"}])
    journal("staged-dotdot", [{"path": "cuda/bin/libcudart.so", "staged": "../../victim/secret.txt"}])
    journal("through-env-link", [{"path": "linkdir/secret.txt", "staged": "files/start-python"}])
    journal("through-staging-link", [{"path": "cuda/bin/libcudart.so", "staged": "lnk/secret.txt"}])
    journal("absolute", [{"path": "/etc/passwd", "staged": "/etc/passwd"}])
    journal("nul", [{"path": "start-python\u0000x", "staged": "files/start-python"}])
    journal("types", [{"path": 7, "staged": {}, "keepOld": "yes"}])
    journal("huge", [{"path": "start-python", "staged": "files/start-python", "keepOld": True}] * 200)
    put("worklock", "journal-renames-object", '{"renames": {}}', 1)
    put("worklock", "journal-deep-nesting", '{"renames": ' + nested(2000) + '}', 1)
    for name, marker in [("own", own), ("own-newline", own + "\n"), ("other", "f" * 32), ("empty", ""),
                         ("own-then-more", own + " " * 33 + "x"), ("nul", own + "\x00")]:
        put("worklock", "marker-" + name, marker, 2)

if __name__ == "__main__":
    main()
