// A full disk while the venv is made or pip installs is reported as a full disk, not as a missing
// python3-venv package or a mirror problem: by Python's own words when they reach the output, by
// the free space when venv only says that its ensurepip child failed. A machine whose python
// answers with canned output and whose disk has the given free space.

#include "install/installer.h"
#include "support/coroutinetest.h"
#include "support/shippedknowledge.h"
#include "support/wheellock.h"
#include "system/rootedsystem.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup;
using namespace tfsetup::test;
using namespace Qt::StringLiterals;

namespace {

constexpr qint64 MB = 1024 * 1024;

class FullDiskSystem final : public core::RootedSystem {
public:
    FullDiskSystem(QString root, QString failing, QByteArray output, qint64 free)
        : RootedSystem(std::move(root), core::OsFamily::Linux,
                       {{QStringLiteral("HOME"), QStringLiteral("/home/student")}})
        , m_failing(std::move(failing))
        , m_output(std::move(output))
        , m_free(free)
    {}
    std::optional<core::DiskSpace> diskSpace(const QString &) const override
    {
        return core::DiskSpace{m_free, QStringLiteral("disk")};
    }
    QCoro::Task<core::ProcessResult> run(QString program, QStringList arguments, std::chrono::milliseconds) override
    {
        core::ProcessResult r;
        r.started = true;
        const bool venv = arguments.value(1) == u"venv";
        if ((venv && m_failing == u"venv") || (!venv && m_failing == u"pip" && arguments.value(2) == u"install")) {
            r.exitCode = 1;
            r.standardError = m_output;
            co_return r;
        }
        if (venv) { // a venv with an interpreter, as python -m venv leaves it
            QDir().mkpath(arguments.value(2) + QStringLiteral("/bin"));
            QFile python(arguments.value(2) + QStringLiteral("/bin/python"));
            python.open(QIODevice::WriteOnly);
        }
        Q_UNUSED(program);
        r.exitCode = 0;
        co_return r;
    }

private:
    QString m_failing;
    QByteArray m_output;
    qint64 m_free;
};

} // namespace

class TestVenvSpace : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void fullDiskIsNamed_data()
    {
        QTest::addColumn<QString>("failing");
        QTest::addColumn<QByteArray>("output");
        QTest::addColumn<qint64>("free");
        QTest::addColumn<QString>("code");
        const QByteArray ensurepip = "Error: Command '['/home/student/envs/.tf.staging-x/venv/bin/python3', '-m', "
                                     "'ensurepip', '--upgrade', '--default-pip']' returned non-zero exit status 1.\n";
        QTest::newRow("venv: ensurepip failed, 20 MB free") << u"venv"_s << ensurepip << 20 * MB << u"disk_full"_s;
        QTest::newRow("venv: Errno 28 said, space free now")
            << u"venv"_s
            << QByteArray("OSError: [Errno 28] No space left on device: '/home/student/envs/.tf.staging-x/venv/lib'\n")
            << 50000 * MB << u"disk_full"_s;
        QTest::newRow("venv: ensurepip failed, space free") << u"venv"_s << ensurepip << 50000 * MB << u"venv_failed"_s;
        QTest::newRow("venv: python3-venv missing, 20 MB free")
            << u"venv"_s
            << QByteArray("The virtual environment was not created successfully because ensurepip is not\n"
                          "available.  On Debian/Ubuntu systems, you need to install the python3-venv\n")
            << 20 * MB << u"venv_failed"_s;
        QTest::newRow("pip: Errno 28")
            << u"pip"_s
            << QByteArray("ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device\n")
            << 50000 * MB << u"disk_full"_s;
        QTest::newRow("pip: another failure, space free")
            << u"pip"_s
            << QByteArray("ERROR: tinypkg-0.1-py3-none-any.whl is not a supported wheel on this platform.\n")
            << 50000 * MB << u"pip_failed"_s;
    }

    void fullDiskIsNamed()
    {
        QFETCH(QString, failing);
        QFETCH(QByteArray, output);
        QFETCH(qint64, free);
        QFETCH(QString, code);
        QTemporaryDir root;
        QVERIFY(QDir().mkpath(root.filePath(QStringLiteral("home/student"))));
        FullDiskSystem system(root.path(), failing, output, free);
        core::InstallSpec s;
        s.name = QStringLiteral("tf");
        s.prefix = QStringLiteral("/home/student/envs");
        s.route = QStringLiteral("linux-pip");
        s.tensorflow = QStringLiteral("0.1");
        s.pythonInterpreter = QStringLiteral("/usr/bin/python3");
        s.requirements = {QStringLiteral("tinypkg==0.1")};
        s.registerKernel = false;
        s.desktopEntry = false;
        // The verified wheel pip is to install (its contents do not matter: pip's answer is canned).
        const QString wheel = root.filePath(QStringLiteral("tinypkg-0.1-py3-none-any.whl"));
        QFile file(wheel);
        QVERIFY(file.open(QIODevice::WriteOnly) && file.write("PK") == 2);
        file.close();
        const LockedFiles locked = lockWheels({wheel});
        s.lock = locked.lock;
        s.artifacts = locked.artifacts;
        core::Installer installer(system, test::shippedKnowledge());
        const auto outcome = awaitTask(installer.install(s), std::chrono::seconds(60));
        QVERIFY(outcome);
        QVERIFY(!*outcome);
        QVERIFY2(outcome->error().code == code, qPrintable(outcome->error().code + u' ' + outcome->error().detail));
        if (code == u"disk_full")
            QVERIFY2(!outcome->error().message.contains(u"python3-venv"_s), qPrintable(outcome->error().message));
        // Nothing is left behind: no staging folder, no lock.
        QCOMPARE(QDir(root.filePath(QStringLiteral("home/student")))
                     .entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
                 QStringList{});
    }
};

QTEST_GUILESS_MAIN(TestVenvSpace)
#include "test_venvspace.moc"
