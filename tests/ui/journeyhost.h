#pragma once

// What the first-time journeys (tests/ui/test_journey_student.cpp, test_journey_keyboard.cpp,
// test_journey_notebook.cpp) share: this host's Python, which makes the environment's real venv,
// the user's folders moved into a temporary one, and a wizard over this machine whose scan
// returns a canned report (no NVIDIA GPU, that Python as the only interpreter) and whose Finish
// page only records launches.

#include "uitest.h"
#include "install/launchers.h"
#include "support/files.h"
#include "support/loopbackserver.h"
#include "system/systemview.h"
#include "ui/detectpage.h"
#include "ui/finishpage.h"
#include "ui/optionspage.h"
#include "ui/setupwizard.h"
#include "ui/verifypage.h"

#include <QDir>
#include <QFileInfo>
#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <memory>

namespace tfsetup::test {

struct JourneyHost {
    QString python;        // sys.executable of the host's python3
    QString pythonVersion; // "3.11.2"

    // Finds `program` (python3 on the PATH unless a journey needs a particular interpreter) and
    // checks it can make venvs; moves HOME, XDG_DATA_HOME, Jupyter's folder, tfsetup's download
    // cache and pip's configuration into `dir`. Returns why the journey cannot run here, or an
    // empty string; `python` is empty if the interpreter answered oddly.
    QString prepare(const QTemporaryDir &dir, const QString &program = QStringLiteral("python3"))
    {
        const QString found = QStandardPaths::findExecutable(program);
        if (found.isEmpty())
            return program + QStringLiteral(" is not installed");
        QProcess probe;
        probe.start(found,
                    {QStringLiteral("-c"),
                     QStringLiteral("import sys, platform, venv, ensurepip; "
                                    "print(sys.executable); print(platform.python_version())")});
        if (!probe.waitForFinished(30000) || probe.exitCode() != 0)
            return QStringLiteral("python3 cannot make virtual environments here (python3-venv missing)");
        const QStringList lines = QString::fromUtf8(probe.readAllStandardOutput()).split(u'\n', Qt::SkipEmptyParts);
        if (lines.size() != 2)
            return {}; // python stays empty: the test fails on it
        python = lines.at(0).trimmed();
        pythonVersion = lines.at(1).trimmed();
        // Everything the wizard writes outside the environment (kernelspec, desktop entry,
        // downloads, settings) lands in the temporary folder, never in the user's home.
        qputenv("HOME", dir.filePath(QStringLiteral("home")).toLocal8Bit());
        qputenv("XDG_DATA_HOME", dir.filePath(QStringLiteral("home/.local/share")).toLocal8Bit());
        qputenv("JUPYTER_DATA_DIR", dir.filePath(QStringLiteral("home/.local/share/jupyter")).toLocal8Bit());
        qputenv("TFSETUP_CACHE_DIR", dir.filePath(QStringLiteral("cache")).toLocal8Bit());
        qputenv("PIP_CONFIG_FILE", "/dev/null");
        qputenv("FAKE_TF_MODE", "no_gpu");
        QDir().mkpath(dir.filePath(QStringLiteral("home")));
        return {};
    }

    // Every environment gets the Jupyter kernel's packages and, with the Options page's default,
    // JupyterLab's: `index` serves stand-ins under their names (empty packages; the journeys are
    // about the wizard, tests/core/install/test_jupyter.cpp runs the real kernel and server). Projects in
    // `servedForReal` (normalized names the index serves real wheels of) get no stand-in.
    bool serveJupyterStandIns(test::LoopbackServer &index, const QTemporaryDir &dir,
                              const QStringList &servedForReal = {}) const
    {
        const core::JupyterSettings &jupyter = core::JupyterSettings::builtIn();
        QStringList projects = jupyter.kernelRequirements;
        if (const core::JupyterSettings::FrontEnd *f = jupyter.frontEnd(jupyter.defaultFrontEnd))
            projects += f->requirements;
        for (const QString &requirement : projects) {
            const QString project = core::requirementProject(requirement);
            if (servedForReal.contains(project))
                continue;
            const QString module = QString(project).replace(u'-', u'_');
            const QString wheelName = module + QStringLiteral("-0.1-py3-none-any.whl");
            const QString wheel = dir.filePath(wheelName);
            if (!buildWheel(python, wheel, project, QStringLiteral("0.1"), QByteArray(), module))
                return false;
            const QByteArray bytes = readFile(wheel);
            const QByteArray digest = QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
            index.route("/simple/" + project.toUtf8() + "/",
                        test::Response::bytes("<!DOCTYPE html><html><body><a href=\"/files/" + wheelName.toUtf8()
                                                  + "#sha256=" + digest + "\">" + wheelName.toUtf8()
                                                  + "</a></body></html>",
                                              "text/html"));
            index.route("/files/" + wheelName.toUtf8(), test::Response::bytes(bytes));
        }
        return true;
    }

    // The package index serves a stand-in TensorFlow under the name and version the plan asks for
    // (tests/data/verify/fake_tensorflow, its __version__ set to the plan's), as a wheel built with
    // the host's Python; its link carries the wheel's SHA-256 as pip expects. Returns the wheel's
    // file name, empty when it could not be built.
    QString serveTensorFlowStandIn(LoopbackServer &index, const QTemporaryDir &dir, const core::Plan &plan) const
    {
        const QString distribution = plan.package.section(u'[', 0, 0);
        const QString normalized = QString(distribution).replace(u'_', u'-').toLower();
        QByteArray module = readFile(qEnvironmentVariable("TFSETUP_TEST_DATA")
                                     + QStringLiteral("/verify/fake_tensorflow/tensorflow/__init__.py"));
        module.replace(QByteArray("__version__ = \"2.99.0\""),
                       QByteArray("__version__ = \"" + plan.tensorflow.toUtf8() + '"'));
        const QString wheelName = QString(distribution).replace(u'-', u'_') + u'-' + plan.tensorflow
            + QStringLiteral("-py3-none-any.whl");
        const QString wheel = dir.filePath(wheelName);
        if (!buildWheel(python, wheel, distribution, plan.tensorflow, module))
            return {};
        const QByteArray bytes = readFile(wheel);
        const QByteArray digest = QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
        index.route("/simple/" + normalized.toUtf8() + "/",
                    Response::bytes("<!DOCTYPE html><html><body><a href=\"/files/" + wheelName.toUtf8()
                                        + "#sha256=" + digest + "\">" + wheelName.toUtf8() + "</a></body></html>",
                                    "text/html"));
        index.route("/files/" + wheelName.toUtf8(), Response::bytes(bytes));
        return wheelName;
    }

    // The wizard for the journey; programs the Finish page would start are appended to *launched.
    // With `translations` the Welcome page offers the language switch.
    std::unique_ptr<ui::SetupWizard> wizard(core::SystemView &system, const QTemporaryDir &dir,
                                            QList<QStringList> *launched,
                                            core::Translations *translations = nullptr) const
    {
        auto w = std::make_unique<ui::SetupWizard>(system, translations);
        w->resize(900, 700);
        QJsonObject machine = QJsonDocument::fromJson(readFile(qEnvironmentVariable("TFSETUP_TEST_DATA")
                                                               + QStringLiteral("/solver/linux_no_gpu.json")))
                                  .object();
        machine[QStringLiteral("pythons")] = QJsonArray{
            QJsonObject{{QStringLiteral("path"), python},
                        {QStringLiteral("version"), pythonVersion},
                        {QStringLiteral("kind"), QStringLiteral("system")},
                        {QStringLiteral("bits"), 64},
                        {QStringLiteral("source"), QStringLiteral("path")}}};
        const core::HardwareReport report = core::HardwareReport::fromJson(machine);
        w->detectPage()->setDetectFunction([report](core::SystemView &) -> QCoro::Task<core::HardwareReport> {
            return [](core::HardwareReport r) -> QCoro::Task<core::HardwareReport> { co_return r; }(report);
        });
        const QString ini = dir.filePath(QStringLiteral("settings.ini"));
        w->optionsPage()->setSettingsFactory([ini] { return std::make_unique<QSettings>(ini, QSettings::IniFormat); });
        // The mirror presets a Chinese Options page measures stay on this machine.
        core::SetupOptions offline;
        offline.network.originOverrides = test::presetsOnClosedPort();
        w->optionsPage()->suggestOptions(offline);
        w->verifyPage()->setProbePath(
            QFileInfo(qEnvironmentVariable("TFSETUP_BINARY")).dir().filePath(QStringLiteral("tfsetup-probe")));
        w->finishPage()->setLaunchFunction(
            [launched](const QString &program, const QStringList &args, const QString &) {
                launched->append(QStringList{program} + args);
                return true;
            });
        w->finishPage()->setFindProgram(
            [](const QString &name) { return name == u"xterm" ? QStringLiteral("/usr/bin/xterm") : QString(); });
        return w;
    }
};

} // namespace tfsetup::test
