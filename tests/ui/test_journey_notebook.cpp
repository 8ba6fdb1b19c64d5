// A student's journey in Simplified Chinese that ends in a notebook: the Welcome page's language
// switch set to 简体中文, then Next through every page under the offscreen platform (Detect with a
// canned machine without an NVIDIA GPU and Debian's own Python; the solver's CPU plan; the Options
// page's defaults, Jupyter on, with an index on loopback; a real venv and real pip; the real smoke
// test). The index serves real wheels built from Debian's ipykernel and everything it needs
// (tests/support/debian_wheelhouse.py), a stand-in TensorFlow, and a stand-in only for what
// Debian does not package (JupyterLab). Each page's title must be its zh_CN translation, read from
// the embedded catalogue. After Finish, Debian's nbclient executes a notebook with the kernel the
// wizard registered (found in the isolated Jupyter data folder): its output must show the
// environment's Python, the environment's bin first on PATH and TensorFlow imported from it.

#include "uitest.h"
#include "journeyhost.h"
#include "support/files.h"
#include "support/loopbackserver.h"
#include "support/processes.h"
#include "system/realsystem.h"
#include "ui/choosepage.h"
#include "ui/detectpage.h"
#include "ui/downloadpage.h"
#include "ui/finishpage.h"
#include "ui/installpage.h"
#include "ui/optionspage.h"
#include "ui/setupwizard.h"
#include "ui/verifypage.h"
#include "ui/welcomepage.h"
#include "ui/wizardstate.h"
#include "util/i18n.h"

#include <QAbstractButton>
#include <QCheckBox>
#include <QComboBox>
#include <QCryptographicHash>
#include <QDeadlineTimer>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QTranslator>
#include <QUrl>

#include <unistd.h>

using namespace tfsetup;
using namespace Qt::StringLiterals;
using tfsetup::test::buildWheel;
using tfsetup::test::child;
using tfsetup::test::LoopbackServer;
using tfsetup::test::processesUsing;
using tfsetup::test::Ran;
using tfsetup::test::readFile;
using tfsetup::test::Response;

namespace {

// Debian's interpreter: the wheelhouse is built from its dist-packages (compiled modules for this
// very Python), the environment's venv is made from it, and it runs nbclient, the client.
const QString debianPython = u"/usr/bin/python3"_s;

bool hasHan(const QString &text)
{
    for (const QChar c : text) {
        if (c.script() == QChar::Script_Han)
            return true;
    }
    return false;
}

// Executes the notebook `argv[1]` with the kernel named `argv[2]` (every cell, bounded waits) and
// writes it, outputs included, to `argv[3]`; the kernel runs in `argv[4]` and is shut down after.
const QString executeNotebook = uR"py(
import sys
import nbformat
from nbclient import NotebookClient
source, kernel, target, folder = sys.argv[1:5]
nb = nbformat.read(source, as_version=4)
NotebookClient(nb, kernel_name=kernel, timeout=120, startup_timeout=120,
               resources={"metadata": {"path": folder}}).execute()
nbformat.write(nb, target)
)py"_s;

} // namespace

class TestJourneyNotebook final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void chineseStudent_endsWithANotebookOnThisEnvironment();
    void cleanupTestCase();

private:
    QAbstractButton *button(QWizard::WizardButton which) const { return m_wizard->button(which); }
    bool nextEnabled() const { return button(QWizard::NextButton)->isEnabled(); }
    void clickNext() { QTest::mouseClick(button(QWizard::NextButton), Qt::LeftButton); }
    // Empty when the page's title is the zh_CN translation of `english`, else what is wrong.
    QString titleProblem(int pageId, const char *context, const char *english) const;
    void serveWheelhouse(LoopbackServer &index);

    QTemporaryDir m_dir;
    tfsetup::test::JourneyHost m_host;
    QTranslator m_chinese; // the embedded catalogue, read apart from the wizard's own translators
    QStringList m_wheels;
    QStringList m_realProjects; // normalized names the wheelhouse serves
    std::unique_ptr<core::Translations> m_translations;
    std::unique_ptr<core::RealSystem> m_system;
    std::unique_ptr<ui::SetupWizard> m_wizard;
};

void TestJourneyNotebook::initTestCase()
{
    QVERIFY(m_dir.isValid());
    const QString why = m_host.prepare(m_dir, debianPython);
    QVERIFY2(why.isEmpty(), qPrintable(why + u" (.ci/packages: python3-venv)"_s));
    QVERIFY(!m_host.python.isEmpty());
    QVERIFY(!m_host.pythonVersion.isEmpty());
    // pip sees only the loopback index: none of the machine's pip settings (find-links, index)
    // reach the wizard's pip or the client; Jupyter's and IPython's folders are the test's own.
    for (const QString &line : QProcess::systemEnvironment()) {
        const QString name = line.section(u'=', 0, 0);
        if (name.startsWith(u"PIP_"_s) && name != u"PIP_CONFIG_FILE"_s)
            qunsetenv(name.toLocal8Bit().constData());
    }
    qunsetenv("PYTHONPATH");
    qunsetenv("VIRTUAL_ENV");
    qunsetenv("JUPYTER_PATH");
    qputenv("JUPYTER_CONFIG_DIR", m_dir.filePath(u"home/.jupyter"_s).toLocal8Bit());
    qputenv("JUPYTER_RUNTIME_DIR", m_dir.filePath(u"home/.local/share/jupyter/runtime"_s).toLocal8Bit());
    qputenv("IPYTHONDIR", m_dir.filePath(u"home/.ipython"_s).toLocal8Bit());

    const Ran probe = test::runProcess(debianPython,
                                       {u"-c"_s,
                                        u"import venv, ensurepip, packaging, ipykernel, jupyter_client, "
                                        "nbformat, nbclient"_s},
                                       60'000);
    QVERIFY2(probe.finished && probe.exitCode == 0,
             qPrintable(u"Debian's python3 lacks what this journey needs (.ci/packages-test: python3-ipykernel, "
                        "python3-jupyter-client, python3-packaging, python3-nbclient, python3-nbformat; "
                        ".ci/packages: python3-venv):\n"_s
                        + QString::fromUtf8(probe.err)));

    QVERIFY(m_chinese.load(u":/i18n/tfsetup_zh_CN.qm"_s));

    // Real wheels of Debian's ipykernel and everything it needs.
    const QString wheelhouse = m_dir.filePath(u"wheelhouse"_s);
    const Ran built = test::runProcess(
        debianPython,
        {qEnvironmentVariable("TFSETUP_SOURCE_DIR") + u"/tests/support/debian_wheelhouse.py"_s, wheelhouse,
         u"ipykernel"_s},
        180'000);
    QVERIFY2(built.finished && built.exitCode == 0, built.err.right(3000).constData());
    for (const QJsonValue &w : QJsonDocument::fromJson(built.out).object().value(u"wheels"_s).toArray())
        m_wheels.append(w.toString());
    QVERIFY2(m_wheels.size() > 5, built.out.constData());
    QVERIFY(std::any_of(m_wheels.cbegin(), m_wheels.cend(),
                        [](const QString &w) { return w.startsWith(u"ipykernel-"_s); }));
    for (const QString &project : QDir(wheelhouse + u"/simple"_s).entryList(QDir::Dirs | QDir::NoDotAndDotDot))
        m_realProjects.append(project);
    QVERIFY2(m_realProjects.contains(u"ipykernel"_s), qPrintable(m_realProjects.join(u' ')));
}

void TestJourneyNotebook::serveWheelhouse(LoopbackServer &index)
{
    const QString wheelhouse = m_dir.filePath(u"wheelhouse"_s);
    QDirIterator pages(wheelhouse + u"/simple"_s, {u"index.html"_s}, QDir::Files, QDirIterator::Subdirectories);
    while (pages.hasNext()) {
        const QString page = pages.next();
        const QString folder = QDir(wheelhouse).relativeFilePath(QFileInfo(page).path());
        index.route("/" + folder.toUtf8() + "/", Response::bytes(readFile(page), "text/html"));
    }
    for (const QString &wheel : std::as_const(m_wheels)) {
        const QByteArray bytes = readFile(wheelhouse + u"/wheels/"_s + wheel);
        QVERIFY2(!bytes.isEmpty(), qPrintable(wheel));
        // pip asks for the link percent-encoded ("+" in a local version becomes %2B).
        index.route("/wheels/" + wheel.toUtf8(), Response::bytes(bytes));
        index.route("/wheels/" + QUrl::toPercentEncoding(wheel), Response::bytes(bytes));
        // PEP 658: each wheel's METADATA beside it, which the index's pages announce.
        const QByteArray metadata = readFile(wheelhouse + u"/wheels/"_s + wheel + u".metadata"_s);
        index.route("/wheels/" + wheel.toUtf8() + ".metadata", Response::bytes(metadata));
        index.route("/wheels/" + QUrl::toPercentEncoding(wheel) + ".metadata", Response::bytes(metadata));
    }
}

QString TestJourneyNotebook::titleProblem(int pageId, const char *context, const char *english) const
{
    const QString expected = m_chinese.translate(context, english);
    if (expected.isEmpty() || !hasHan(expected))
        return u"the zh_CN catalogue has no translation for \"%1\" (%2)"_s.arg(QLatin1String(english),
                                                                               QLatin1String(context));
    const QString title = m_wizard->page(pageId)->title();
    if (title != expected)
        return u"page %1 shows \"%2\", not the zh_CN translation \"%3\""_s.arg(pageId).arg(title, expected);
    return {};
}

void TestJourneyNotebook::chineseStudent_endsWithANotebookOnThisEnvironment()
{
    LoopbackServer index;
    QVERIFY(index.start());
    serveWheelhouse(index);

    m_system = std::make_unique<core::RealSystem>();
    m_translations = std::make_unique<core::Translations>();
    QList<QStringList> launched;
    m_wizard = m_host.wizard(*m_system, m_dir, &launched, m_translations.get());
    m_wizard->show();

    // Welcome: the student picks 简体中文 with the keyboard on the language switch.
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::WelcomePageId));
    auto *language = child<QComboBox>(m_wizard.get(), u"languageCombo"_s);
    QVERIFY(language->isVisible());
    const int chinese = language->findData(u"zh_CN"_s);
    QVERIFY(chinese >= 0);
    QCOMPARE(language->itemText(chinese), u"简体中文"_s);
    for (int presses = 0; language->currentIndex() != chinese && presses < language->count(); ++presses)
        QTest::keyClick(language, language->currentIndex() < chinese ? Qt::Key_Down : Qt::Key_Up);
    QCOMPARE(language->currentIndex(), chinese);
    QCOMPARE(m_translations->language(), u"zh_CN"_s);
    // LanguageChange reaches the pages on the next turns of the event loop.
    QTRY_VERIFY_WITH_TIMEOUT(
        titleProblem(ui::SetupWizard::WelcomePageId, "tfsetup::ui::WelcomePage", "Welcome").isEmpty(), 5'000);
    QVERIFY(hasHan(m_wizard->windowTitle()));
    QVERIFY(nextEnabled());
    clickNext();

    // Detect: Next waits for the scan.
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::DetectPageId));
    QString problem = titleProblem(ui::SetupWizard::DetectPageId, "tfsetup::ui::DetectPage", "Your computer");
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QTRY_VERIFY_WITH_TIMEOUT(nextEnabled(), 10'000);
    clickNext();

    // Choose: the solver's CPU plan.
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::ChoosePageId));
    problem = titleProblem(ui::SetupWizard::ChoosePageId, "tfsetup::ui::ChoosePage", "Your TensorFlow setup");
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QTRY_VERIFY_WITH_TIMEOUT(m_wizard->choosePage()->chosenPlan().has_value(), 20'000);
    QVERIFY(nextEnabled());
    const core::Plan plan = *m_wizard->choosePage()->chosenPlan();
    QVERIFY2(plan.cuda.isEmpty(), qPrintable(plan.route));
    clickNext();

    // The stand-in TensorFlow under the name and version the plan asks for, and JupyterLab's
    // stand-in (Debian has none) without shadowing the real ipykernel.
    const QString distribution = plan.package.section(u'[', 0, 0);
    const QString normalized = QString(distribution).replace(u'_', u'-').toLower();
    QVERIFY2(!m_realProjects.contains(normalized), qPrintable(normalized));
    QByteArray module = readFile(qEnvironmentVariable("TFSETUP_TEST_DATA")
                                 + u"/verify/fake_tensorflow/tensorflow/__init__.py"_s);
    QVERIFY(!module.isEmpty());
    module.replace(QByteArray("__version__ = \"2.99.0\""),
                   QByteArray("__version__ = \"" + plan.tensorflow.toUtf8() + '"'));
    const QString wheelName = QString(distribution).replace(u'-', u'_') + u'-' + plan.tensorflow
        + u"-py3-none-any.whl"_s;
    const QString wheel = m_dir.filePath(wheelName);
    QVERIFY(buildWheel(m_host.python, wheel, distribution, plan.tensorflow, module));
    const QByteArray wheelBytes = readFile(wheel);
    const QByteArray digest = QCryptographicHash::hash(wheelBytes, QCryptographicHash::Sha256).toHex();
    index.route("/simple/" + normalized.toUtf8() + "/",
                Response::bytes("<!DOCTYPE html><html><body><a href=\"/files/" + wheelName.toUtf8()
                                    + "#sha256=" + digest + "\">" + wheelName.toUtf8() + "</a></body></html>",
                                "text/html"));
    index.route("/files/" + wheelName.toUtf8(), Response::bytes(wheelBytes));
    QVERIFY(m_host.serveJupyterStandIns(index, m_dir, m_realProjects));
    QVERIFY(!QFileInfo::exists(m_dir.filePath(u"ipykernel-0.1-py3-none-any.whl"_s)));
    QVERIFY(QFileInfo::exists(m_dir.filePath(u"jupyterlab-0.1-py3-none-any.whl"_s)));

    // Options: the defaults, Jupyter left on; only the lab's index typed in.
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::OptionsPageId));
    problem = titleProblem(ui::SetupWizard::OptionsPageId, "tfsetup::ui::OptionsPage", "Options");
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    auto *options = m_wizard->optionsPage();
    const QString prefix = m_dir.filePath(u"home/tfsetup-envs"_s);
    QCOMPARE(child<QLineEdit>(options, u"folderEdit"_s)->text(), prefix);
    const QString name = child<QLineEdit>(options, u"nameEdit"_s)->text();
    QCOMPARE(name, core::InstallSpec::defaultName(plan));
    QVERIFY(child<QCheckBox>(options, u"jupyterCheck"_s)->isChecked());
    child<QComboBox>(options, u"pypiMirrorCombo"_s)->setEditText(index.url(u"/simple"_s).toString());
    QVERIFY(nextEnabled());
    QSignalSpy resolved(options, &ui::OptionsPage::resolved);
    clickNext();
    QVERIFY(resolved.count() > 0 || resolved.wait(30'000));
    QCOMPARE(resolved.first().first().toBool(), true);
    QVERIFY(m_wizard->state().options().jupyter);

    // Download: every wheel pip's resolver locked, Debian's real ones included, a row each.
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::DownloadPageId));
    problem = titleProblem(ui::SetupWizard::DownloadPageId, "tfsetup::ui::DownloadPage", "Downloading");
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QVERIFY(m_wizard->state().lock().find(u"ipykernel"_s));
    QCOMPARE(m_wizard->downloadPage()->rowCount(), int(m_wizard->state().lock().packages.size()));
    QTRY_VERIFY_WITH_TIMEOUT(nextEnabled(), 120'000);

    // Install: a real venv from Debian's Python, pip from the loopback index.
    auto *install = m_wizard->installPage();
    QSignalSpy installed(install, &ui::InstallPage::finished);
    clickNext();
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::InstallPageId));
    problem = titleProblem(ui::SetupWizard::InstallPageId, "tfsetup::ui::InstallPage", "Installing");
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QVERIFY(installed.count() > 0 || installed.wait(300'000));
    QVERIFY2(installed.first().first().toBool(),
             qPrintable(install->error() ? install->error()->message + u'\n' + install->error()->detail : QString()));
    const QString environment = prefix + u'/' + name;
    QVERIFY(QFileInfo::exists(environment + u"/environment.json"_s));
    // pip took TensorFlow's stand-in, the real ipykernel and JupyterLab's stand-in from the index.
    QVERIFY(index.hits("/files/" + wheelName.toUtf8()) >= 1);
    const auto ipykernel = std::find_if(m_wheels.cbegin(), m_wheels.cend(),
                                        [](const QString &w) { return w.startsWith(u"ipykernel-"_s); });
    QVERIFY2(index.hits("/wheels/" + ipykernel->toUtf8()) >= 1, qPrintable(*ipykernel));
    QVERIFY(index.hits("/files/jupyterlab-0.1-py3-none-any.whl") >= 1);
    QVERIFY(index.hits("/files/ipykernel-0.1-py3-none-any.whl") == 0);
    QVERIFY(nextEnabled());
    clickNext();

    // Verify: the smoke test through the environment's own launcher.
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::VerifyPageId));
    problem = titleProblem(ui::SetupWizard::VerifyPageId, "tfsetup::ui::VerifyPage", "Checking");
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QSignalSpy verified(m_wizard->verifyPage(), &ui::VerifyPage::finished);
    QVERIFY(verified.count() > 0 || verified.wait(120'000));
    const auto &verdict = m_wizard->state().verified();
    QVERIFY(verdict);
    const core::VerifyLayer *import = verdict->layer(u"import"_s);
    QVERIFY(import);
    QVERIFY2(import->status == core::VerifyLayer::Status::Passed,
             qPrintable(import->summary + u'\n' + import->details.join(u'\n')));
    QCOMPARE(verdict->tensorflow, plan.tensorflow);
    QVERIFY(nextEnabled());
    clickNext();

    // Finish: Jupyter was chosen, so its button starts JupyterLab through the launcher; then Finish.
    QCOMPARE(m_wizard->currentId(), int(ui::SetupWizard::FinishPageId));
    problem = titleProblem(ui::SetupWizard::FinishPageId, "tfsetup::ui::FinishPage", "Ready");
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    auto *openJupyter = child<QPushButton>(m_wizard->finishPage(), u"openJupyterButton"_s);
    QVERIFY(openJupyter->isEnabled());
    QVERIFY(hasHan(openJupyter->text()));
    QTest::mouseClick(openJupyter, Qt::LeftButton);
    QCOMPARE(launched.size(), 1);
    QVERIFY2(launched.first().join(u' ').contains(environment + u"/start-jupyter"_s),
             qPrintable(launched.first().join(u' ')));
    QAbstractButton *finish = button(QWizard::FinishButton);
    QVERIFY(finish->isVisible() && finish->isEnabled());
    QTest::mouseClick(finish, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!m_wizard->isVisible(), 5'000);
    QCOMPARE(m_wizard->result(), int(QDialog::Accepted));

    // The kernel the wizard registered, in the isolated Jupyter data folder.
    const QString kernels = qEnvironmentVariable("JUPYTER_DATA_DIR") + u"/kernels"_s;
    QVERIFY2(kernels.startsWith(m_dir.path()), qPrintable(kernels));
    const QString venv = environment + u"/venv"_s;
    QString kernelName;
    for (const QString &entry : QDir(kernels).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        const QJsonObject spec = QJsonDocument::fromJson(readFile(kernels + u'/' + entry + u"/kernel.json"_s)).object();
        if (spec.value(u"argv"_s).toArray().at(0).toString() == venv + u"/bin/python"_s)
            kernelName = entry;
    }
    QVERIFY2(!kernelName.isEmpty(),
             qPrintable(u"no kernelspec under "_s + kernels + u" runs "_s + venv + u"/bin/python"_s));

    // A student's first notebook, executed by Debian's nbclient with that kernel.
    const QJsonObject cell{{u"cell_type"_s, u"code"_s},
                           {u"id"_s, u"first-cell"_s},
                           {u"execution_count"_s, QJsonValue()},
                           {u"metadata"_s, QJsonObject()},
                           {u"outputs"_s, QJsonArray()},
                           {u"source"_s,
                            QJsonArray{u"import os, sys\n"_s, u"print('executable=' + sys.executable)\n"_s,
                                       u"print('path=' + os.environ['PATH'])\n"_s, u"import tensorflow\n"_s,
                                       u"print('tensorflow=' + tensorflow.__file__)\n"_s}}};
    const QJsonObject notebook{
        {u"cells"_s, QJsonArray{cell}},
        {u"metadata"_s,
         QJsonObject{
             {u"kernelspec"_s,
              QJsonObject{{u"name"_s, kernelName}, {u"display_name"_s, kernelName}, {u"language"_s, u"python"_s}}}}},
        {u"nbformat"_s, 4},
        {u"nbformat_minor"_s, 5}};
    const QString source = m_dir.filePath(u"work/first.ipynb"_s);
    const QString executed = m_dir.filePath(u"work/first.executed.ipynb"_s);
    QVERIFY(QDir().mkpath(m_dir.filePath(u"work"_s)));
    {
        QFile f(source);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QJsonDocument(notebook).toJson());
    }
    const Ran client = test::runProcess(
        debianPython, {u"-c"_s, executeNotebook, source, kernelName, executed, m_dir.filePath(u"work"_s)}, 240'000);
    QVERIFY2(client.finished, "nbclient did not finish within 240 s");
    QVERIFY2(client.exitCode == 0, QByteArray(client.out.right(2000) + client.err.right(4000)).constData());
    QVERIFY2(QFileInfo::exists(executed), qPrintable(executed));

    const QJsonArray outputs = QJsonDocument::fromJson(readFile(executed))
                                   .object()
                                   .value(u"cells"_s)
                                   .toArray()
                                   .at(0)
                                   .toObject()
                                   .value(u"outputs"_s)
                                   .toArray();
    QString stdoutText;
    for (const QJsonValue &v : outputs) {
        const QJsonObject output = v.toObject();
        const QString type = output.value(u"output_type"_s).toString();
        QVERIFY2(type != u"error"_s, qPrintable(QString::fromUtf8(QJsonDocument(output).toJson())));
        if (type == u"stream"_s && output.value(u"name"_s).toString() == u"stdout"_s) {
            const QJsonValue text = output.value(u"text"_s);
            if (text.isArray()) {
                for (const QJsonValue &part : text.toArray())
                    stdoutText += part.toString();
            } else {
                stdoutText += text.toString();
            }
        }
    }
    qInfo().noquote() << "The notebook's cell printed:\n" << stdoutText;
    QHash<QString, QString> printed;
    for (const QString &line : stdoutText.split(u'\n', Qt::SkipEmptyParts))
        printed.insert(line.section(u'=', 0, 0), line.section(u'=', 1));
    QVERIFY2(printed.size() == 3, qPrintable(stdoutText));
    QCOMPARE(printed.value(u"executable"_s), venv + u"/bin/python"_s);
    QCOMPARE(printed.value(u"path"_s).split(u':').value(0), venv + u"/bin"_s);
    const QString tensorflow = printed.value(u"tensorflow"_s);
    QVERIFY2(tensorflow.startsWith(venv + u"/lib/"_s) && tensorflow.endsWith(u"/tensorflow/__init__.py"_s),
             qPrintable(tensorflow));

    // nbclient shut its kernel down.
    QDeadlineTimer gone(20'000);
    while (!processesUsing(environment).isEmpty() && !gone.hasExpired())
        QThread::msleep(200);
    QVERIFY2(processesUsing(environment).isEmpty(), qPrintable(processesUsing(environment).join(u'\n')));
}

void TestJourneyNotebook::cleanupTestCase()
{
    m_wizard.reset();
    m_translations.reset(); // removes its translators
    QVERIFY2(processesUsing(m_dir.path()).isEmpty(), qPrintable(processesUsing(m_dir.path()).join(u'\n')));
}

QTEST_MAIN(TestJourneyNotebook)
#include "test_journey_notebook.moc"
