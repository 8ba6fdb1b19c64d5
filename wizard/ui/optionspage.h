#pragma once

#include "setup/pipeline.h"
#include "setup/setupflow.h"
#include "sources/artifact.h"
#include "sources/originprobe.h"
#include "util/result.h"

#include <QCoro/QCoroTask>
#include <QPointer>
#include <QWizardPage>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QScrollArea;
class QSettings;

namespace tfsetup::core {
class Translations;
}

namespace tfsetup::ui {

class ConnectionTest;
class PageStatus;
class WizardState;

// Where the environment goes and how files are fetched: install folder, environment name,
// mirrors (PyPI presets from the sources catalog, an NVIDIA mirror or lab folder), proxy, the
// download folder and an offline bundle. Every term has a "What is this?" link. Next resolves the
// plan's artifacts (awaited, never blocking) and commits them with the download requests; the
// choices are remembered for next time. Files without any published checksum stop there until
// the student ticks "trust on first use" (never remembered): Next then fetches them, records
// their SHA-256 and commits as usual.
//
// "Test connection" (ConnectionTest, connectiontest.h) measures each origin with the fields' proxy
// and mirrors (core::OriginProbe) and shows reachable / how fast / why not in a table; the page's
// one status area says the cause in plain words with one button that does the fix: focus the
// proxy field, pick the fastest PyPI mirror measured (or open the mirror choice), or focus the
// bundle field. Changing a network setting clears the results. Next after a failed test stops once, says why and offers the fix;
// pressed again it goes on. The form scrolls: fields keep their size in a small window.
//
// When the student has not chosen a PyPI mirror (nothing remembered, nothing suggested, the
// combo untouched) and the wizard speaks Chinese, or the test found PyPI unreachable or slow, the
// presets are ranked in the background and the fastest is preselected, the status area saying
// which and why. A choice of the student's is never overridden.
class OptionsPage final : public QWizardPage {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(OptionsPage)
public:
    using SettingsFactory = std::function<std::unique_ptr<QSettings>()>;

    explicit OptionsPage(WizardState &state, QWidget *parent = nullptr);
    ~OptionsPage() override;

    // Where choices are remembered; tests pass a temporary INI file.
    void setSettingsFactory(SettingsFactory factory) { m_settings = std::move(factory); }
    // Fields the page does not show (origin overrides for labs and tests, CA bundle, timeout).
    void setBaseOptions(core::SetupOptions options) { m_base = std::move(options); }
    // The language the wizard speaks: the presets' Chinese names and the Chinese default follow it.
    // Null (the default) is English.
    void setTranslations(const core::Translations *translations);
    QString language() const;
    bool isTestingConnection() const;
    bool isRankingMirrors() const;
    // Choices a lab profile or a continued setup brings (folder, name, mirrors, proxy, folders, Jupyter):
    // they fill the fields over remembered settings and defaults each time the page opens. The
    // name is kept while the plan is the one they came with. Also the base options.
    void suggestOptions(core::SetupOptions options);
    // The artifacts in the state were resolved for the options as the fields say now (a continued
    // setup): Next commits them without resolving again.
    void keepResolved();

    // The options as the fields say now.
    core::SetupOptions options() const;
    bool isResolving() const { return m_resolving; }

    void initializePage() override;
    bool validatePage() override;
    bool isComplete() const override;
    void cleanupPage() override;

Q_SIGNALS:
    void resolved(bool ok);
    // The connection test's table is filled (ok: every origin the plan needs answered).
    void connectionTested(bool ok);
    // A background ranking finished; preset is the one preselected, empty when none was.
    void mirrorRanked(const QString &preset);

protected:
    void changeEvent(QEvent *event) override;

private:
    static QCoro::Task<> runPrepare(QPointer<OptionsPage> page, core::Plan plan, core::InstallSpec spec,
                                    core::SetupOptions options, quint64 generation);
    void finishPrepare(quint64 generation, core::SetupOptions options, core::Result<core::PreparedSetup> prepared);
    void commit(const core::SetupOptions &options, const core::PreparedSetup &prepared);
    void setBusy(bool busy);
    void showTrustChoice(bool show);
    void showHelp(const QString &topic);
    void updateAdvice();
    void load();
    void applySuggestion();
    void save(const core::SetupOptions &options);
    QString optionsKey(const core::SetupOptions &options) const;
    void retranslate();
    void retranslatePresets();
    core::OriginProbeRequest probeRequest(std::shared_ptr<const std::atomic<bool>> cancel) const;
    void testConnection();
    // What the connection test's answer means for the fields and the status area.
    void finishTest(const core::Status &status);
    void finishRanking(const QString &why, const core::Result<QList<core::OriginResult>> &ranked);
    bool mayChooseMirror() const;
    void pickMirror(const core::OriginResult &best, const QList<core::OriginResult> &measured, const QString &why);
    void showReport();
    void markPypiChosen();
    // A network setting changed: the test's results and what they said no longer hold.
    void clearConnection();
    // The needed origins the last test could not reach (or found too slow) that the fields have not
    // fixed since (a PyPI mirror chosen that answered).
    QList<core::OriginResult> failures() const;
    // The one fix for these failures, as the status area's button; false when none fits.
    bool offerFix(const QList<core::OriginResult> &failed);
    void useFastestMirror();
    void focusProxy();
    void focusBundle();
    void chooseMirror();
    QString pickedText() const;

    WizardState &m_state;
    SettingsFactory m_settings;
    core::SetupOptions m_base;
    bool m_resolving = false;
    quint64 m_generation = 0;
    QString m_resolvedKey; // options + plan the committed artifacts were resolved for
    std::optional<core::SetupOptions> m_suggested;
    QString m_suggestedPlan; // the plan (JSON) the suggestion came with
    QString m_helpTopic;
    const core::Translations *m_translations = nullptr;
    // The PyPI mirror is the student's (remembered, suggested, or touched in the combo): no
    // measurement changes it.
    bool m_pypiChosen = false;
    QString m_pickedPreset;      // preselected by a ranking, while the combo still shows it
    QString m_pickedWhy;         // the ranking's measurements, why it preselected (for the status line)
    QString m_pickedLine;        // what the status area says about the preselection
    bool m_applyingPick = false; // the page itself sets the combo: not the student's network change
    bool m_warnedNext = false;   // Next stopped once for a failed test; pressed again it goes on

    QLineEdit *m_folderEdit;
    QPushButton *m_folderBrowse;
    QLabel *m_folderAdvice;
    QLineEdit *m_nameEdit;
    QComboBox *m_pypiCombo;
    QLineEdit *m_nvidiaEdit;
    QLineEdit *m_proxyEdit;
    QLineEdit *m_cacheEdit;
    QLineEdit *m_bundleEdit;
    QPushButton *m_bundleBrowse;
    QLabel *m_helpLabel;
    QCheckBox *m_jupyterCheck;
    QCheckBox *m_trustCheck;
    QLabel *m_trustRisk;
    PageStatus *m_status;
    QProgressBar *m_busy;
    ConnectionTest *m_connection;
    QScrollArea *m_scroll;
    QList<QLabel *> m_rowLabels;
    QList<QPushButton *> m_helpLinks;
};

} // namespace tfsetup::ui
