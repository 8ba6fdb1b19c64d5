// The Ansible role (deploy/ansible/roles/tfsetup) run by Debian's ansible-playbook, with the
// tfsetup just built, against lab machines on this computer: each "machine" is a host with
// `connection: local` and a home, profile folder and install folder of its own. Two install
// offline from one bundle of stand-in NVIDIA archives (labmirror.h); a third goes through a lab
// mirror that lacks the archives, with a shared cache. What a lab administrator relies on:
// --check changes nothing; the first run reports changed and leaves complete environments; the
// second reports nothing changed and writes nothing; a kernel someone removed is put back and
// that run says changed; a broken profile fails the play with tfsetup's message naming the
// field; the machine whose install fails is reported failed while the others stay green.
// Ansible's own files go to a temporary folder, never the user's home.

#include "support/labmirror.h"

#include "sources/artifact.h"
#include "sources/bundle.h"
#include "support/processes.h"
#include "support/treesnapshot.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace tfsetup;
using namespace Qt::StringLiterals;
using tfsetup::test::LabMirror;
using tfsetup::test::LoopbackServer;
using tfsetup::test::Ran;
using tfsetup::test::Response;
using tfsetup::test::TreeSnapshot;

namespace {

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// One host's line of the PLAY RECAP.
struct Recap {
    int ok = -1;
    int changed = -1;
    int unreachable = -1;
    int failed = -1;
};

struct Play {
    Ran ran;
    QStringList labDisk; // what the play left on the failing machine's disk
    QString output;      // stdout and stderr
    QMap<QString, Recap> recap;
};

const QStringList offlineMachines{u"pc1"_s, u"pc2"_s};

} // namespace

class TestAnsible : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void examplePlaybook_isValid();
    void check_onNewMachines_changesNothing();
    void firstRun_installsFromTheBundle_changed();
    void secondRun_changesNothing();
    void check_onInstalledMachines_changesNothing();
    void removedKernel_isPutBack_andReportedChanged();
    void brokenProfile_failsThePlay_namingTheField();
    void failingMachine_isReportedFailed_othersStayGreen();

private:
    Play play(const QStringList &arguments);
    QString home(const QString &machine) const { return m_dir.filePath(u"machines/"_s + machine); }
    QString environment(const QString &machine) const { return home(machine) + u"/envs/tf-lab"_s; }
    QString labDisk() const { return m_dir.filePath(u"lab-disk"_s); }
    QString kernel(const QString &machine) const
    {
        return home(machine) + u"/data/jupyter/kernels/tf-lab/kernel.json"_s;
    }
    bool writeBundle(const LabMirror &mirror, const QString &folder) const;
    bool writeInventory();
    QString recapText(const Play &p) const { return p.output.right(6000); }

    QTemporaryDir m_dir;
    LoopbackServer m_server;
    QString m_inventory;
    QString m_playbook;
    QElapsedTimer m_clock;
};

void TestAnsible::initTestCase()
{
    m_clock.start();
    // Debian's ansible-core (.ci/packages-test) and the tfsetup under test; a missing one fails.
    QVERIFY2(!QStandardPaths::findExecutable(u"ansible-playbook"_s).isEmpty(),
             "ansible-playbook is not installed (.ci/packages-test: ansible-core)");
    QVERIFY2(!qEnvironmentVariableIsEmpty("TFSETUP_BINARY") && !qEnvironmentVariableIsEmpty("TFSETUP_SOURCE_DIR"),
             "TFSETUP_BINARY / TFSETUP_SOURCE_DIR are not set: run through ctest");
    QVERIFY(m_dir.isValid());
    QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));

    // The offline bundle: NVIDIA's layout with stand-in archives for CUDA 11.8 and cuDNN 8.6.
    LabMirror mirror;
    QVERIFY(mirror.create(m_dir.filePath(u"mirror"_s), m_server));
    QVERIFY(writeBundle(mirror, m_dir.filePath(u"bundle"_s)));

    // The lab mirror of the failing machine: NVIDIA's real manifests, none of their archives.
    const QString manifests = qEnvironmentVariable("TFSETUP_SOURCE_DIR") + u"/tests/data/manifests/"_s;
    for (const auto &[path, file] :
         {std::pair{"/lab/compute/cuda/redist/redistrib_12.5.1.json", "cuda/redistrib_12.5.1.json"},
          std::pair{"/lab/compute/cudnn/redist/redistrib_8.9.7.json", "cudnn/redistrib_8.9.7.json"}}) {
        const QByteArray bytes = readFile(manifests + QLatin1String(file));
        QVERIFY(!bytes.isEmpty());
        m_server.route(path, Response::bytes(bytes, "application/json"));
    }

    // The lab's profiles. Libraries, launchers, the record and the kernel only (interpreter
    // "none"): the venv and pip are covered by core_jupyter and the journeys.
    QVERIFY(writeFile(m_dir.filePath(u"profiles/lab.json"_s), R"json({"schema": 1, "title": "Ansible lab",
        "environment": "tf-lab", "installFolder": "${HOME}/envs", "interpreter": "none",
        "plan": {"route": "linux-toolkit", "tensorflow": "2.13.1", "package": "tensorflow", "python": "3.11",
                 "cuda": "11.8", "cudnn": "8.6"},
        "kernel": {"name": "tf-lab", "displayName": "TensorFlow (Ansible lab)"}, "desktopEntry": false})json"));
    QVERIFY(writeFile(m_dir.filePath(u"profiles/toolkit.json"_s), R"json({"schema": 1, "title": "Toolkit lab",
        "environment": "tf-lab", "installFolder": "${LAB_DISK}/envs", "interpreter": "none",
        "plan": {"route": "linux-toolkit", "tensorflow": "2.18.0", "cuda": "12.5", "cudnn": "8.9"},
        "kernel": {"register": false}, "desktopEntry": false})json"));
    QVERIFY(writeFile(m_dir.filePath(u"profiles/broken.json"_s), R"json({"schema": 1, "title": "Broken lab",
        "environment": "tf-lab", "installFolder": "${HOME}/envs", "interpreter": "none",
        "plan": {"route": "linux-toolkit", "tensorflow": 2.13, "cuda": "11.8", "cudnn": "8.6"}})json"));

    // The lab's copy of tfsetup, as the controller holds it: one file for every run.
    QVERIFY(QDir().mkpath(m_dir.filePath(u"files"_s)));
    QVERIFY(QFile::copy(qEnvironmentVariable("TFSETUP_BINARY"), m_dir.filePath(u"files/tfsetup"_s)));
    QVERIFY(writeInventory());
    m_playbook = m_dir.filePath(u"lab.yml"_s);
    QVERIFY(writeFile(m_playbook,
                      "- name: TensorFlow GPU environments\n"
                      "  hosts: lab\n"
                      "  gather_facts: false\n"
                      "  roles:\n"
                      "    - tfsetup\n"));
    QVERIFY(writeFile(m_dir.filePath(u"ansible/ansible.cfg"_s), "[defaults]\n"));
}

bool TestAnsible::writeBundle(const LabMirror &mirror, const QString &folder) const
{
    // As `tfsetup bundle` lays it out: each archive under nvidia/<its server path>, bundle.json
    // listing every file with its checksum.
    static const QRegularExpression cudaPath(
        uR"(^/compute/cuda/redist/(\w+)/linux-x86_64/\w+-linux-x86_64-([\d.]+)-archive\.tar\.xz$)"_s);
    static const QRegularExpression cudnnPath(
        uR"(^/compute/cudnn/redist/cudnn/linux-x86_64/cudnn-linux-x86_64-([\d.]+)_cuda11-archive\.tar\.xz$)"_s);
    QJsonArray artifacts, files;
    for (const LabMirror::Archive &archive : mirror.archives()) {
        core::Artifact a;
        if (const auto m = cudaPath.match(archive.urlPath); m.hasMatch()) {
            a.name = m.captured(1);
            a.version = m.captured(2);
            a.kind = u"cuda-redist-archive"_s;
        } else if (const auto c = cudnnPath.match(archive.urlPath);
                   c.hasMatch() && c.captured(1).startsWith(u"8.6."_s)) {
            a.name = u"cudnn"_s;
            a.version = c.captured(1);
            a.kind = u"cudnn-archive"_s;
        } else {
            continue; // the cuDNN 8.9 archive is not for this plan
        }
        const QByteArray bytes = readFile(archive.file);
        a.platform = u"linux-x86_64"_s;
        a.source = u"nvidia-redist"_s;
        a.archiveFormat = u"tar.xz"_s;
        a.relativePath = archive.urlPath.mid(1);
        a.sha256 = QString::fromLatin1(archive.sha256);
        a.size = bytes.size();
        a.trust = core::Artifact::Trust::Official;
        a.urls = {QUrl(u"https://developer.download.nvidia.com/"_s + a.relativePath)};
        const QString file = u"nvidia/"_s + a.relativePath;
        QJsonObject o = a.toJson();
        o.insert(u"file"_s, file);
        artifacts.append(o);
        files.append(QJsonObject{
            {u"file"_s, file}, {u"artifact"_s, a.name}, {u"sha256"_s, a.sha256}, {u"size"_s, double(bytes.size())}});
        if (bytes.isEmpty() || !writeFile(QDir(folder).filePath(file), bytes))
            return false;
    }
    if (artifacts.size() != 7)
        return false;
    const QJsonObject root{{u"format"_s, u"tfsetup-bundle"_s},
                           {u"schema"_s, core::Bundle::schema},
                           {u"route"_s, u"linux-toolkit"_s},
                           {u"tensorflow"_s, u"2.13.1"_s},
                           {u"os"_s, u"linux"_s},
                           {u"python"_s, u"3.11"_s},
                           {u"artifacts"_s, artifacts},
                           {u"files"_s, files},
                           {u"warnings"_s, QJsonArray()}};
    return writeFile(QDir(folder).filePath(u"bundle.json"_s), QJsonDocument(root).toJson());
}

bool TestAnsible::writeInventory()
{
    // Each machine's variables in full: what the role is given on a real lab's inventory, plus
    // the folders that keep this computer's user out of it. Anything an offline machine sent
    // to the network would meet the counting server as its proxy.
    const QString proxy = m_server.url(u"/proxy/"_s).toString();
    QByteArray yaml = "lab:\n  hosts:\n";
    for (const QString &machine : {u"pc1"_s, u"pc2"_s, u"pc3"_s}) {
        const bool offline = machine != u"pc3";
        const QString h = home(machine);
        QString block = uR"(    %1:
      tfsetup_executable: %2/bin/tfsetup
      tfsetup_config_dir: %2/etc/tfsetup
      tfsetup_environment:
        HOME: %2
        XDG_DATA_HOME: %2/data
        XDG_CONFIG_HOME: %2/config
        XDG_CACHE_HOME: %2/cache
        TFSETUP_LOG_DIR: %3/%1
)"_s.arg(machine, h, m_dir.filePath(u"logs"_s));
        if (offline) {
            block += uR"(        http_proxy: %1
        https_proxy: %1
        ALL_PROXY: %1
      tfsetup_profile_src: %2
      tfsetup_bundle: %3
)"_s.arg(proxy, m_dir.filePath(u"profiles/lab.json"_s), m_dir.filePath(u"bundle"_s));
        } else {
            block += uR"(        LAB_DISK: %3
      tfsetup_profile_src: %1
      tfsetup_origins: {nvidia: "%2"}
      tfsetup_cache: %3/shared-cache
)"_s.arg(m_dir.filePath(u"profiles/toolkit.json"_s), m_server.url(u"/lab/"_s).toString(), labDisk());
        }
        yaml += block.toUtf8();
    }
    yaml += "  vars:\n"
            "    ansible_connection: local\n"
            "    ansible_python_interpreter: /usr/bin/python3\n"
            "    tfsetup_package: binary\n"
            "    tfsetup_package_src: "
        + m_dir.filePath(u"files/tfsetup"_s).toUtf8() + "\n";
    m_inventory = m_dir.filePath(u"inventory.yml"_s);
    return writeFile(m_inventory, yaml);
}

Play TestAnsible::play(const QStringList &arguments)
{
    // Ansible's home, temporary folders and configuration in the test's folder; no retry files,
    // no colours; the role from the source tree.
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const QString &name : env.keys()) {
        if (name.startsWith(u"ANSIBLE_"_s))
            env.remove(name);
    }
    const QString controller = m_dir.filePath(u"ansible"_s);
    env.insert(u"HOME"_s, controller + u"/home"_s);
    env.insert(u"ANSIBLE_CONFIG"_s, controller + u"/ansible.cfg"_s);
    env.insert(u"ANSIBLE_HOME"_s, controller + u"/home/.ansible"_s);
    env.insert(u"ANSIBLE_LOCAL_TEMP"_s, controller + u"/tmp"_s);
    env.insert(u"ANSIBLE_REMOTE_TEMP"_s, controller + u"/remote-tmp"_s);
    env.insert(u"ANSIBLE_RETRY_FILES_ENABLED"_s, u"false"_s);
    env.insert(u"ANSIBLE_NOCOLOR"_s, u"true"_s);
    env.insert(u"ANSIBLE_LOCALHOST_WARNING"_s, u"false"_s);
    env.insert(u"ANSIBLE_ROLES_PATH"_s, qEnvironmentVariable("TFSETUP_SOURCE_DIR") + u"/deploy/ansible/roles"_s);
    // The failing machine's install folder and the shared cache lie on a disk of their own, large
    // enough for NVIDIA's gigabytes that the plan asks for first: the host's free space must not
    // decide which error that machine reports.
    Play p;
    const test::RanOnDisk ran = test::runOnDisk(labDisk(), u"64g"_s, u"ansible-playbook"_s,
                                                QStringList{u"-i"_s, m_inventory, m_playbook} + arguments, 240000, env);
    p.ran = ran.ran;
    p.labDisk = ran.left;
    p.output = QString::fromUtf8(p.ran.out + p.ran.err);
    static const QRegularExpression line(
        uR"(^(\S+)\s*:\s*ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+))"_s,
        QRegularExpression::MultilineOption);
    const qsizetype recap = p.output.lastIndexOf(u"PLAY RECAP"_s);
    for (auto it = line.globalMatch(p.output.mid(recap < 0 ? p.output.size() : recap)); it.hasNext();) {
        const auto m = it.next();
        p.recap.insert(m.captured(1),
                       {m.captured(2).toInt(), m.captured(3).toInt(), m.captured(4).toInt(), m.captured(5).toInt()});
    }
    return p;
}

void TestAnsible::examplePlaybook_isValid()
{
    // The playbook and inventory the README shows, as Ansible reads them.
    const QString deploy = qEnvironmentVariable("TFSETUP_SOURCE_DIR") + u"/deploy/ansible/"_s;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(u"HOME"_s, m_dir.filePath(u"ansible/home"_s));
    env.insert(u"ANSIBLE_CONFIG"_s, m_dir.filePath(u"ansible/ansible.cfg"_s));
    env.insert(u"ANSIBLE_HOME"_s, m_dir.filePath(u"ansible/home/.ansible"_s));
    env.insert(u"ANSIBLE_LOCAL_TEMP"_s, m_dir.filePath(u"ansible/tmp"_s));
    const Ran syntax = test::runProcess(
        u"ansible-playbook"_s, {u"-i"_s, deploy + u"inventory.yml"_s, deploy + u"site.yml"_s, u"--syntax-check"_s},
        60000, env);
    QVERIFY2(syntax.finished && syntax.exitCode == 0, QByteArray(syntax.out + syntax.err).constData());
    const Ran hosts = test::runProcess(
        u"ansible-playbook"_s, {u"-i"_s, deploy + u"inventory.yml"_s, deploy + u"site.yml"_s, u"--list-hosts"_s}, 60000,
        env);
    QVERIFY2(hosts.finished && hosts.exitCode == 0, QByteArray(hosts.out + hosts.err).constData());
    QVERIFY2(hosts.out.contains("lab-pc01.example.edu") && hosts.out.contains("lab-pc02.example.edu"),
             hosts.out.constData());
}

void TestAnsible::check_onNewMachines_changesNothing()
{
    const Play p = play({u"--check"_s, u"--limit"_s, offlineMachines.join(u',')});
    QVERIFY2(p.ran.finished && p.ran.exitCode == 0, qPrintable(recapText(p)));
    for (const QString &machine : offlineMachines) {
        // What would change is reported (tfsetup and the profile would be placed) ...
        QVERIFY2(p.recap.value(machine).changed > 0 && p.recap.value(machine).failed == 0, qPrintable(recapText(p)));
        // ... and nothing was: no tfsetup, no profile, no environment, no kernel.
        QVERIFY2(!QFileInfo::exists(home(machine)) || TreeSnapshot::take(home(machine)).entries().isEmpty(),
                 qPrintable(QStringList(TreeSnapshot::take(home(machine)).entries().keys()).join(u'\n')));
    }
    QVERIFY2(p.output.contains(u"TASK [tfsetup : Install the lab environment]"_s), qPrintable(recapText(p)));
    QCOMPARE(m_server.requests().size(), 0);
    // Ansible kept its temporary files where it was told.
    QVERIFY(QFileInfo(m_dir.filePath(u"ansible/tmp"_s)).isDir());
}

void TestAnsible::firstRun_installsFromTheBundle_changed()
{
    const Play p = play({u"--limit"_s, offlineMachines.join(u',')});
    QVERIFY2(p.ran.finished && p.ran.exitCode == 0, qPrintable(recapText(p)));
    static const QRegularExpression installed(
        uR"(TASK \[tfsetup : Install the lab environment\][^\n]*\n(?:changed: \[pc\d\][^\n]*\n){2})"_s);
    QVERIFY2(installed.match(p.output).hasMatch(), qPrintable(recapText(p)));
    for (const QString &machine : offlineMachines) {
        QVERIFY2(p.recap.value(machine).changed > 0 && p.recap.value(machine).failed == 0, qPrintable(recapText(p)));
        QVERIFY(QFileInfo(home(machine) + u"/bin/tfsetup"_s).isExecutable());
        QCOMPARE(readFile(home(machine) + u"/etc/tfsetup/lab.json"_s),
                 readFile(m_dir.filePath(u"profiles/lab.json"_s)));
        // The environment came from the bundle: its record, NVIDIA's libraries, the kernel.
        const QJsonObject record =
            QJsonDocument::fromJson(readFile(environment(machine) + u"/environment.json"_s)).object();
        QVERIFY2(!record.isEmpty(), qPrintable(environment(machine)));
        const QString recorded = QString::fromUtf8(QJsonDocument(record).toJson());
        QVERIFY2(recorded.contains(u"libcudart.so"_s) && recorded.contains(u"libcudnn"_s),
                 qPrintable(recorded.left(3000)));
        const QJsonObject spec = QJsonDocument::fromJson(readFile(kernel(machine))).object();
        QVERIFY2(spec.value(u"argv"_s).toArray().first().toString().startsWith(environment(machine)),
                 qPrintable(kernel(machine)));
    }
    // Offline: not one request, although every machine's proxy was the counting server.
    QCOMPARE(m_server.requests().size(), 0);
}

void TestAnsible::secondRun_changesNothing()
{
    QVERIFY2(QFileInfo::exists(environment(u"pc1"_s) + u"/environment.json"_s), "the first run did not install");
    QMap<QString, TreeSnapshot> before;
    for (const QString &machine : offlineMachines)
        before.insert(machine, TreeSnapshot::take(home(machine)));
    const Play p = play({u"--limit"_s, offlineMachines.join(u',')});
    QVERIFY2(p.ran.finished && p.ran.exitCode == 0, qPrintable(recapText(p)));
    for (const QString &machine : offlineMachines) {
        QVERIFY2(p.recap.value(machine).ok > 0 && p.recap.value(machine).changed == 0
                     && p.recap.value(machine).failed == 0,
                 qPrintable(recapText(p)));
        const QString diff = TreeSnapshot::take(home(machine)).differenceFrom(before.value(machine));
        QVERIFY2(diff.isEmpty(), qPrintable(machine + u":\n"_s + diff));
    }
    // tfsetup itself said so; Ansible only read it.
    QVERIFY2(p.output.contains(u"ok: [pc1] => (item=connecting account)"_s), qPrintable(recapText(p)));
}

void TestAnsible::check_onInstalledMachines_changesNothing()
{
    QVERIFY2(QFileInfo::exists(environment(u"pc1"_s) + u"/environment.json"_s), "the first run did not install");
    const TreeSnapshot before = TreeSnapshot::take(home(u"pc1"_s));
    const Play p = play({u"--check"_s, u"--limit"_s, offlineMachines.join(u',')});
    QVERIFY2(p.ran.finished && p.ran.exitCode == 0, qPrintable(recapText(p)));
    for (const QString &machine : offlineMachines)
        QVERIFY2(p.recap.value(machine).changed == 0 && p.recap.value(machine).failed == 0, qPrintable(recapText(p)));
    QVERIFY2(TreeSnapshot::take(home(u"pc1"_s)).differenceFrom(before).isEmpty(), "--check changed pc1");
}

void TestAnsible::removedKernel_isPutBack_andReportedChanged()
{
    // Somebody deleted pc1's kernel: the environment itself is intact, yet a file is written,
    // so Ansible must not be told that nothing changed.
    QVERIFY(QFile::remove(kernel(u"pc1"_s)));
    const Play p = play({u"--limit"_s, offlineMachines.join(u',')});
    QVERIFY2(p.ran.finished && p.ran.exitCode == 0, qPrintable(recapText(p)));
    QVERIFY2(p.recap.value(u"pc1"_s).changed == 1 && p.recap.value(u"pc2"_s).changed == 0, qPrintable(recapText(p)));
    QVERIFY(QFileInfo::exists(kernel(u"pc1"_s)));
}

void TestAnsible::brokenProfile_failsThePlay_namingTheField()
{
    QVERIFY2(QFileInfo::exists(environment(u"pc2"_s) + u"/environment.json"_s), "the first run did not install");
    const TreeSnapshot before = TreeSnapshot::take(environment(u"pc2"_s));
    const Play p = play(
        {u"--limit"_s, u"pc2"_s, u"-e"_s, u"tfsetup_profile_src="_s + m_dir.filePath(u"profiles/broken.json"_s)});
    QVERIFY2(p.ran.finished && p.ran.exitCode == 2, qPrintable(recapText(p))); // 2: a host failed
    QVERIFY2(p.recap.value(u"pc2"_s).failed == 1, qPrintable(recapText(p)));
    // The failing task's message is tfsetup's own, naming the field.
    static const QRegularExpression message(
        uR"re(failed: \[pc2\][^\n]*"msg": "tfsetup install failed \(profile_incomplete\): [^"\n]*field \\"plan\.tensorflow\\" must be text)re"_s);
    QVERIFY2(message.match(p.output).hasMatch(), qPrintable(recapText(p)));
    QVERIFY(TreeSnapshot::take(environment(u"pc2"_s)).differenceFrom(before).isEmpty());
}

void TestAnsible::failingMachine_isReportedFailed_othersStayGreen()
{
    const Play p = play({});
    QVERIFY2(p.ran.finished && p.ran.exitCode == 2, qPrintable(recapText(p)));
    QVERIFY2(p.recap.value(u"pc3"_s).failed == 1, qPrintable(recapText(p)));
    for (const QString &machine : offlineMachines)
        QVERIFY2(p.recap.value(machine).failed == 0 && p.recap.value(machine).changed == 0, qPrintable(recapText(p)));
    // The machine went through the lab mirror (manifests read there, the first archive asked
    // for and missing) and says which file, in tfsetup's words; nothing was installed.
    QCOMPARE(m_server.hits("/lab/compute/cuda/redist/redistrib_12.5.1.json"), 1);
    static const QRegularExpression message(
        uR"re(failed: \[pc3\][^\n]*"msg": "tfsetup install failed \([a-z_]+\): [^"\n]*cuda_cudart)re"_s);
    QVERIFY2(message.match(p.output).hasMatch(), qPrintable(recapText(p)));
    QVERIFY2(!p.labDisk.contains(u"envs/tf-lab"_s), qPrintable(p.labDisk.join(u' ')));
    QVERIFY2(p.labDisk.contains(u"shared-cache"_s), qPrintable(p.labDisk.join(u' ')));
    qInfo("the Ansible runs took %lld ms", qint64(m_clock.elapsed()));
}

QTEST_GUILESS_MAIN(TestAnsible)
#include "test_ansible.moc"
