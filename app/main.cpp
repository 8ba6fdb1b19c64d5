// tfsetup: no arguments opens the wizard; a subcommand runs headless (see `tfsetup --help`).

#include "cli/cli.h"
#include "detect/detector.h"
#include "setup/setupsession.h"
#include "system/realsystem.h"
#include "ui/setupwizard.h"
#include "util/i18n.h"
#include "util/runlog.h"

#include <QApplication>
#include <QCoro/QCoroTask>
#include <QCommandLineParser>
#include <QLocale>

namespace {

using namespace tfsetup;

bool hasDisplay()
{
#if defined(Q_OS_LINUX)
    return !qEnvironmentVariableIsEmpty("DISPLAY") || !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")
        || !qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM");
#else
    return true;
#endif
}

void setIdentity()
{
    QCoreApplication::setOrganizationName(QStringLiteral("tfsetup"));
    QCoreApplication::setApplicationName(QStringLiteral("tfsetup"));
    QCoreApplication::setApplicationVersion(QStringLiteral(TFSETUP_VERSION_STRING));
}

int runHeadless(int argc, char **argv, const QStringList &args)
{
    QCoreApplication app(argc, argv);
    setIdentity();
    core::Translations translations;
    translations.setLanguage(core::Translations::bestFor(QLocale::system()));
    core::RunLog::start();
    const QString first = args.value(1);
    if (first == u"-h" || first == u"--help" || first == u"help") {
        cli::printOut(cli::topLevelHelp());
        return cli::Success;
    }
    if (first == u"-v" || first == u"--version") {
        cli::printOut(QStringLiteral("tfsetup %1\n").arg(QCoreApplication::applicationVersion()));
        return cli::Success;
    }
    return cli::dispatch(args);
}

// The wizard's own options: those of a --root folder and --language.
void addWizardOptions(QCommandLineParser &parser)
{
    cli::addSystemOptions(parser);
    parser.addOption({QStringLiteral("language"),
                      cli::Cli::tr("Use this language (%1) instead of the system's.")
                          .arg(core::Translations::available().join(QStringLiteral(", "))),
                      QStringLiteral("LANG")});
    parser.addOption({QStringLiteral("page"),
                      cli::Cli::tr("With --root: open the wizard on this page (%1), for demonstrations and "
                                   "screenshots of a fixture machine.")
                          .arg(ui::SetupWizard::pageNames().join(QStringLiteral(", "))),
                      QStringLiteral("PAGE")});
}

// `tfsetup` alone, or `tfsetup wizard [--root DIR --env-file FILE --os windows|linux] [--language L]`:
// the wizard over this machine or over a fixture tree (demonstrations, screenshots, lab training).
// `wizardArgs` are the wizard's arguments after the program name.
int runWizard(int argc, char **argv, const QString &program, const QStringList &wizardArgs)
{
    const QStringList parserArgs = QStringList{program + QStringLiteral(" wizard")} + wizardArgs;
    QString language;
    {
        // Help, usage errors and a missing display are answered before QApplication exists: it
        // aborts the process when it cannot reach a display.
        QCoreApplication app(argc, argv);
        setIdentity();
        core::Translations translations;
        translations.setLanguage(core::Translations::bestFor(QLocale::system()));
        QCommandLineParser parser;
        addWizardOptions(parser);
        if (const int code = cli::parseOrExit(parser, parserArgs, cli::Cli::tr("Open the setup wizard.")); code >= 0)
            return code;
        language = parser.value(QStringLiteral("language"));
        if (!language.isEmpty() && !core::Translations::available().contains(language)) {
            cli::printErr(cli::Cli::tr("tfsetup: there is no translation \"%1\". Choose one of: %2.")
                              .arg(language, core::Translations::available().join(QStringLiteral(", "))));
            return cli::UsageError;
        }
        if (const QString page = parser.value(QStringLiteral("page"));
            !page.isEmpty() && (ui::SetupWizard::pageIdFor(page) < 0 || !parser.isSet(QStringLiteral("root")))) {
            cli::printErr(cli::Cli::tr("tfsetup: --page needs --root and one of: %1.")
                              .arg(ui::SetupWizard::pageNames().join(QStringLiteral(", "))));
            return cli::UsageError;
        }
        if (!hasDisplay()) {
            cli::printErr(cli::Cli::tr("tfsetup: the wizard needs a graphical display, and there is none "
                                       "here (DISPLAY and WAYLAND_DISPLAY are unset). Start it on the "
                                       "desktop, or use the commands listed by \"tfsetup --help\", for "
                                       "example \"tfsetup detect\"."));
            return cli::Failure;
        }
    }

    QApplication app(argc, argv);
    setIdentity();
    core::Translations translations;
    translations.setLanguage(language.isEmpty() ? core::Translations::bestFor(QLocale::system()) : language);
    QCommandLineParser parser;
    addWizardOptions(parser);
    parser.parse(parserArgs); // checked above
    core::RunLog::start();
    auto system = cli::systemFromOptions(parser);
    if (!system) {
        cli::printError(system.error());
        return cli::UsageError;
    }
    ui::SetupWizard wizard(**system, &translations);
    // Progress is kept (and an unfinished setup offered) for this machine only, not for a
    // fixture tree shown with --root.
    if (!parser.isSet(QStringLiteral("root")))
        wizard.setSessionFile(core::SetupSession::defaultPath());
    if (const int page = ui::SetupWizard::pageIdFor(parser.value(QStringLiteral("page")));
        page >= 0 && page != ui::SetupWizard::WelcomePageId) {
        // A page past Detect reads the fixture machine's report, as if Detect had run.
        wizard.state().setHardware(QCoro::waitFor(core::detectHardware(**system)));
        if (page == ui::SetupWizard::RepairPageId)
            wizard.state().setMode(ui::WizardState::Mode::Repair);
        else if (page == ui::SetupWizard::LabProfilePageId)
            wizard.state().setMode(ui::WizardState::Mode::LabProfile);
        wizard.setStartId(page);
    }
    wizard.show();
    return app.exec();
}

} // namespace

int main(int argc, char **argv)
{
    QStringList args;
    for (int i = 0; i < argc; ++i)
        args.append(QString::fromLocal8Bit(argv[i]));

    if (args.value(1) == u"wizard")
        return runWizard(argc, argv, args.value(0), args.mid(2));
    if (args.size() > 1)
        return runHeadless(argc, argv, args);
    if (!hasDisplay()) {
        // No display (a server, an SSH session): show what the wizard would have found.
        args.append(QStringLiteral("detect"));
        return runHeadless(argc, argv, args);
    }

    return runWizard(argc, argv, args.value(0), {});
}
