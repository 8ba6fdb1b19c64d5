#include "ui/labprofilepage.h"

#include "setup/labsetup.h"

#include "fetch/downloadcache.h"
#include "fetch/downloader.h"
#include "fetch/httpclient.h"
#include "setup/environments.h"
#include "sources/bundle.h"
#include "ui/pagehelpers.h"
#include "util/confined.h"
#include "util/units.h"

#include <QCheckBox>
#include <QDir>
#include <QEvent>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QUrl>
#include <QVBoxLayout>
#include <QWizard>

namespace tfsetup::ui {

namespace {

constexpr int profileTimeoutMs = 30000;

bool isRemote(const QString &text)
{
    return text.startsWith(QStringLiteral("http://"), Qt::CaseInsensitive)
        || text.startsWith(QStringLiteral("https://"), Qt::CaseInsensitive);
}

} // namespace

LabProfilePage::LabProfilePage(WizardState &state, QWidget *parent)
    : QWizardPage(parent)
    , m_state(state)
    , m_intro(new QLabel(this))
    , m_sourceEdit(new QLineEdit(this))
    , m_browseButton(new QPushButton(this))
    , m_openButton(new QPushButton(this))
    , m_summary(new QLabel(this))
    , m_unattendedCheck(new QCheckBox(this))
    , m_progress(new QProgressBar(this))
    , m_statusLabel(new QLabel(this))
    , m_log(new QPlainTextEdit(this))
    , m_adminLabel(new QLabel(this))
    , m_prepareButton(new QPushButton(this))
    , m_bundleButton(new QPushButton(this))
    , m_setup(new core::LabSetup(state.system(), this))
{
    setObjectName(QStringLiteral("labProfilePage"));
    m_intro->setObjectName(QStringLiteral("labProfileIntro"));
    m_sourceEdit->setObjectName(QStringLiteral("labProfileSourceEdit"));
    m_browseButton->setObjectName(QStringLiteral("labProfileBrowseButton"));
    m_openButton->setObjectName(QStringLiteral("labProfileOpenButton"));
    m_summary->setObjectName(QStringLiteral("labProfileSummary"));
    m_unattendedCheck->setObjectName(QStringLiteral("labProfileUnattendedCheck"));
    m_progress->setObjectName(QStringLiteral("labProfileProgress"));
    m_statusLabel->setObjectName(QStringLiteral("labProfileStatusLabel"));
    m_log->setObjectName(QStringLiteral("labProfileLog"));
    m_adminLabel->setObjectName(QStringLiteral("labProfileAdminLabel"));
    m_prepareButton->setObjectName(QStringLiteral("labProfilePrepareButton"));
    m_bundleButton->setObjectName(QStringLiteral("labProfileBundleButton"));

    for (QLabel *l : {m_intro, m_summary, m_statusLabel, m_adminLabel})
        l->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Messages carry paths and server words: never read as markup.
    m_statusLabel->setTextFormat(Qt::PlainText);
    m_log->setReadOnly(true);
    m_log->setMinimumHeight(m_log->fontMetrics().lineSpacing() * 5);
    m_log->setMaximumHeight(m_log->fontMetrics().lineSpacing() * 10);
    m_log->hide();
    m_progress->hide();
    m_unattendedCheck->setEnabled(false);

    auto *sourceRow = new QHBoxLayout;
    sourceRow->addWidget(m_sourceEdit, 1);
    sourceRow->addWidget(m_browseButton);
    sourceRow->addWidget(m_openButton);
    auto *adminRow = new QHBoxLayout;
    adminRow->addWidget(m_prepareButton);
    adminRow->addWidget(m_bundleButton);
    adminRow->addStretch(1);
    // What the profile says (long folders and mirror addresses) and the install's log scroll
    // together at 720×540 instead of squeezing the fields.
    auto *content = new QWidget;
    content->setObjectName(QStringLiteral("labProfileContent"));
    auto *inner = new QVBoxLayout(content);
    inner->setContentsMargins(0, 0, 0, 0);
    inner->addWidget(m_intro);
    inner->addLayout(sourceRow);
    inner->addWidget(m_summary);
    inner->addWidget(m_unattendedCheck);
    inner->addWidget(m_progress);
    inner->addWidget(m_statusLabel);
    inner->addWidget(m_log);
    inner->addStretch(1);
    inner->addWidget(m_adminLabel);
    inner->addLayout(adminRow);
    auto *scroll = new QScrollArea(this);
    scroll->setObjectName(QStringLiteral("labProfileScrollArea"));
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(content);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(scroll);

    m_pickFile = [this](bool save) {
        const QString filter = tr("Lab profiles (*.json)");
        return save ? QFileDialog::getSaveFileName(this, tr("Save the lab profile"), QString(), filter)
                    : QFileDialog::getOpenFileName(this, tr("Open a lab profile"), QString(), filter);
    };
    m_pickFolder = [this] { return QFileDialog::getExistingDirectory(this, tr("Folder for the offline bundle")); };
    connect(m_browseButton, &QPushButton::clicked, this, &LabProfilePage::browse);
    connect(m_openButton, &QPushButton::clicked, this, &LabProfilePage::openProfile);
    connect(m_sourceEdit, &QLineEdit::returnPressed, this, &LabProfilePage::openProfile);
    connect(m_prepareButton, &QPushButton::clicked, this, &LabProfilePage::prepareProfile);
    connect(m_bundleButton, &QPushButton::clicked, this, &LabProfilePage::prepareBundle);
    // The downloads move the bar by their bytes; then each install step its share, moved on
    // within by the installer's bytes. It ends full, never where the first step left it.
    connect(&m_setup->pipeline(), &core::SetupPipeline::downloadProgress, this, [this](qint64 done, qint64 total) {
        if (total <= 0)
            return;
        m_progress->setRange(0, progressScale);
        m_progress->setValue(int(progressScale * double(std::min(done, total)) / double(total)));
        m_progress->setFormat(tr("Downloading: %1 of %2")
                                  .arg(core::Units::dataSize(done), core::Units::dataSize(total))
                                  .replace(u'%', QStringLiteral("%%")));
    });
    connect(&m_setup->pipeline(), &core::SetupPipeline::stepStarted, this,
            [this](core::InstallStep step, const QString &title) {
                m_step = int(core::allInstallSteps().indexOf(step));
                showStepProgress(0);
                m_statusLabel->setText(title);
            });
    connect(&m_setup->pipeline(), &core::SetupPipeline::installProgress, this, [this](qint64 done, qint64 total) {
        if (total > 0)
            showStepProgress(double(std::min(done, total)) / double(total));
    });
    connect(&m_setup->pipeline(), &core::SetupPipeline::logLine, m_log, &QPlainTextEdit::appendPlainText);
    connect(m_setup, &core::LabSetup::message, m_log, &QPlainTextEdit::appendPlainText);
    retranslate();
}

LabProfilePage::~LabProfilePage() = default;

void LabProfilePage::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange) {
        retranslate();
        showProfile();
    }
    QWizardPage::changeEvent(event);
}

void LabProfilePage::retranslate()
{
    setTitle(tr("Lab profile"));
    setSubTitle(tr("Install exactly what your lab prepared, the same on every machine."));
    m_intro->setText(tr("Open the profile your lab gave you: a file, or its address on the lab's server "
                        "(http:// or https://)."));
    m_sourceEdit->setPlaceholderText(tr("lab.json or https://lab.example.edu/tfsetup/lab.json"));
    m_sourceEdit->setAccessibleName(tr("Profile file or address"));
    if (auto *scroll = findChild<QScrollArea *>(QStringLiteral("labProfileScrollArea")))
        scroll->setAccessibleName(tr("Lab profile"));
    m_browseButton->setText(tr("Browse…"));
    m_openButton->setText(tr("&Open"));
    m_unattendedCheck->setText(tr("Install now without further questions"));
    m_adminLabel->setText(tr("For the lab's administrator: save the choices made in this wizard as a profile, or "
                             "write an offline bundle of the files for machines without internet."));
    m_prepareButton->setText(tr("Prepare a profile…"));
    m_bundleButton->setText(tr("Prepare an offline bundle…"));
    updateAdmin();
}

void LabProfilePage::updateAdmin()
{
    m_prepareButton->setEnabled(!m_busy && m_state.plan().has_value());
    m_bundleButton->setEnabled(!m_busy && m_state.artifacts().has_value());
    m_prepareButton->setToolTip(m_state.plan() ? QString() : tr("Choose a plan in a new setup first."));
    m_bundleButton->setToolTip(m_state.artifacts() ? QString()
                                                   : tr("Choose a plan and its options in a new setup first."));
}

void LabProfilePage::initializePage()
{
    updateAdmin();
}

void LabProfilePage::showStepProgress(double fraction)
{
    const auto steps = core::allInstallSteps().size();
    if (m_step < 0 || steps == 0)
        return;
    m_progress->setRange(0, progressScale);
    m_progress->resetFormat();
    const int value = int(progressScale * (double(m_step) + std::clamp(fraction, 0.0, 1.0)) / double(steps));
    m_progress->setValue(std::max(m_progress->value(), std::min(value, progressScale)));
}

void LabProfilePage::setBusy(bool busy)
{
    m_busy = busy;
    for (QWidget *w : std::initializer_list<QWidget *>{m_sourceEdit, m_browseButton, m_openButton})
        w->setEnabled(!busy);
    m_unattendedCheck->setEnabled(!busy && m_profile.has_value());
    m_progress->setVisible(busy);
    if (busy) {
        m_step = -1;
        m_progress->resetFormat();
        m_progress->setRange(0, 0);
    }
    updateAdmin();
    Q_EMIT completeChanged();
}

bool LabProfilePage::unattended() const
{
    return m_unattendedCheck->isChecked();
}

void LabProfilePage::browse()
{
    const QString path = m_pickFile ? m_pickFile(false) : QString();
    if (path.isEmpty())
        return;
    m_sourceEdit->setText(QDir::toNativeSeparators(path));
    openProfile();
}

void LabProfilePage::openProfile()
{
    const QString source = m_sourceEdit->text().trimmed();
    if (m_busy || source.isEmpty())
        return;
    m_profile.reset();
    m_outcome.reset();
    m_summary->clear();
    if (isRemote(source)) {
        m_statusLabel->setText(tr("Downloading the profile…"));
        setBusy(true);
        // The way out the Options page set (proxy, CA bundle), as for every other request.
        runDownload(this, QUrl(source), m_state.options().network.transfer, ++m_generation);
        return;
    }
    acceptProfile(source, core::LabProfile::load(QDir::fromNativeSeparators(source)));
}

QCoro::Task<> LabProfilePage::runDownload(QPointer<LabProfilePage> page, QUrl url, core::TransferOptions transfer,
                                          quint64 generation)
{
    const core::HttpClient client(std::move(transfer));
    core::HttpRequest request;
    request.url = url;
    request.accept = "application/json";
    request.maxBytes = 4 * 1024 * 1024;
    request.timeout = std::chrono::milliseconds(profileTimeoutMs);
    const core::Result<core::HttpResponse> reply = co_await client.get(std::move(request));
    if (!page || generation != page->m_generation)
        co_return;
    core::Result<core::LabProfile> profile = core::Error{QStringLiteral("profile_download"), {}, {}};
    if (!reply) {
        profile = core::Error{QStringLiteral("profile_download"),
                              tr("The profile could not be downloaded from %1. Check the address with your lab, "
                                 "or open the file instead.")
                                      .arg(url.toString())
                                  + u' ' + reply.error().message,
                              reply.error().code + QStringLiteral(": ") + reply.error().detail};
    } else {
        QJsonParseError error;
        const QJsonDocument document = QJsonDocument::fromJson(reply->body, &error);
        profile = document.isObject()
            ? core::LabProfile::fromJson(document.object(), url.toString())
            : core::Result<core::LabProfile>(core::Error{
                QStringLiteral("profile_unreadable"),
                tr("%1 is not a lab profile (it is not JSON). Check the address with your lab.").arg(url.toString()),
                error.errorString()});
    }
    page->setBusy(false);
    page->acceptProfile(url.toString(), std::move(profile));
}

void LabProfilePage::acceptProfile(const QString &path, core::Result<core::LabProfile> profile)
{
    Q_UNUSED(path);
    if (!profile) {
        m_statusLabel->setText(profile.error().message);
        m_unattendedCheck->setEnabled(false);
        Q_EMIT completeChanged();
        Q_EMIT profileOpened(false);
        return;
    }
    m_profile = std::move(*profile);
    m_statusLabel->setText(tr("Check what the profile will do, then press Next."));
    m_unattendedCheck->setEnabled(true);
    showProfile();
    Q_EMIT completeChanged();
    Q_EMIT profileOpened(true);
}

void LabProfilePage::showProfile()
{
    if (!m_profile)
        return;
    const core::LabProfile &p = *m_profile;
    const QString folder = core::SystemView::join(core::LabProfile::expand(m_state.system(), p.installFolder),
                                                  p.environment);
    QString gpu = p.cuda.isEmpty() ? tr("TensorFlow's own CUDA packages or the processor")
                                   : tr("CUDA %1, cuDNN %2").arg(p.cuda, p.cudnn);
    QStringList rows;
    auto row = [&rows](const QString &label, const QString &value) {
        rows.append(
            QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(label.toHtmlEscaped(), value.toHtmlEscaped()));
    };
    row(tr("Profile"), p.title.isEmpty() ? p.path : p.title);
    row(tr("Plan"),
        tr("TensorFlow %1 (%2), Python %3, %4")
            .arg(p.tensorflow.isEmpty() ? p.requirements.join(QStringLiteral(", ")) : p.tensorflow, p.route,
                 p.python.isEmpty() ? tr("any") : p.python, gpu));
    row(tr("Folder"), QDir::toNativeSeparators(folder));
    row(tr("Mirrors"), p.indexUrls.isEmpty() ? tr("PyPI") : p.indexUrls.join(QStringLiteral(", ")));
    if (!p.proxy.isEmpty())
        row(tr("Proxy"), p.proxy);
    row(tr("Jupyter kernel"),
        p.registerKernel ? (p.kernelDisplayName.isEmpty() ? p.kernelName : p.kernelDisplayName) : tr("not registered"));
    if (!p.requirementsLockFile.isEmpty())
        row(tr("Packages"), tr("pinned by the lab's hash lock %1").arg(p.requirementsLockFile));
    m_summary->setText(QStringLiteral("<table cellspacing=\"4\">") + rows.join(QString()) + QStringLiteral("</table>"));
}

bool LabProfilePage::isComplete() const
{
    return !m_busy && m_profile.has_value();
}

bool LabProfilePage::validatePage()
{
    if (!isComplete())
        return false;
    const core::LabProfile &p = *m_profile;
    // What `tfsetup install --profile` installs: the same inputs, front end and interpreter
    // included (a bool for Jupyter turned "notebook" into JupyterLab, and the bundle made for the
    // profile then lacked what the wizard asked for).
    core::LabSetupOptions lab;
    lab.knowledge = m_state.knowledgeOrNull();
    lab.cacheDir = m_state.options().cacheDir;
    const auto in = m_setup->inputs(p, lab);
    if (!in) {
        m_statusLabel->setText(in.error().message);
        return false;
    }
    core::SetupOptions options = m_state.options();
    options.prefix = in->options.prefix;
    options.name = in->options.name;
    options.network = in->options.network;
    options.jupyter = in->options.jupyter;
    options.profileSpec = in->spec;
    if (!p.cacheFolder.isEmpty())
        options.cacheDir = in->options.cacheDir;
    if (!unattended()) {
        // Through the usual pages, starting from the profile's choices.
        m_state.setPlan(in->plan);
        Q_EMIT optionsSuggested(options);
        m_state.setOptions(options);
        return true;
    }
    if (m_outcome) {
        m_state.setInstalled(m_outcome);
        return true;
    }
    m_state.setPlan(in->plan);
    m_state.setOptions(options);
    m_log->clear();
    m_log->show();
    m_installing = true;
    setBusy(true);
    runInstall(this, p, options.cacheDir);
    return false;
}

QCoro::Task<> LabProfilePage::runInstall(QPointer<LabProfilePage> page, core::LabProfile profile, QString cacheDir)
{
    // As `tfsetup install --profile`: the same lab setup, through the one setup pipeline.
    core::LabSetupOptions options;
    options.cacheDir = cacheDir;
    options.knowledge = page->m_state.knowledgeOrNull();
    core::Result<core::InstallOutcome> outcome = co_await page->m_setup->install(std::move(profile),
                                                                                 std::move(options));
    if (!page)
        co_return;
    page->m_installing = false;
    page->setBusy(false);
    if (!outcome) {
        page->m_statusLabel->setText(outcome.error().message);
        Q_EMIT page->installFinished(false);
        co_return;
    }
    page->m_outcome = *outcome;
    page->m_progress->setRange(0, progressScale);
    page->m_progress->setValue(progressScale);
    // Listed on the Welcome page and by `tfsetup list`, wherever it was installed.
    (void)core::EnvironmentIndex::add(page->m_state.system(), outcome->environmentPath);
    page->m_statusLabel->setText(outcome->unchanged ? tr("The environment was already installed as the profile says.")
                                                    : tr("Installed. Next verifies the environment."));
    Q_EMIT page->installFinished(true);
    // Unattended: no extra click between the install and its verification.
    if (page->wizard() && page->wizard()->currentPage() == page)
        page->wizard()->next();
}

QJsonObject LabProfilePage::profileJson(const core::Plan &plan, const core::SetupOptions &options, const QString &title)
{
    const QString name = options.name.isEmpty() ? core::InstallSpec::defaultName(plan) : options.name;
    QJsonObject planJson{{QStringLiteral("route"), plan.route},
                         {QStringLiteral("tensorflow"), plan.tensorflow},
                         {QStringLiteral("package"), plan.package},
                         {QStringLiteral("python"), plan.python},
                         {QStringLiteral("requirements"), QJsonArray{plan.requirement()}}};
    if (!plan.cuda.isEmpty()) {
        planJson.insert(QStringLiteral("cuda"), plan.cuda);
        planJson.insert(QStringLiteral("cudnn"), plan.cudnn);
    }
    // The front end by name: a lab's "notebook" stays the notebook in the profile it passes on.
    QJsonValue jupyter = false;
    if (options.jupyter) {
        const QString frontEnd = options.profileSpec ? options.profileSpec->jupyter : QString();
        jupyter = frontEnd.isEmpty() ? core::InstallSpec::fromPlan(plan).jupyter : frontEnd;
    }
    QJsonArray pypi;
    for (const QString &index : options.network.pypiIndexes) {
        if (isRemote(index))
            pypi.append(index);
    }
    return QJsonObject{
        {QStringLiteral("schema"), 1},
        {QStringLiteral("title"), title},
        {QStringLiteral("environment"), name},
        {QStringLiteral("installFolder"), options.prefix},
        {QStringLiteral("plan"), planJson},
        {QStringLiteral("interpreter"), QString()},
        {QStringLiteral("mirrors"),
         QJsonObject{{QStringLiteral("pypi"), pypi}, {QStringLiteral("trustedHosts"), QJsonArray()}}},
        {QStringLiteral("proxy"), options.network.transfer.proxy},
        {QStringLiteral("jupyter"), jupyter},
        {QStringLiteral("kernel"), QJsonObject{{QStringLiteral("name"), name}, {QStringLiteral("register"), true}}},
        {QStringLiteral("desktopEntry"), true}};
}

void LabProfilePage::prepareProfile()
{
    if (!m_state.plan())
        return;
    const QString path = m_pickFile ? m_pickFile(true) : QString();
    if (path.isEmpty())
        return;
    const QJsonObject json = profileJson(*m_state.plan(), m_state.options(),
                                         tr("TensorFlow %1 for the lab").arg(m_state.plan()->tensorflow));
    // A link at the chosen name is refused, never written through.
    if (const core::Status written = core::writeUserFile(path, QJsonDocument(json).toJson()); !written) {
        m_statusLabel->setText(
            written.error().code == u"path_is_link" || written.error().code == u"not_plain_file"
                ? written.error().message
                : tr("Cannot write %1. Choose a folder that is yours.").arg(QDir::toNativeSeparators(path)));
        return;
    }
    m_statusLabel->setText(tr("Saved the profile as %1. Students open it here, or a script runs "
                              "\"tfsetup install --profile\" with it.")
                               .arg(QDir::toNativeSeparators(path)));
}

void LabProfilePage::prepareBundle()
{
    if (!m_state.artifacts() || m_busy)
        return;
    const QString folder = m_pickFolder ? m_pickFolder() : QString();
    if (folder.isEmpty())
        return;
    m_statusLabel->setText(tr("Writing the offline bundle…"));
    setBusy(true);
    runBundle(this, *m_state.artifacts(), folder);
}

QCoro::Task<> LabProfilePage::runBundle(QPointer<LabProfilePage> page, core::ArtifactList list, QString folder)
{
    // The files and wheels the Options page prepared, through the pipeline's one downloader.
    const core::SetupOptions setup = page->m_state.options();
    core::BundleWriter writer(page->m_state.downloader());
    core::BundleOptions options;
    options.directory = folder;
    options.transfer = setup.network.transfer;
    options.pythonVersion = page->m_state.plan() ? page->m_state.plan()->python : QString();
    core::SourceCatalog catalog;
    if (const core::KnowledgePtr knowledge = page->m_state.knowledgeOrNull())
        catalog = knowledge->sources;
    const QList<QUrl> indexes = core::SetupFlow::pypiIndexes(setup.network, catalog).valueOr({});
    const core::Result<core::Bundle> bundle = co_await writer.write(
        std::move(list), page->m_state.lock(), options,
        [indexes, catalog](const core::LockedWheel &w) { return core::SetupFlow::wheelUrls(w, indexes, catalog); });
    if (!page)
        co_return;
    page->setBusy(false);
    page->m_statusLabel->setText(bundle ? tr("The offline bundle is in %1. Install from it with the Options page's "
                                             "offline bundle field, or \"tfsetup install --offline --from\".")
                                              .arg(QDir::toNativeSeparators(folder))
                                        : bundle.error().message);
    Q_EMIT page->bundleFinished(bool(bundle));
}

} // namespace tfsetup::ui
