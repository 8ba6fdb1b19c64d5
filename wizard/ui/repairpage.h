#pragma once

#include "catalog/finding.h"
#include "doctor/doctor.h"
#include "repair/repair.h"
#include "ui/statuslist.h"
#include "ui/wizardstate.h"

#include <QCoro/QCoroTask>
#include <QPointer>
#include <QWizardPage>

#include <functional>

class QCheckBox;
class QComboBox;
class QLabel;
class QListWidget;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QToolButton;

namespace tfsetup::ui {

// Journey 3: an environment that worked and no longer does. The student picks one of the
// environments tfsetup knows (its index of environments, as the Welcome page lists them, the
// default and chosen folders) or a folder, optionally pastes the error TensorFlow printed;
// "Check" lists the damaged files and the doctor's findings, one readable row each (icon, cause,
// what to do, evidence folded under Details), "Repair" repairs with live progress; Next verifies
// it on the Verify page. A pasted error is
// read even with no environment chosen, and a conda or venv folder tfsetup did not make is
// examined too; only what tfsetup made (its environment.json) is ever repaired.
class RepairPage final : public QWizardPage {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RepairPage)
public:
    using DoctorFunction = std::function<QCoro::Task<QList<core::DoctorFinding>>(QString environment, QString log)>;
    using FolderPicker = std::function<QString()>;
    // Builds the pasteable, redacted diagnostic report (the doctor's, as `doctor --report`).
    using ReportFunction = std::function<QCoro::Task<QString>(QString environment, QString log)>;
    using SavePathPicker = std::function<QString()>;

    explicit RepairPage(WizardState &state, QWidget *parent = nullptr);
    ~RepairPage() override;

    // Seams for tests: the doctor (default: runDoctor on the wizard's system view) and the
    // folder dialog.
    void setDoctorFunction(DoctorFunction doctor) { m_doctor = std::move(doctor); }
    void setFolderPicker(FolderPicker picker) { m_pickFolder = std::move(picker); }
    void setReportFunction(ReportFunction report) { m_makeReport = std::move(report); }
    void setSavePathPicker(SavePathPicker picker) { m_pickSavePath = std::move(picker); }
    // Folders searched for environments besides the Options page's and the default one.
    void setSearchFolders(QStringList folders) { m_extraFolders = std::move(folders); }
    // The environment to select when the list is next read (Repair on the Welcome page's list).
    void preselect(const QString &environment) { m_preselected = environment; }

    void initializePage() override;
    bool isComplete() const override;
    bool validatePage() override;

    QString selectedEnvironment() const;
    // The answer to "Where does this error come from?": this computer, another one, or not sure
    // (the doctor then decides from the log). The default doctor and the report use it.
    core::LogOrigin logOrigin() const;
    // The selected folder is a Python environment tfsetup did not make (a conda or venv one):
    // examined by the doctor, never repaired.
    bool selectedIsForeign() const;
    const std::optional<core::RepairReport> &report() const { return m_report; }

public Q_SLOTS:
    void refreshEnvironments();
    void addFolder();
    void startCheck();
    void startFix();
    // One click: asks where, then writes the redacted report (user name and home folder masked)
    // in the user's language and English, ready to paste into a chat or an issue tracker.
    void saveReport();

Q_SIGNALS:
    void checked(bool problems);
    void repaired(bool ok);
    void reportSaved(const QString &path);

protected:
    void changeEvent(QEvent *event) override;

private:
    static QCoro::Task<> writeReport(QPointer<RepairPage> page, ReportFunction make, QString environment, QString log,
                                     QString path);
    static QCoro::Task<> runRepair(QPointer<RepairPage> page, core::RepairOptions options, bool withDoctor, QString log,
                                   quint64 generation);
    void finishRepair(quint64 generation, QList<core::DoctorFinding> findings, core::Result<core::RepairReport> report);
    // Only the doctor: a pasted log with no environment chosen, or a folder tfsetup did not make.
    static QCoro::Task<> runDiagnosis(QPointer<RepairPage> page, DoctorFunction doctor, QString environment,
                                      QString log, quint64 generation);
    void finishDiagnosis(quint64 generation, QList<core::DoctorFinding> findings);
    QList<StatusRow> findingRows(const core::RepairReport *report) const;
    void updateInputs();
    void setBusy(bool busy);
    void showReport();
    void retranslate();
    core::RepairOptions repairOptions(bool dryRun) const;

    WizardState &m_state;
    QLabel *m_intro;
    QListWidget *m_environmentList;
    QPushButton *m_browseButton;
    QCheckBox *m_brokenCheck;
    QPlainTextEdit *m_logEdit;
    QLabel *m_originLabel;
    QComboBox *m_originCombo;
    QPushButton *m_checkButton;
    QPushButton *m_fixButton;
    QPushButton *m_reportButton;
    QProgressBar *m_progress;
    QLabel *m_statusLabel;
    StatusList *m_problemList;
    QToolButton *m_logToggle;
    QPlainTextEdit *m_logView;
    QWidget *m_inputs;
    QLabel *m_chosenLabel;
    QPushButton *m_chooseAgainButton;
    bool m_inputsFolded = false; // results on show: the choices fold into m_chosenLabel

    DoctorFunction m_doctor;
    FolderPicker m_pickFolder;
    ReportFunction m_makeReport;
    SavePathPicker m_pickSavePath;
    QStringList m_extraFolders;
    QStringList m_userFolders;
    QString m_preselected;
    QStringList m_foreignFolders; // Python environments picked by hand that tfsetup did not make
    bool m_diagnosed = false;     // the findings on show come from the doctor alone
    QList<core::DoctorFinding> m_findings;
    std::optional<core::RepairReport> m_report;
    QPointer<core::Repairer> m_repairer;
    quint64 m_generation = 0;
    bool m_busy = false;
    bool m_fixed = false;
};

} // namespace tfsetup::ui
