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

    for i, value in enumerate(["C:\\Users\\Zoë O'Brien\\tf env", "100% & (x86)!^ <a|b>", "Student\u2019s files",
                               "$HOME `x` \"q\" \\n", "/home/学生/环境", "a\nb", "%PATH%"]):
        put("quoting", f"value{i}", value)


if __name__ == "__main__":
    main()
