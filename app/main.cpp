// tfsetup: no arguments opens the wizard; a subcommand runs headless (see `tfsetup --help`).

#include "cli/cli.h"
#include "setup/setupsession.h"
#include "system/realsystem.h"
#include "ui/setupwizard.h"
#include "util/i18n.h"
#include "util/runlog.h"

#include <QApplication>
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
        core::cli::printOut(core::cli::topLevelHelp());
        return core::cli::Success;
    }
    if (first == u"-v" || first == u"--version") {
        core::cli::printOut(QStringLiteral("tfsetup %1\n").arg(QCoreApplication::applicationVersion()));
        return core::cli::Success;
    }
    return core::cli::dispatch(args);
}

// `tfsetup` alone, or `tfsetup wizard [--root DIR --env-file FILE --os windows|linux] [--language L]`:
// the wizard over this machine or over a fixture tree (demonstrations, screenshots, lab training).
int runWizard(int argc, char **argv, const QStringList &args)
{
    QApplication app(argc, argv);
    setIdentity();
    core::Translations translations;
    QCommandLineParser parser;
    core::cli::addSystemOptions(parser);
    parser.addOption({QStringLiteral("language"),
                      core::cli::Cli::tr("Use this language (%1) instead of the system's.")
                          .arg(core::Translations::available().join(QStringLiteral(", "))),
                      QStringLiteral("LANG")});
    QStringList wizardArgs = args.mid(1);
    wizardArgs[0] = args.value(0) + QStringLiteral(" wizard");
    if (args.size() > 1) {
        if (const int code = core::cli::parseOrExit(parser, wizardArgs, core::cli::Cli::tr("Open the setup wizard.")); code >= 0)
            return code;
    }
    translations.setLanguage(parser.isSet(QStringLiteral("language")) ? parser.value(QStringLiteral("language"))
                                                                      : core::Translations::bestFor(QLocale::system()));
    core::RunLog::start();
    auto system = core::cli::systemFromOptions(parser);
    if (!system) {
        core::cli::printError(system.error());
        return core::cli::UsageError;
    }
    ui::SetupWizard wizard(**system, &translations);
    // Progress is kept (and an unfinished setup offered) for this machine only, not for a
    // fixture tree shown with --root.
    if (!parser.isSet(QStringLiteral("root")))
        wizard.setSessionFile(core::SetupSession::defaultPath());
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
        return runWizard(argc, argv, args);
    if (args.size() > 1)
        return runHeadless(argc, argv, args);
    if (!hasDisplay()) {
        // No display (a server, an SSH session): show what the wizard would have found.
        args.append(QStringLiteral("detect"));
        return runHeadless(argc, argv, args);
    }

    return runWizard(argc, argv, args);
}
