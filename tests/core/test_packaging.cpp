// `cmake --install` lays out a proper application, and CPack turns it into a .deb.

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

namespace {

struct Run {
    int exitCode = -1;
    QByteArray output;
};

Run run(const QString &program, const QStringList &arguments, int timeoutMs = 300'000)
{
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(program, arguments);
    if (!p.waitForFinished(timeoutMs))
        return {-1, "timed out: " + p.readAll()};
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAll()};
}

} // namespace

class TestPackaging : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        m_buildDir = qEnvironmentVariable("TFSETUP_BUILD_DIR");
        if (m_buildDir.isEmpty() || !QFile::exists(m_buildDir + QStringLiteral("/CPackConfig.cmake")))
            QSKIP("TFSETUP_BUILD_DIR does not point at a configured build");
        QVERIFY(m_dir.isValid());
    }

    void install_laysOutTheApplication()
    {
        const QString prefix = m_dir.filePath(QStringLiteral("prefix"));
        const Run install = run(QStringLiteral("cmake"), {QStringLiteral("--install"), m_buildDir, QStringLiteral("--prefix"), prefix});
        QVERIFY2(install.exitCode == 0, install.output.constData());
        for (const char *path : {"bin/tfsetup", "share/applications/io.github.tfsetup.tfsetup.desktop",
                                 "share/metainfo/io.github.tfsetup.tfsetup.metainfo.xml",
                                 "share/icons/hicolor/scalable/apps/io.github.tfsetup.tfsetup.svg", "share/doc/tfsetup/README.md"}) {
            QVERIFY2(QFile::exists(prefix + u'/' + QLatin1String(path)), path);
        }
        // The installed program runs from anywhere: resources and translations are inside it.
        const Run version = run(prefix + QStringLiteral("/bin/tfsetup"), {QStringLiteral("--version")});
        QCOMPARE(version.exitCode, 0);
        QVERIFY(version.output.startsWith("tfsetup "));

        const QString validator = QStandardPaths::findExecutable(QStringLiteral("desktop-file-validate"));
        if (!validator.isEmpty()) {
            const Run check = run(validator, {prefix + QStringLiteral("/share/applications/io.github.tfsetup.tfsetup.desktop")});
            QVERIFY2(check.exitCode == 0, check.output.constData());
        }
        const QString appstream = QStandardPaths::findExecutable(QStringLiteral("appstreamcli"));
        if (!appstream.isEmpty()) {
            const Run check = run(appstream, {QStringLiteral("validate"), QStringLiteral("--no-net"),
                                              prefix + QStringLiteral("/share/metainfo/io.github.tfsetup.tfsetup.metainfo.xml")});
            QVERIFY2(check.exitCode == 0, check.output.constData());
        }
    }

    void cpack_buildsADebianPackage()
    {
        if (QStandardPaths::findExecutable(QStringLiteral("dpkg-deb")).isEmpty())
            QSKIP("dpkg-deb is not installed");
        const QString out = m_dir.filePath(QStringLiteral("packages"));
        const Run pack = run(QStringLiteral("cpack"), {QStringLiteral("-G"), QStringLiteral("DEB"), QStringLiteral("-B"), out,
                                                       QStringLiteral("--config"), m_buildDir + QStringLiteral("/CPackConfig.cmake")});
        QVERIFY2(pack.exitCode == 0, pack.output.constData());
        const QStringList debs = QDir(out).entryList({QStringLiteral("*.deb")});
        QCOMPARE(debs.size(), 1);
        const Run contents = run(QStringLiteral("dpkg-deb"), {QStringLiteral("-c"), out + u'/' + debs.first()});
        QVERIFY(contents.output.contains("./usr/bin/tfsetup"));
        QVERIFY(contents.output.contains("io.github.tfsetup.tfsetup.desktop"));
        const Run fields = run(QStringLiteral("dpkg-deb"), {QStringLiteral("-f"), out + u'/' + debs.first(), QStringLiteral("Depends")});
        QVERIFY2(fields.output.contains("libqt6widgets6"), fields.output.constData());
    }

private:
    QString m_buildDir;
    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestPackaging)
#include "test_packaging.moc"
