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
    const QString script = uR"(
import base64, hashlib, sys, zipfile
path, dist, version, module, package = sys.argv[1], sys.argv[2], sys.argv[3], open(sys.argv[4], "rb").read(), sys.argv[5]
info = f"{dist}-{version}.dist-info"
files = {
  f"{package}/__init__.py": module,
  f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n".encode(),
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
    p.start(python, {u"-c"_s, script, path, distribution, version, modulePath, package});
    return p.waitForFinished(60000) && p.exitCode() == 0;
}

} // namespace tfsetup::test
