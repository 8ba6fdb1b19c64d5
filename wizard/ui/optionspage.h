#pragma once

#include "setup/setupflow.h"
#include "sources/artifact.h"
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
class QSettings;

namespace tfsetup::ui {

class WizardState;

// Where the environment goes and how files are fetched: install folder, environment name,
// mirrors (PyPI presets from the sources catalog, an NVIDIA mirror or lab folder), proxy, the
// download folder and an offline bundle. Every term has a "What is this?" link. Next resolves the
// plan's artifacts (awaited, never blocking) and commits them with the download requests; the
// choices are remembered for next time. Files without any published checksum stop there until
// the student ticks "trust on first use" (never remembered): Next then fetches them, records
// their SHA-256 and commits as usual.
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

protected:
    void changeEvent(QEvent *event) override;

private:
    static QCoro::Task<> runResolve(QPointer<OptionsPage> page, core::Plan plan, QString os,
                                    core::SetupOptions options, quint64 generation);
    void finishResolve(quint64 generation, core::SetupOptions options, core::Result<core::ArtifactList> list);
    static QCoro::Task<> runFirstUse(QPointer<OptionsPage> page, core::ArtifactList list, core::SetupOptions options,
                                     quint64 generation, std::shared_ptr<std::atomic<bool>> cancel);
    void finishFirstUse(quint64 generation, core::SetupOptions options, core::Result<core::ArtifactList> list);
    void commit(const core::SetupOptions &options, const core::ArtifactList &list, const core::DownloadPlan &downloads);
    void setBusy(bool busy);
    void showTrustChoice(bool show);
    void showHelp(const QString &topic);
    void updateAdvice();
    void load();
    void applySuggestion();
    void save(const core::SetupOptions &options);
    QString optionsKey(const core::SetupOptions &options) const;
    void retranslate();

    WizardState &m_state;
    SettingsFactory m_settings;
    core::SetupOptions m_base;
    bool m_resolving = false;
    quint64 m_generation = 0;
    QString m_resolvedKey; // options + plan the committed artifacts were resolved for
    std::optional<core::SetupOptions> m_suggested;
    QString m_suggestedPlan; // the plan (JSON) the suggestion came with
    QString m_helpTopic;
    std::shared_ptr<std::atomic<bool>> m_cancelFirstUse; // set to stop the first-use fetch

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
    QLabel *m_statusLabel;
    QProgressBar *m_busy;
    QList<QLabel *> m_rowLabels;
    QList<QPushButton *> m_helpLinks;
};

} // namespace tfsetup::ui
