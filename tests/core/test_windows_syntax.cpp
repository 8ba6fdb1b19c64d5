// The *_win.cpp files are compiled only on Windows, so on a Linux build nothing would notice a
// typo in them. This test runs the MinGW-w64 cross compiler over them in syntax-only mode with
// the include paths and definitions the core library itself is built with (taken from
// compile_commands.json), and skips when the cross compiler is not installed
// (Debian/Ubuntu: g++-mingw-w64-x86-64).

#include <QCoreApplication>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTest>

namespace {

QString findCompileCommands()
{
    QDir dir(QCoreApplication::applicationDirPath());
    do {
        if (dir.exists(QStringLiteral("compile_commands.json")))
            return dir.filePath(QStringLiteral("compile_commands.json"));
    } while (dir.cdUp());
    return {};
}

// -I, -isystem, -D and -std flags of the command that compiled a core source file.
QStringList coreFlags(const QString &compileCommands)
{
    QFile f(compileCommands);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const QJsonArray entries = QJsonDocument::fromJson(f.readAll()).array();
    for (const QJsonValue &v : entries) {
        const QJsonObject entry = v.toObject();
        if (!entry.value(QLatin1String("file")).toString().endsWith(QLatin1String("wizard/core/system/realsystem.cpp")))
            continue;
        const QStringList args = QProcess::splitCommand(entry.value(QLatin1String("command")).toString());
        QStringList flags;
        for (qsizetype i = 0; i < args.size(); ++i) {
            const QString &a = args.at(i);
            if (a == u"-isystem" && i + 1 < args.size()) {
                flags << a << args.at(++i);
            } else if (a.startsWith(QLatin1String("-I")) || a.startsWith(QLatin1String("-D"))
                       || a.startsWith(QLatin1String("-std=")) || a == u"-fcoroutines") {
                flags << a;
            }
        }
        return flags;
    }
    return {};
}

} // namespace

class TestWindowsSyntax : public QObject {
    Q_OBJECT

private slots:
    void windowsSourcesCompile_data()
    {
        QTest::addColumn<QString>("source");
        const QDir core(qEnvironmentVariable("TFSETUP_SOURCE_DIR") + QLatin1String("/wizard/core"));
        QDirIterator it(core.path(), {QStringLiteral("*_win.cpp")}, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            QTest::newRow(qPrintable(core.relativeFilePath(path))) << path;
        }
    }

    void windowsSourcesCompile()
    {
        const QString compiler = QStandardPaths::findExecutable(QStringLiteral("x86_64-w64-mingw32-g++"));
        if (compiler.isEmpty())
            QSKIP("x86_64-w64-mingw32-g++ is not installed (package g++-mingw-w64-x86-64)");
        const QString commands = findCompileCommands();
        QVERIFY2(!commands.isEmpty(), "compile_commands.json not found above the test executable");
        const QStringList flags = coreFlags(commands);
        QVERIFY2(!flags.isEmpty(), "no compile command for wizard/core/system/realsystem.cpp");

        QFETCH(QString, source);
        QProcess gcc;
        gcc.setProcessChannelMode(QProcess::MergedChannels);
        gcc.start(compiler, QStringList{QStringLiteral("-fsyntax-only"), QStringLiteral("-Wall"),
                                        QStringLiteral("-Wextra"), QStringLiteral("-Werror")}
                                + flags + QStringList{source});
        QVERIFY(gcc.waitForStarted());
        QVERIFY2(gcc.waitForFinished(240'000), "the cross compiler did not finish");
        const QByteArray output = gcc.readAll();
        QVERIFY2(gcc.exitStatus() == QProcess::NormalExit && gcc.exitCode() == 0, output.constData());
    }
};

QTEST_GUILESS_MAIN(TestWindowsSyntax)
#include "test_windows_syntax.moc"
