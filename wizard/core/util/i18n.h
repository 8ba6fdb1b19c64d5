#pragma once

#include <QList>
#include <QLocale>
#include <QString>
#include <QTranslator>

#include <memory>

namespace tfsetup::core {

// Installs tfsetup's and Qt's own translations for one language, and switches at run time
// (QEvent::LanguageChange reaches every widget, which retranslates itself).
class Translations final {
public:
    Translations() = default;
    ~Translations();
    Translations(const Translations &) = delete;
    Translations &operator=(const Translations &) = delete;

    // Languages with an embedded translation, plus "en" (the source language).
    static QStringList available();
    // "zh_CN" for Simplified Chinese (zh_CN, zh_SG, zh_Hans), "zh_TW" for Traditional (zh_TW,
    // zh_HK, zh_MO, zh_Hant), "en" when nothing fits.
    static QString bestFor(const QLocale &locale);
    // Native name for the language switch: "English", "简体中文", "繁體中文".
    static QString nativeName(const QString &language);

    // Replaces the installed translators. Returns false when the language has no translation
    // (English is always available and installs none).
    bool setLanguage(const QString &language);
    QString language() const { return m_language; }

private:
    void removeAll();

    QString m_language = QStringLiteral("en");
    std::vector<std::unique_ptr<QTranslator>> m_installed;
};

} // namespace tfsetup::core
