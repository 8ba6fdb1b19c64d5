// The doctor's Jupyter kernel check never reports tfsetup's own kernel as a mismatch: a kernel
// that runs the examined environment's Python (its venv bin/python links out of the folder, and
// kernel.json says bin/python where the environment is examined through bin/python3), or one an
// environment tfsetup made registered (its record's kernel folder, found through the index of
// environments even when the environment lives outside the default folder). A kernel of
// another Python that overrides the library path is still reported.

#include "catalog/knowledge.h"
#include "doctor/systemscan.h"
#include "setup/environments.h"
#include "system/rootedsystem.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup::core;
using namespace Qt::Literals::StringLiterals;

namespace {

const QString environment = u"/data/courses/tf215"_s; // outside the default folder
const QString home = u"/home/student"_s;

bool write(const QString &path, const QByteArray &bytes)
{
    if (!QDir().mkpath(QFileInfo(path).absolutePath()))
        return false;
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

bool link(const QString &target, const QString &path)
{
    return QDir().mkpath(QFileInfo(path).absolutePath()) && QFile::link(target, path);
}

QStringList kernelFindings(const QList<DoctorFinding> &findings)
{
    QStringList ids;
    for (const DoctorFinding &f : findings) {
        if (f.cause == u"jupyter_kernel_mismatch")
            ids.append(f.id);
    }
    ids.sort();
    return ids;
}

} // namespace

class TestDoctorOwnKernel final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();
    void examinedEnvironment_ownKernelIsNoMismatch();
    void noEnvironment_ownKernelKnownFromTheRecord();
    void sameInterpreterFile_isTheEnvironment();
    void tfsetupLayout_kernelOfTheVenvIsTheEnvironments_data();
    void tfsetupLayout_kernelOfTheVenvIsTheEnvironments();

private:
    QList<DoctorFinding> scan(const QString &envDir);

    std::unique_ptr<QTemporaryDir> m_root;
    std::unique_ptr<RootedSystem> m_system;
};

void TestDoctorOwnKernel::init()
{
    m_root = std::make_unique<QTemporaryDir>();
    QVERIFY(m_root->isValid());
    const QString root = m_root->path();
    // A system Python on PATH (what a terminal's python3 is), and a tfsetup venv whose
    // interpreter links to it, as `python -m venv` makes it.
    QVERIFY(write(root + u"/usr/bin/python3.11"_s, "#!ELF"));
    QVERIFY(link(u"python3.11"_s, root + u"/usr/bin/python3"_s));
    const QString env = root + environment;
    QVERIFY(write(env + u"/pyvenv.cfg"_s, "home = /usr/bin\nversion = 3.11.2\n"));
    QVERIFY(link(u"../../../../usr/bin/python3.11"_s, env + u"/bin/python"_s));
    QVERIFY(link(u"python"_s, env + u"/bin/python3"_s));
    const QString kernels = home + u"/.local/share/jupyter/kernels"_s;
    QVERIFY(write(env + u"/environment.json"_s,
                  (u"{\"schema\": 1, \"name\": \"tf215\", \"os\": \"linux\", \"files\": [], \"kernel_folder\": \""_s
                   + kernels + u"/tf215\"}"_s)
                      .toUtf8()));
    // tfsetup's kernel: the environment's bin/python with the environment's library path.
    QVERIFY(write(root + kernels + u"/tf215/kernel.json"_s,
                  (u"{\"argv\": [\""_s + environment
                   + u"/bin/python\", \"-m\", \"ipykernel_launcher\", \"-f\", \"{connection_file}\"], "
                     u"\"display_name\": \"TensorFlow 2.15\", \"language\": \"python\", "
                     u"\"env\": {\"LD_LIBRARY_PATH\": \""_s
                   + environment + u"/lib\"}}"_s)
                      .toUtf8()));
    // A student's own venv kernel that sets PATH: a real difference from the terminal.
    QVERIFY(write(root + home + u"/venvs/other/bin/python"_s, "#!ELF"));
    QVERIFY(write(root + kernels + u"/other/kernel.json"_s,
                  (u"{\"argv\": [\""_s + home
                   + u"/venvs/other/bin/python\", \"-m\", \"ipykernel_launcher\", \"-f\", \"{connection_file}\"], "
                     u"\"display_name\": \"Other\", \"language\": \"python\", "
                     u"\"env\": {\"PATH\": \"/opt/other/bin\"}}"_s)
                      .toUtf8()));
    m_system = std::make_unique<RootedSystem>(root, OsFamily::Linux,
                                              QHash<QString, QString>{{u"HOME"_s, home},
                                                                      {u"PATH"_s, u"/usr/bin:/bin"_s},
                                                                      {u"XDG_DATA_HOME"_s, home + u"/.local/share"_s}});
    QVERIFY(EnvironmentIndex::add(*m_system, environment));
    QVERIFY(EnvironmentIndex::folders(*m_system).contains(environment));
}

QList<DoctorFinding> TestDoctorOwnKernel::scan(const QString &envDir)
{
    const auto knowledge = Knowledge::shared();
    if (!knowledge)
        qFatal("no knowledge: %s", qPrintable(knowledge.error().message));
    const DoctorTarget target = envDir.isEmpty() ? DoctorTarget{} : inspectEnvironment(*m_system, envDir);
    return scanSystem(*m_system, HardwareReport{}, **knowledge, target);
}

void TestDoctorOwnKernel::examinedEnvironment_ownKernelIsNoMismatch()
{
    const DoctorTarget target = inspectEnvironment(*m_system, environment);
    QVERIFY2(target.python.startsWith(environment + u'/'), qPrintable(target.python));
    // The other kernel is still one; the environment's own is neither a mismatch nor missing.
    QCOMPARE(kernelFindings(scan(environment)), QStringList{u"jupyter_kernel_mismatch:other"_s});
}

void TestDoctorOwnKernel::noEnvironment_ownKernelKnownFromTheRecord()
{
    QCOMPARE(kernelFindings(scan({})), QStringList{u"jupyter_kernel_mismatch:other"_s});
    // Without the index and without --env, nothing says whose kernel it is: then it is reported.
    QVERIFY(EnvironmentIndex::remove(*m_system, environment));
    QCOMPARE(kernelFindings(scan({})),
             (QStringList{u"jupyter_kernel_mismatch:other"_s, u"jupyter_kernel_mismatch:tf215"_s}));
}

void TestDoctorOwnKernel::sameInterpreterFile_isTheEnvironment()
{
    // A kernel that names the interpreter by another path resolving to the same file.
    QVERIFY(EnvironmentIndex::remove(*m_system, environment));
    const QString root = m_root->path();
    QVERIFY(link(root + environment + u"/bin/python3"_s, root + u"/opt/links/tf-python"_s));
    QVERIFY(QFile::remove(root + environment + u"/environment.json"_s));
    QFile spec(root + home + u"/.local/share/jupyter/kernels/tf215/kernel.json"_s);
    QVERIFY(spec.open(QIODevice::WriteOnly | QIODevice::Truncate));
    spec.write(R"({"argv": ["/opt/links/tf-python", "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                   "display_name": "TensorFlow 2.15", "language": "python",
                   "env": {"LD_LIBRARY_PATH": "/data/courses/tf215/lib"}})");
    spec.close();
    QCOMPARE(kernelFindings(scan(environment)), QStringList{u"jupyter_kernel_mismatch:other"_s});
}

void TestDoctorOwnKernel::tfsetupLayout_kernelOfTheVenvIsTheEnvironments_data()
{
    QTest::addColumn<QString>("examined"); // what --env names
    QTest::addColumn<QString>("argv0");    // what the kernel starts
    QTest::addColumn<bool>("recordKnowsKernel");
    const QString env = u"/data/courses/tf216"_s;
    QTest::newRow("env, kernel names venv/bin/python") << env << env + u"/venv/bin/python"_s << false;
    QTest::newRow("venv, kernel names venv/bin/python3.11")
        << env + u"/venv"_s << env + u"/venv/bin/python3.11"_s << false;
    // The kernel names the venv through another spelling of its folder (a link to it): known by
    // the folder the record says the install registered.
    QTest::newRow("record's kernel folder, another spelling") << env << u"/srv/tf216/venv/bin/python"_s << true;
}

void TestDoctorOwnKernel::tfsetupLayout_kernelOfTheVenvIsTheEnvironments()
{
    QFETCH(QString, examined);
    QFETCH(QString, argv0);
    QFETCH(bool, recordKnowsKernel);
    // tfsetup's layout: <env>/environment.json beside <env>/venv, whose bin/python3 the doctor
    // examines and whose bin/python (or python3.11) the kernel starts. Not in the index.
    const QString root = m_root->path();
    const QString env = u"/data/courses/tf216"_s;
    QVERIFY(write(root + env + u"/venv/pyvenv.cfg"_s, "home = /usr/bin\nversion = 3.11.2\n"));
    QVERIFY(link(u"../../../../../usr/bin/python3.11"_s, root + env + u"/venv/bin/python"_s));
    QVERIFY(link(u"python"_s, root + env + u"/venv/bin/python3"_s));
    QVERIFY(link(u"python"_s, root + env + u"/venv/bin/python3.11"_s));
    QVERIFY(QDir().mkpath(root + u"/srv"_s));
    QVERIFY(QFile::link(root + env, root + u"/srv/tf216"_s));
    const QString kernels = home + u"/.local/share/jupyter/kernels"_s;
    QVERIFY(write(root + env + u"/environment.json"_s,
                  (u"{\"schema\": 1, \"name\": \"tf216\", \"os\": \"linux\", \"files\": [], \"kernel_folder\": \""_s
                   + (recordKnowsKernel ? kernels + u"/tf216"_s : QString()) + u"\"}"_s)
                      .toUtf8()));
    QVERIFY(write(root + kernels + u"/tf216/kernel.json"_s,
                  (u"{\"argv\": [\""_s + argv0
                   + u"\", \"-m\", \"ipykernel_launcher\", \"-f\", \"{connection_file}\"], "
                     u"\"display_name\": \"TensorFlow 2.16\", \"language\": \"python\", "
                     u"\"env\": {\"LD_LIBRARY_PATH\": \""_s
                   + env + u"/cuda/lib\"}}"_s)
                      .toUtf8()));
    const DoctorTarget target = inspectEnvironment(*m_system, examined);
    QVERIFY(target.record);
    QCOMPARE(target.envDir, env);
    QCOMPARE(target.python, env + u"/venv/bin/python3"_s);
    const QStringList found = kernelFindings(scan(examined));
    QVERIFY2(!found.contains(u"jupyter_kernel_mismatch:env"_s), qPrintable(found.join(u", "_s)));
    QVERIFY2(!found.contains(u"jupyter_kernel_mismatch:tf216"_s), qPrintable(found.join(u", "_s)));
    QVERIFY(found.contains(u"jupyter_kernel_mismatch:other"_s)); // the real difference is still said
}

QTEST_GUILESS_MAIN(TestDoctorOwnKernel)
#include "test_doctorownkernel.moc"
