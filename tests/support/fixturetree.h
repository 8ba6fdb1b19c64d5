#pragma once

// Fixture trees built in code: a temporary folder filled from a compact description, plus the
// env file and .fixture/system.json that RootedSystem reads (see wizard/core/system/rootedsystem.h).
//
//     using namespace Qt::Literals::StringLiterals;
//     tfsetup::test::FixtureTree tree;
//     QVERIFY(tree.write({
//         {u"C/Windows/System32/nvcuda.dll"_s, "MZ"},
//         {u"C/Program Files/NVIDIA Corporation/"_s, {}},     // trailing '/': an empty folder
//     }));
//     QVERIFY(tree.writeEnv({{u"PATH"_s, u"C:\\Windows\\System32"_s}}));
//     QVERIFY(tree.writeSystem(SystemDescription().arch(u"x86_64"_s)
//                                  .registry(u"HKLM\\SOFTWARE\\Vendor\\Product"_s, u"Version"_s, u"1.0"_s)
//                                  .command(u"nvidia-smi"_s, {u"--query-gpu=name"_s, u"*"_s}, "GPU\n")));
//     auto view = tree.open(tfsetup::core::OsFamily::Windows);   // a RootedSystem over the tree
//
// Failures are reported with qWarning (what, path and reason) and a false return, so a test can
// QVERIFY the call and read why in the log. Paths in descriptions must be relative and stay
// inside the tree ("..", absolute paths are refused).

#include "system/rootedsystem.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <memory>
#include <utility>

namespace tfsetup::test {

// Relative path ('/'-separated) → contents. A path ending in '/' is an empty folder.
using TreeEntries = QList<std::pair<QString, QByteArray>>;
// Environment in the order written (PATH order matters to readers of the file).
using EnvEntries = QList<std::pair<QString, QString>>;

// Builder for ROOT/.fixture/system.json.
class SystemDescription {
public:
    SystemDescription &arch(const QString &arch);
    // A registry value: text, number (qint64) or multi-string (QStringList).
    SystemDescription &registry(const QString &key, const QString &name, const QString &text);
    SystemDescription &registry(const QString &key, const QString &name, qint64 number);
    SystemDescription &registry(const QString &key, const QString &name, const QStringList &multi);
    SystemDescription &cpuid(const tfsetup::core::CpuIdFeatures &features);
    // A canned command. args empty matches any arguments; "*" as the last one matches any rest.
    SystemDescription &command(const QString &program, const QStringList &args, const QByteArray &standardOutput,
                               int exitCode = 0, const QByteArray &standardError = {});
    // A command whose output is a file under ROOT/.fixture (write it with FixtureTree::write).
    SystemDescription &commandFromFile(const QString &program, const QStringList &args, const QString &stdoutFile,
                                       int exitCode = 0);
    SystemDescription &commandTimesOut(const QString &program, const QStringList &args = {});

    QJsonObject toJson() const { return m_json; }

private:
    SystemDescription &addCommand(QJsonObject command, const QStringList &args);
    QJsonObject m_json;
};

class FixtureTree {
public:
    // A fresh, empty temporary folder, removed when the tree is destroyed.
    FixtureTree();
    Q_DISABLE_COPY_MOVE(FixtureTree)

    bool isValid() const { return m_dir.isValid(); }
    QString path() const { return m_dir.path(); }
    // Absolute host path of a relative fixture path.
    QString filePath(const QString &relative) const;

    bool write(const TreeEntries &entries);
    bool write(const QString &relative, const QByteArray &contents);
    bool mkdir(const QString &relative);
    // Writes KEY=VALUE lines to ROOT/<relative> (default "env"); returns false on failure.
    bool writeEnv(const EnvEntries &environment, const QString &relative = QStringLiteral("env"));
    bool writeSystem(const SystemDescription &description);

    // A RootedSystem over this tree, with the env file written by writeEnv (if any).
    std::unique_ptr<tfsetup::core::RootedSystem> open(tfsetup::core::OsFamily os) const;

private:
    QTemporaryDir m_dir;
    QString m_envFile;
};

// Free-standing versions, for trees that are not temporary (e.g. a folder inside another fixture).
bool writeTree(const QString &root, const TreeEntries &entries);
bool writeEnvFile(const QString &path, const EnvEntries &environment);
bool writeSystemJson(const QString &root, const QJsonObject &description);

} // namespace tfsetup::test
