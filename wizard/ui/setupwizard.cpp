#include "ui/setupwizard.h"

#include "ui/choosepage.h"
#include "ui/detectpage.h"
#include "ui/downloadpage.h"
#include "ui/finishpage.h"
#include "ui/installpage.h"
#include "ui/labprofilepage.h"
#include "ui/optionspage.h"
#include "ui/repairpage.h"
#include "ui/steprail.h"
#include "ui/upgradedialog.h"
#include "ui/verifypage.h"
#include "ui/welcomepage.h"
#include "fetch/downloadcache.h"
#include "util/i18n.h"

#include <QEvent>
#include <QIcon>
#include <QMessageBox>
#include <QPushButton>
#include <QResizeEvent>
#include <QStandardPaths>
#include <QTimer>

namespace tfsetup::ui {

namespace {

struct PageEntry {
    SetupWizard::PageId id;
    const char *name; // what `tfsetup wizard --page` takes
};

// Every page in the order a journey meets them (SetupWizard::pageOrder()). A new page goes in
// at its place here, whatever its PageId value.
constexpr PageEntry kPages[] = {
    {SetupWizard::WelcomePageId, "welcome"},   {SetupWizard::DetectPageId, "detect"},
    {SetupWizard::ChoosePageId, "choose"},     {SetupWizard::OptionsPageId, "options"},
    {SetupWizard::DownloadPageId, "download"}, {SetupWizard::InstallPageId, "install"},
    {SetupWizard::VerifyPageId, "verify"},     {SetupWizard::FinishPageId, "finish"},
    {SetupWizard::RepairPageId, "repair"},     {SetupWizard::LabProfilePageId, "lab"},
};

} // namespace

SetupWizard::SetupWizard(core::SystemView &system, core::Translations *translations, QWidget *parent)
    : QWizard(parent)
    , m_state(system)
    , m_translations(translations)
    , m_welcomePage(new WelcomePage(m_state, translations, this))
    , m_detectPage(new DetectPage(m_state, this))
    , m_choosePage(new ChoosePage(m_state, this))
    , m_optionsPage(new OptionsPage(m_state, this))
    , m_downloadPage(new DownloadPage(m_state, this))
    , m_installPage(new InstallPage(m_state, this))
    , m_verifyPage(new VerifyPage(m_state, this))
    , m_finishPage(new FinishPage(m_state, this))
    , m_repairPage(new RepairPage(m_state, this))
    , m_labProfilePage(new LabProfilePage(m_state, this))
    , m_rail(new StepRail(this))
{
    setObjectName(QStringLiteral("setupWizard"));
    setWizardStyle(QWizard::ModernStyle);
    setOption(QWizard::NoBackButtonOnStartPage);
    const QIcon icon(QStringLiteral(":/resources/icons/tfsetup.svg"));
    setWindowIcon(icon);
    setPixmap(QWizard::LogoPixmap, icon.pixmap(48, 48));
    setSideWidget(m_rail);
    updateMinimumSize();
    setPage(WelcomePageId, m_welcomePage);
    setPage(DetectPageId, m_detectPage);
    setPage(ChoosePageId, m_choosePage);
    setPage(OptionsPageId, m_optionsPage);
    setPage(DownloadPageId, m_downloadPage);
    setPage(InstallPageId, m_installPage);
    setPage(VerifyPageId, m_verifyPage);
    setPage(FinishPageId, m_finishPage);
    setPage(RepairPageId, m_repairPage);
    setPage(LabProfilePageId, m_labProfilePage);
    // The presets' Chinese names and the Chinese mirror default follow the wizard's language.
    m_optionsPage->setTranslations(translations);
    // The profile's folder, name and mirror are what the Options page starts from.
    connect(m_labProfilePage, &LabProfilePage::optionsSuggested, m_optionsPage, &OptionsPage::suggestOptions);
    // The saved setup follows every change from the Options page on.
    connect(this, &QWizard::currentIdChanged, this, &SetupWizard::saveSession);
    connect(&m_state, &WizardState::planChanged, this, &SetupWizard::saveSession);
    connect(&m_state, &WizardState::optionsChanged, this, &SetupWizard::saveSession);
    connect(&m_state, &WizardState::downloadsChanged, this, &SetupWizard::saveSession);
    connect(m_welcomePage, &WelcomePage::repairRequested, m_repairPage, &RepairPage::preselect);
    m_welcomePage->setUpgradeFunction([this](const QString &environment) { openUpgrade(environment); });
    connect(m_welcomePage, &WelcomePage::startOverRequested, this, [this] {
        // Only the record goes: downloaded files stay in the download folder for the next setup.
        core::SetupSession::discard(m_sessionPath);
        m_saved.reset();
    });
    connect(this, &QWizard::currentIdChanged, this, &SetupWizard::continueTowardsGoal);
    connect(this, &QWizard::currentIdChanged, this, &SetupWizard::updateRail);
    connect(m_finishPage, &FinishPage::repairRequested, this, &SetupWizard::repairEnvironment);
    // A verdict reached here is the Welcome page's "last verify" at once, not after a restart.
    connect(&m_state, &WizardState::verifiedChanged, m_welcomePage, [this] {
        if (m_state.verified()) // clearing the verdict (Verify pressed on Welcome) changes no record
            m_welcomePage->refreshEnvironments();
    });
    connect(m_downloadPage, &DownloadPage::allVerified, this, &SetupWizard::continueTowardsGoal);
    connect(m_installPage, &InstallPage::finished, this, [this](bool ok) {
        if (ok)
            continueTowardsGoal();
        else
            m_resumeGoal = -1; // the student reads the error and decides
    });
    m_askClose = [this](const QString &title, const QString &text) {
        // Our own button texts: Qt's translations are often missing where students work.
        QMessageBox box(QMessageBox::Question, title, text, QMessageBox::NoButton, this);
        box.setObjectName(QStringLiteral("closeQuestion"));
        QPushButton *close = box.addButton(tr("&Close tfsetup"), QMessageBox::DestructiveRole);
        QPushButton *stay = box.addButton(tr("&Keep working"), QMessageBox::RejectRole);
        box.setDefaultButton(stay);
        box.setEscapeButton(stay);
        box.exec();
        return box.clickedButton() == close;
    };
    // Back goes through goBack(), which knows where a continued setup came from.
    disconnect(button(BackButton), SIGNAL(clicked()), this, SLOT(back()));
    connect(button(BackButton), &QAbstractButton::clicked, this, &SetupWizard::goBack);
    setStartId(WelcomePageId);
    // Enter always means Next (or Finish), wherever the focus is: a page's own buttons would
    // otherwise take over as the default while focused, and Enter on the Detect page would scan
    // again instead of going on. Space still presses the focused button.
    for (const int id : pageIds()) {
        for (QPushButton *button : page(id)->findChildren<QPushButton *>())
            button->setAutoDefault(false);
    }
    retranslate();
}

int SetupWizard::nextId() const
{
    const WizardState::Mode mode = m_state.mode();
    switch (currentId()) {
    case WelcomePageId:
        if (m_backToOptions)
            return OptionsPageId;
        if (m_resumeJump >= 0)
            return m_resumeJump;
        // Verify on the Welcome page's list of environments: straight to the check.
        if (m_welcomePage->verifyChosen())
            return VerifyPageId;
        if (mode == WizardState::Mode::Repair)
            return RepairPageId;
        if (mode == WizardState::Mode::LabProfile)
            return LabProfilePageId;
        return DetectPageId;
    case DetectPageId:
        // The profile pins the plan: nothing to choose.
        if (mode == WizardState::Mode::LabProfile && m_state.plan() && page(OptionsPageId))
            return OptionsPageId;
        break;
    case RepairPageId: return VerifyPageId;
    case LabProfilePageId: return m_labProfilePage->unattended() ? VerifyPageId : DetectPageId;
    case FinishPageId: return -1;
    default: break;
    }
    // The next page of pageOrder() the wizard has. The journeys' own pages come after Finish
    // there and are reached only through the above.
    const QList<int> order = pageOrder();
    int next = -1;
    for (qsizetype at = order.indexOf(currentId()) + 1; at > 0 && at < order.size() && next < 0; ++at) {
        if (page(order.at(at)))
            next = order.at(at);
    }
    return next == RepairPageId || next == LabProfilePageId ? -1 : next;
}

bool SetupWizard::isWorking() const
{
    return m_downloadPage->isDownloading() || m_installPage->isRunning();
}

void SetupWizard::reject()
{
    if (isWorking() && m_askClose) {
        const bool installing = m_installPage->isRunning();
        const QString text = installing
            ? tr("The environment is still being built. If you close tfsetup now, the install "
                 "stops and removes what it made so far; an environment that was there before "
                 "stays as it was.")
            : tr("Files are still downloading. If you close tfsetup now, what arrived is kept "
                 "and the next start offers to continue.");
        if (!m_askClose(tr("Close tfsetup?"), text))
            return;
        // Stop cleanly: the install undoes what it made, the downloads keep their bytes.
        if (m_installPage->isRunning())
            m_installPage->cancelInstall();
        m_downloadPage->pause();
    }
    QWizard::reject();
}

void SetupWizard::goBack()
{
    // Continuing a saved setup jumped from Welcome past the Options page: Back leads there, as
    // it would have had the setup never stopped, not to Welcome. (Back, then Next to Options,
    // is the only way into QWizard's history.)
    const QList<int> trail = visitedIds();
    const bool jumped = trail.size() >= 2 && trail.at(trail.size() - 2) == WelcomePageId
        && isBetween(currentId(), OptionsPageId, FinishPageId) && page(OptionsPageId)
        && m_state.mode() == WizardState::Mode::NewEnvironment && m_state.artifacts();
    if (!jumped) {
        back();
        return;
    }
    m_resumeGoal = -1; // the student takes over
    m_backToOptions = true;
    back();
    next();
    m_backToOptions = false;
    // The choices the saved setup was resolved for are on the page: Next keeps them.
    if (currentId() == OptionsPageId)
        m_optionsPage->keepResolved();
}

bool SetupWizard::validateCurrentPage()
{
    if (!QWizard::validateCurrentPage())
        return false;
    if (currentId() == WelcomePageId && !m_backToOptions) {
        m_resumeJump = -1;
        m_resumeGoal = -1;
        if (m_welcomePage->continueChosen() && m_saved)
            restoreSession(*m_saved); // a copy: saving replaces m_saved
    }
    return true;
}

void SetupWizard::setSessionFile(const QString &path)
{
    m_sessionPath = path;
    m_saved.reset();
    if (!path.isEmpty())
        m_saved = core::SetupSession::load(path);
    offerSavedSession();
}

void SetupWizard::offerSavedSession()
{
    if (!m_saved) {
        m_welcomePage->setSavedSetup({}, 0, 0);
        return;
    }
    const core::SetupSession::DownloadedBytes bytes = m_saved->downloadedBytes();
    m_welcomePage->setSavedSetup(m_saved->environmentName(), bytes.done, bytes.total);
}

void SetupWizard::restoreSession(core::SetupSession session)
{
    qInfo().noquote() << "Continuing the setup of" << session.environmentPath() << "from"
                      << core::SetupSession::stepName(session.step);
    m_state.setHardware(session.hardware);
    m_state.setPlan(session.plan);
    m_state.setGpus(session.gpus);
    using Step = core::SetupSession::Step;
    if (session.step == Step::Options || !session.artifacts) {
        m_resumeJump = OptionsPageId;
        m_resumeGoal = -1;
        return;
    }
    m_optionsPage->suggestOptions(session.options);
    m_state.setOptions(session.options);
    m_state.setArtifacts(*session.artifacts);
    m_state.setLock(session.lock);
    m_state.setDownloads(session.downloads());
    // Install and Verify need the Download page's verified results: it checks what is on disk
    // (finished files are not fetched again, .part files are resumed) and the wizard goes on to
    // the page reached as soon as each page before it completes. The installer clears what an
    // interrupted install left and leaves a complete environment as it is.
    m_resumeJump = DownloadPageId;
    m_resumeGoal = session.step == Step::Install ? InstallPageId : session.step == Step::Verify ? VerifyPageId : -1;
}

void SetupWizard::continueTowardsGoal()
{
    if (m_resumeGoal < 0)
        return;
    const int id = currentId();
    if (!isBetween(id, DownloadPageId, m_resumeGoal, true)) {
        m_resumeGoal = -1; // reached, or the student went elsewhere
        return;
    }
    if (!currentPage() || !currentPage()->isComplete())
        return; // its own signal (all verified, installed) brings us back here
    // Later: the page's own completion handling runs first.
    QTimer::singleShot(0, this, [this, id] {
        if (currentId() == id && isBetween(id, DownloadPageId, m_resumeGoal, true) && currentPage()->isComplete())
            next();
    });
}

void SetupWizard::saveSession()
{
    if (m_sessionPath.isEmpty())
        return;
    const int id = currentId();
    if (id == FinishPageId) {
        // This setup is done: nothing to continue. (Verify's verdict is on the Finish page and in
        // the log.) A repair, or an unattended lab install, finishing leaves a saved setup alone.
        if (m_state.mode() != WizardState::Mode::Repair && m_state.artifacts()) {
            core::SetupSession::discard(m_sessionPath);
            m_saved.reset();
        }
        return;
    }
    using Step = core::SetupSession::Step;
    std::optional<Step> step;
    switch (id) {
    case OptionsPageId: step = Step::Options; break;
    case DownloadPageId: step = Step::Download; break;
    case InstallPageId: step = Step::Install; break;
    case VerifyPageId: step = Step::Verify; break;
    default: break; // Welcome, Detect, Choose: an earlier saved setup stays as it was
    }
    if (!step || m_state.mode() == WizardState::Mode::Repair || !m_state.plan() || !m_state.hardware())
        return;
    core::SetupSession session;
    session.step = *step;
    session.plan = *m_state.plan();
    session.hardware = *m_state.hardware();
    session.options = m_state.options();
    session.gpus = m_state.gpus();
    session.artifacts = m_state.artifacts();
    session.lock = m_state.lock();
    if (session.step != Step::Options && !session.artifacts)
        return; // an unattended lab install: the lab profile is the record
    if (const core::Status saved = session.save(m_sessionPath); !saved)
        qWarning().noquote() << saved.error().message << saved.error().detail;
    else
        m_saved = std::move(session);
}

UpgradeDialog *SetupWizard::openUpgrade(const QString &environment)
{
    core::UpgradeRequest request;
    request.environmentPath = environment;
    request.knowledge = m_state.knowledgeOrNull();
    request.hardware = m_state.hardware();
    // Mirrors, proxy, cache and bundle as the Options page has them; the environment's own
    // folder, name and Jupyter choice come from its record.
    request.setup = m_state.options();
    request.probe = QStandardPaths::findExecutable(QStringLiteral("tfsetup-probe"),
                                                   {QCoreApplication::applicationDirPath()});
    auto *dialog = new UpgradeDialog(m_state.system(), std::move(request), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &UpgradeDialog::environmentChanged, m_welcomePage, &WelcomePage::refreshEnvironments);
    dialog->open();
    dialog->start();
    return dialog;
}

void SetupWizard::updateMinimumSize()
{
    // Long enough for a GPU name, a driver line and a path without wrapping every sentence: 720 ×
    // 540 at a 9 pt font, the usual UI size on Windows and Linux desktops. A larger font (a
    // desktop's text scaling, a student who needs bigger letters) gets proportionally more room;
    // otherwise wrapped text runs out of height, and QWizard's header, which holds two lines of
    // subtitle and never grows, cuts the third off.
    const QFont f = font();
    const double scale = f.pointSizeF() > 0 ? f.pointSizeF() / 9.0 : f.pixelSize() > 0 ? f.pixelSize() / 12.0 : 1.0;
    const double factor = std::max(1.0, scale);
    setMinimumSize(int(720 * factor), int(540 * factor));
}

void SetupWizard::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    if (event->type() == QEvent::FontChange)
        updateMinimumSize();
    QWizard::changeEvent(event);
}

QList<int> SetupWizard::pageOrder()
{
    QList<int> ids;
    for (const PageEntry &entry : kPages)
        ids.append(entry.id);
    return ids;
}

bool SetupWizard::isBetween(int id, int first, int last, bool fromFirst)
{
    const QList<int> order = pageOrder();
    const qsizetype at = order.indexOf(id);
    const qsizetype lower = order.indexOf(first);
    const qsizetype upper = order.indexOf(last);
    return at >= 0 && lower >= 0 && upper >= 0 && (fromFirst ? at >= lower : at > lower) && at < upper;
}

QStringList SetupWizard::pageNames()
{
    QStringList names;
    for (const PageEntry &entry : kPages)
        names.append(QLatin1String(entry.name));
    return names;
}

int SetupWizard::pageIdFor(const QString &name)
{
    for (const PageEntry &entry : kPages) {
        if (name == QLatin1String(entry.name))
            return entry.id;
    }
    return -1;
}

QList<int> SetupWizard::journey() const
{
    const bool verifyOnly = m_welcomePage->verifyChosen();
    switch (m_state.mode()) {
    case WizardState::Mode::Repair: return {WelcomePageId, RepairPageId, VerifyPageId, FinishPageId};
    case WizardState::Mode::LabProfile:
        if (m_labProfilePage->unattended())
            return {WelcomePageId, LabProfilePageId, VerifyPageId, FinishPageId};
        return {WelcomePageId,  LabProfilePageId, DetectPageId, OptionsPageId,
                DownloadPageId, InstallPageId,    VerifyPageId, FinishPageId};
    case WizardState::Mode::NewEnvironment: break;
    }
    if (verifyOnly)
        return {WelcomePageId, VerifyPageId, FinishPageId};
    return {WelcomePageId,  DetectPageId,  ChoosePageId, OptionsPageId,
            DownloadPageId, InstallPageId, VerifyPageId, FinishPageId};
}

QString SetupWizard::stepName(int id) const
{
    switch (PageId(id)) {
    case WelcomePageId: return tr("Welcome", "step");
    case DetectPageId: return tr("Detect", "step");
    case ChoosePageId: return tr("Choose", "step");
    case OptionsPageId: return tr("Options", "step");
    case DownloadPageId: return tr("Download", "step");
    case InstallPageId: return tr("Install", "step");
    case VerifyPageId: return tr("Verify", "step");
    case FinishPageId: return tr("Finish", "step");
    case RepairPageId: return tr("Repair", "step");
    case LabProfilePageId: return tr("Lab profile", "step");
    }
    return {};
}

void SetupWizard::updateRail()
{
    const QList<int> ids = journey();
    QStringList names;
    for (const int id : ids)
        names.append(stepName(id));
    m_rail->setSteps(names, int(ids.indexOf(currentId())));
}

void SetupWizard::repairEnvironment(const QString &environment)
{
    // From the start, as the Welcome page's Repair does: Repair, Verify and Finish are new steps
    // of a new journey, not pages already passed.
    setStartId(WelcomePageId);
    restart();
    m_welcomePage->startRepair(environment);
}

void SetupWizard::resizeEvent(QResizeEvent *event)
{
    // The names beside the numbers when there is room for them and the page keeps its width.
    m_rail->setShowNames(event->size().width() >= 3 * minimumWidth() / 2 - 200);
    QWizard::resizeEvent(event);
}

void SetupWizard::retranslate()
{
    updateRail();
    setWindowTitle(tr("TensorFlow GPU setup"));
    // Our own catalogue carries the button texts: Qt's translations are often not installed on
    // the machines students use, and the wizard would switch language everywhere but here.
    setButtonText(BackButton, tr("< &Back"));
    setButtonText(NextButton, tr("&Next >"));
    setButtonText(CommitButton, tr("&Install"));
    setButtonText(FinishButton, tr("&Finish"));
    setButtonText(CancelButton, tr("Cancel"));
    setButtonText(HelpButton, tr("&Help"));
}

} // namespace tfsetup::ui
