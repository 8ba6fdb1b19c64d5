#include "support/files.h"

#include <QFile>
#include <QProcess>

using namespace Qt::StringLiterals;

namespace tfsetup::test {

QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool buildWheel(const QString &python, const QString &path, const QString &distribution, const QString &version,
                const QByteArray &module, const QString &package)
{
    return buildWheel(python, path, distribution, version, module, package, {}, {});
}

bool buildWheel(const QString &python, const QString &path, const QString &distribution, const QString &version,
                const QByteArray &module, const QString &package, const QStringList &requiresDist,
                const QString &requiresPython)
{
    const QString script = uR"(
import base64, hashlib, sys, zipfile
path, dist, version, module, package = sys.argv[1], sys.argv[2], sys.argv[3], open(sys.argv[4], "rb").read(), sys.argv[5]
requires_python, requires_dist = sys.argv[6], sys.argv[7:]
info = f"{dist}-{version}.dist-info"
metadata = f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n"
if requires_python:
  metadata += f"Requires-Python: {requires_python}\n"
metadata += "".join(f"Requires-Dist: {r}\n" for r in requires_dist)
files = {
  f"{package}/__init__.py": module,
  f"{info}/METADATA": metadata.encode(),
  f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
record = []
with zipfile.ZipFile(path, "w") as z:
  for name, data in files.items():
    z.writestr(name, data)
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    record.append(f"{name},sha256={digest},{len(data)}")
  record.append(f"{info}/RECORD,,")
  z.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
)"_s;
    const QString modulePath = path + u".module.py"_s;
    QFile m(modulePath);
    if (!m.open(QIODevice::WriteOnly) || m.write(module) != module.size())
        return false;
    m.close();
    QProcess p;
    p.start(python,
            QStringList{u"-c"_s, script, path, distribution, version, modulePath, package, requiresPython}
                + requiresDist);
    return p.waitForFinished(60000) && p.exitCode() == 0;
}

bool buildLargeWheel(const QString &python, const QString &path, const QString &distribution, const QString &version,
                     qint64 bytes)
{
    // Every entry is stored with a fixed date, so the size is computed exactly and the same
    // arguments give the same bytes. The payload is streamed: memory stays flat for any size.
    const QString script = uR"(
import base64, hashlib, random, re, sys, zipfile
path, dist, version, size = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
package = re.sub(r"[-_.]+", "_", dist).lower()
info = f"{re.sub(r'[-_.]+', '_', dist)}-{version}.dist-info"
payload_name = f"{package}/_payload.bin"
small = {
  f"{package}/__init__.py": f'__version__ = "{version}"\n'.encode(),
  f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n".encode(),
  f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
def b64(digest):
  return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
def record_text(payload_size, payload_digest):
  lines = [f"{n},sha256={b64(hashlib.sha256(d).digest())},{len(d)}" for n, d in small.items()]
  lines.append(f"{payload_name},sha256={payload_digest},{payload_size}")
  lines.append(f"{info}/RECORD,,")
  return ("\n".join(lines) + "\n").encode()
def entry(name, length):  # local header + data + central directory record, no extras
  return 30 + 46 + 2 * len(name.encode()) + length
fixed = 22 + sum(entry(n, len(d)) for n, d in small.items()) + entry(payload_name, 0)
n = 0
for _ in range(3):  # the payload's size appears in RECORD: settle its digit count
  record_size = len(record_text(n, "x" * 43))
  n = max(0, size - fixed - entry(f"{info}/RECORD", record_size))
if n * 1.05 > zipfile.ZIP64_LIMIT:
  sys.exit("too large for a wheel without zip64 records")
def info_for(name, length):
  z = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
  z.external_attr = 0o644 << 16
  z.file_size = length
  return z
generator = random.Random(f"{dist}-{version}")
digest = hashlib.sha256()
with zipfile.ZipFile(path, "w") as z:
  for name, data in small.items():
    z.writestr(info_for(name, len(data)), data)
  with z.open(info_for(payload_name, n), "w") as out:
    left = n
    while left:
      chunk = generator.randbytes(min(left, 1 << 20))
      digest.update(chunk)
      out.write(chunk)
      left -= len(chunk)
  record = record_text(n, b64(digest.digest()))
  z.writestr(info_for(f"{info}/RECORD", len(record)), record)
)"_s;
    QProcess p;
    p.start(python, {u"-c"_s, script, path, distribution, version, QString::number(bytes)});
    return p.waitForFinished(300000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
}

QByteArray wheelMetadata(const QString &wheelPath)
{
    // PEP 427: exactly one top-level *.dist-info folder holds METADATA.
    const QString script = uR"(
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
  names = [n for n in z.namelist() if n.count("/") == 1 and n.endswith(".dist-info/METADATA")]
  if len(names) != 1:
    sys.exit(1)
  sys.stdout.buffer.write(z.read(names[0]))
)"_s;
    QProcess p;
    p.start(u"/usr/bin/python3"_s, {u"-I"_s, u"-S"_s, u"-c"_s, script, wheelPath});
    if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
        return {};
    return p.readAllStandardOutput();
}

} // namespace tfsetup::test
