#include "util/i18n.h"

#include <QCoreApplication>
#include <QDir>
#include <QLibraryInfo>

namespace tfsetup::core {

Translations::~Translations()
{
    removeAll();
}

QStringList Translations::available()
{
    QStringList languages{QStringLiteral("en")};
    const QStringList files = QDir(QStringLiteral(":/i18n")).entryList({QStringLiteral("tfsetup_*.qm")});
    for (const QString &f : files)
        languages.append(f.mid(8, f.size() - 8 - 3));
    return languages;
}

QString Translations::bestFor(const QLocale &locale)
{
    const QStringList have = available();
    for (const QString &ui : locale.uiLanguages()) {
        QString name = QLocale(ui).name(); // "zh_CN", "en_US"
        if (have.contains(name))
            return name;
        // Chinese goes by script, not region: Singapore reads the Simplified catalogue, Hong Kong
        // and Macau the Traditional one (written for Taiwan, the nearest there is).
        const QLocale l(ui);
        if (l.language() == QLocale::Chinese) {
            const QString chinese = l.script() == QLocale::TraditionalChineseScript ? QStringLiteral("zh_TW")
                                                                                    : QStringLiteral("zh_CN");
            if (have.contains(chinese))
                return chinese;
        }
        if (l.language() == QLocale::English)
            return QStringLiteral("en");
    }
    return QStringLiteral("en");
}

QString Translations::nativeName(const QString &language)
{
    if (language == u"en")
        return QStringLiteral("English");
    const QLocale l(language);
    QString name = l.nativeLanguageName();
    if (l.language() == QLocale::Chinese)
        name = l.script() == QLocale::TraditionalChineseScript ? QStringLiteral("繁體中文")
                                                               : QStringLiteral("简体中文");
    return name.isEmpty() ? language : name;
}

void Translations::removeAll()
{
    for (auto &t : m_installed)
        QCoreApplication::removeTranslator(t.get());
    m_installed.clear();
}

bool Translations::setLanguage(const QString &language)
{
    removeAll();
    m_language = QStringLiteral("en");
    if (language.isEmpty() || language == u"en" || language.startsWith(QLatin1String("en_"))) {
        // Dates and numbers follow the language shown: English ones, not the Chinese of a Chinese
        // desktop whose student chose English.
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
        return true;
    }
    auto own = std::make_unique<QTranslator>();
    if (!own->load(QStringLiteral(":/i18n/tfsetup_%1.qm").arg(language)))
        return false;
    // Qt's own strings (dialog buttons, the wizard's Back/Next) when the system has them.
    auto qt = std::make_unique<QTranslator>();
    if (qt->load(QLocale(language), QStringLiteral("qtbase"), QStringLiteral("_"),
                 QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
        QCoreApplication::installTranslator(qt.get());
        m_installed.push_back(std::move(qt));
    }
    QCoreApplication::installTranslator(own.get());
    m_installed.push_back(std::move(own));
    m_language = language;
    // QLocale() everywhere (dates, sizes, numbers) speaks the language the wizard shows.
    QLocale::setDefault(QLocale(language));
    return true;
}

} // namespace tfsetup::core
