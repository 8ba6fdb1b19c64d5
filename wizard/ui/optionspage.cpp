#include "ui/optionspage.h"

#include "fetch/downloadcache.h"
#include "install/installspec.h"
#include "setup/diskspace.h"
#include "sources/sourcecatalog.h"
#include "ui/wizardstate.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QEvent>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QVBoxLayout>
#include <QWizard>

namespace tfsetup::ui {

namespace {

// Help topics, in the order of the form's rows.
const QStringList topics{QStringLiteral("folder"), QStringLiteral("name"), QStringLiteral("pypi"),
                         QStringLiteral("nvidia"), QStringLiteral("proxy"), QStringLiteral("cache"),
                         QStringLiteral("bundle")};

bool validName(const QString &name)
{
    return !name.isEmpty() && !name.contains(u'/') && !name.contains(u'\\') && !name.startsWith(u'.')
        && !name.contains(u':');
}

} // namespace

OptionsPage::OptionsPage(WizardState &state, QWidget *parent)
    : QWizardPage(parent)
    , m_state(state)
    , m_settings([] { return std::make_unique<QSettings>(); })
    , m_folderEdit(new QLineEdit(this))
    , m_folderBrowse(new QPushButton(this))
    , m_folderAdvice(new QLabel(this))
    , m_nameEdit(new QLineEdit(this))
    , m_pypiCombo(new QComboBox(this))
    , m_nvidiaEdit(new QLineEdit(this))
    , m_proxyEdit(new QLineEdit(this))
    , m_cacheEdit(new QLineEdit(this))
    , m_bundleEdit(new QLineEdit(this))
    , m_bundleBrowse(new QPushButton(this))
    , m_helpLabel(new QLabel(this))
    , m_jupyterCheck(new QCheckBox(this))
    , m_trustCheck(new QCheckBox(this))
    , m_trustRisk(new QLabel(this))
    , m_statusLabel(new QLabel(this))
    , m_busy(new QProgressBar(this))
{
    setObjectName(QStringLiteral("optionsPage"));
    m_folderEdit->setObjectName(QStringLiteral("folderEdit"));
    m_folderBrowse->setObjectName(QStringLiteral("folderBrowseButton"));
    m_folderAdvice->setObjectName(QStringLiteral("folderAdviceLabel"));
    m_nameEdit->setObjectName(QStringLiteral("nameEdit"));
    m_pypiCombo->setObjectName(QStringLiteral("pypiMirrorCombo"));
    m_nvidiaEdit->setObjectName(QStringLiteral("nvidiaMirrorEdit"));
    m_proxyEdit->setObjectName(QStringLiteral("proxyEdit"));
    m_cacheEdit->setObjectName(QStringLiteral("cacheEdit"));
    m_bundleEdit->setObjectName(QStringLiteral("bundleEdit"));
    m_bundleBrowse->setObjectName(QStringLiteral("bundleBrowseButton"));
    m_helpLabel->setObjectName(QStringLiteral("helpLabel"));
    m_statusLabel->setObjectName(QStringLiteral("statusLabel"));
    m_jupyterCheck->setObjectName(QStringLiteral("jupyterCheck"));
    m_jupyterCheck->setChecked(true);
    m_trustCheck->setObjectName(QStringLiteral("trustOnFirstUseCheck"));
    m_trustRisk->setObjectName(QStringLiteral("trustOnFirstUseRiskLabel"));
    m_busy->setObjectName(QStringLiteral("resolveProgress"));

    for (QLabel *label : {m_folderAdvice, m_helpLabel, m_trustRisk, m_statusLabel}) {
        label->setWordWrap(true);
        label->setTextFormat(Qt::PlainText);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    }
    m_helpLabel->setFrameShape(QFrame::StyledPanel);
    m_helpLabel->setMargin(6);
    m_helpLabel->hide();
    m_folderAdvice->hide();
    m_statusLabel->hide();
    showTrustChoice(false);
    m_busy->setRange(0, 0);
    m_busy->hide();

    m_pypiCombo->setEditable(true);
    m_pypiCombo->setInsertPolicy(QComboBox::NoInsert);
    m_pypiCombo->addItem(QString(), QStringLiteral("pypi"));
    if (const auto catalog = core::SourceCatalog::load()) {
        for (const core::PypiMirror &m : catalog->pypiMirrors()) {
            if (m.name != u"pypi")
                m_pypiCombo->addItem(QString(), m.name);
        }
    }

    auto *form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    const QList<QWidget *> fields{m_folderEdit, m_nameEdit, m_pypiCombo, m_nvidiaEdit,
                                  m_proxyEdit,  m_cacheEdit, m_bundleEdit};
    for (int i = 0; i < topics.size(); ++i) {
        auto *label = new QLabel(this);
        label->setBuddy(fields.at(i));
        m_rowLabels.append(label);
        // A flat button drawn as a link: reachable with Tab, and its text is plain translated text.
        auto *help = new QPushButton(this);
        help->setObjectName(topics.at(i) + QStringLiteral("Help"));
        help->setFlat(true);
        help->setCursor(Qt::PointingHandCursor);
        help->setStyleSheet(QStringLiteral("QPushButton { color: palette(link); text-decoration: underline; "
                                           "border: none; padding: 0 2px; }"));
        const QString topic = topics.at(i);
        connect(help, &QPushButton::clicked, this, [this, topic] { showHelp(topic); });
        m_helpLinks.append(help);

        auto *row = new QHBoxLayout;
        row->addWidget(fields.at(i), 1);
        if (i == 0)
            row->addWidget(m_folderBrowse);
        if (i == topics.size() - 1)
            row->addWidget(m_bundleBrowse);
        row->addWidget(help);
        form->addRow(label, row);
        if (i == 0)
            form->addRow(QString(), m_folderAdvice);
    }

    // Tab goes along each row (field, Browse, What is this?) before the next row, as it reads;
    // creation order would visit every field first and all the help links last.
    QList<QWidget *> chain;
    for (int i = 0; i < topics.size(); ++i) {
        chain.append(fields.at(i));
        if (i == 0)
            chain.append(m_folderBrowse);
        if (i == topics.size() - 1)
            chain.append(m_bundleBrowse);
        chain.append(m_helpLinks.at(i));
    }
    chain.append(m_jupyterCheck);
    chain.append(m_trustCheck);
    for (int i = 1; i < chain.size(); ++i)
        setTabOrder(chain.at(i - 1), chain.at(i));

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_jupyterCheck);
    layout->addWidget(m_helpLabel);
    layout->addStretch(1);
    layout->addWidget(m_trustCheck);
    layout->addWidget(m_trustRisk);
    layout->addWidget(m_busy);
    layout->addWidget(m_statusLabel);

    connect(m_folderEdit, &QLineEdit::textChanged, this, [this] {
        updateAdvice();
        Q_EMIT completeChanged();
    });
    connect(m_nameEdit, &QLineEdit::textChanged, this, &OptionsPage::completeChanged);
    connect(m_folderBrowse, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Folder for environments"), m_folderEdit->text());
        if (!dir.isEmpty())
            m_folderEdit->setText(dir);
    });
    connect(m_bundleBrowse, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Offline bundle folder"), m_bundleEdit->text());
        if (!dir.isEmpty())
            m_bundleEdit->setText(dir);
    });

    retranslate();
}

OptionsPage::~OptionsPage()
{
    if (m_cancelFirstUse)
        m_cancelFirstUse->store(true);
}

core::SetupOptions OptionsPage::options() const
{
    core::SetupOptions o = m_base;
    o.prefix = m_folderEdit->text().trimmed();
    o.name = m_nameEdit->text().trimmed();
    const int index = m_pypiCombo->findText(m_pypiCombo->currentText());
    o.pypiMirror = index >= 0 ? m_pypiCombo->itemData(index).toString() : m_pypiCombo->currentText().trimmed();
    o.nvidiaMirror = m_nvidiaEdit->text().trimmed();
    o.proxy = m_proxyEdit->text().trimmed();
    o.cacheDir = m_cacheEdit->text().trimmed();
    o.bundleDir = m_bundleEdit->text().trimmed();
    o.trustOnFirstUse = !m_trustCheck->isHidden() && m_trustCheck->isChecked();
    o.jupyter = m_jupyterCheck->isChecked();
    return o;
}

void OptionsPage::initializePage()
{
    load();
    // The name follows the plan: another plan is another environment.
    if (m_state.plan())
        m_nameEdit->setText(core::InstallSpec::defaultName(*m_state.plan()));
    applySuggestion();
    m_statusLabel->hide();
    // Trusting files without a checksum is chosen each time, never carried over.
    showTrustChoice(false);
    updateAdvice();
}

void OptionsPage::suggestOptions(core::SetupOptions options)
{
    m_base = options;
    m_suggested = std::move(options);
    m_suggestedPlan = m_state.plan() ? QString::fromUtf8(QJsonDocument(m_state.plan()->toJson()).toJson()) : QString();
}

void OptionsPage::applySuggestion()
{
    if (!m_suggested)
        return;
    const core::SetupOptions &o = *m_suggested;
    const auto fill = [](QLineEdit *edit, const QString &value) {
        if (!value.isEmpty())
            edit->setText(value);
    };
    fill(m_folderEdit, o.prefix);
    const QString plan = m_state.plan() ? QString::fromUtf8(QJsonDocument(m_state.plan()->toJson()).toJson()) : QString();
    if (plan == m_suggestedPlan)
        fill(m_nameEdit, o.name);
    if (!o.pypiMirror.isEmpty()) {
        const int index = m_pypiCombo->findData(o.pypiMirror);
        if (index >= 0)
            m_pypiCombo->setCurrentIndex(index);
        else
            m_pypiCombo->setEditText(o.pypiMirror);
    }
    fill(m_nvidiaEdit, o.nvidiaMirror);
    fill(m_proxyEdit, o.proxy);
    fill(m_cacheEdit, o.cacheDir);
    fill(m_bundleEdit, o.bundleDir);
    // The Jupyter choice made for this setup wins over the remembered one, either way.
    m_jupyterCheck->setChecked(o.jupyter);
}

void OptionsPage::keepResolved()
{
    if (m_state.artifacts())
        m_resolvedKey = optionsKey(options());
}

void OptionsPage::cleanupPage()
{
    // Back while the first-use files are downloading: stop them.
    if (m_cancelFirstUse)
        m_cancelFirstUse->store(true);
    QWizardPage::cleanupPage();
}

bool OptionsPage::isComplete() const
{
    if (m_resolving || !m_state.plan() || !validName(m_nameEdit->text().trimmed()))
        return false;
    const auto advice = core::SetupFlow::adviseOnPath(m_folderEdit->text(), m_state.system().os());
    return std::none_of(advice.cbegin(), advice.cend(), [](const core::PathAdvice &a) { return a.blocking; });
}

QString OptionsPage::optionsKey(const core::SetupOptions &o) const
{
    const QString plan = m_state.plan() ? QString::fromUtf8(QJsonDocument(m_state.plan()->toJson()).toJson()) : QString();
    return QStringList{plan,       o.prefix,   o.name,      o.pypiMirror, o.nvidiaMirror,
                       o.proxy,    o.cacheDir, o.bundleDir, o.trustOnFirstUse ? QStringLiteral("trust") : QString()}
        .join(u'\n');
}

bool OptionsPage::validatePage()
{
    if (!isComplete())
        return false;
    const core::SetupOptions current = options();
    if (m_state.artifacts() && optionsKey(current) == m_resolvedKey) {
        // Name and folder may be edited without resolving again; both are in the key anyway.
        m_state.setOptions(current);
        return true;
    }
    const quint64 generation = ++m_generation;
    setBusy(true);
    m_statusLabel->setText(tr("Looking up the official files for this plan…"));
    m_statusLabel->show();
    runResolve(this, *m_state.plan(), core::osFamilyName(m_state.system().os()), current, generation);
    return false;
}

QCoro::Task<> OptionsPage::runResolve(QPointer<OptionsPage> page, core::Plan plan, QString os,
                                      core::SetupOptions options, quint64 generation)
{
    auto list = co_await core::SetupFlow::resolveArtifacts(std::move(plan), std::move(os), options);
    if (!page)
        co_return;
    page->finishResolve(generation, std::move(options), std::move(list));
}

void OptionsPage::finishResolve(quint64 generation, core::SetupOptions options, core::Result<core::ArtifactList> list)
{
    if (generation != m_generation)
        return;
    setBusy(false);

    QString problem;
    core::DownloadPlan downloads;
    if (!list) {
        problem = list.error().message;
        qWarning().noquote() << "Resolving artifacts failed:" << list.error().code << list.error().detail;
    } else {
        downloads = core::SetupFlow::downloadPlan(*list, options);
        QStringList messages;
        bool unverifiable = false;
        for (const core::Finding &f : std::as_const(downloads.problems)) {
            messages.append(f.message);
            unverifiable = unverifiable || f.code == u"artifact_unverifiable";
        }
        if (unverifiable)
            messages.append(tr("To download them anyway, tick the box below."));
        // A full disk is said now, before anything downloads (the cache) or unpacks (the environment).
        if (const core::Status space = core::DiskSpaceCheck::check(
                m_state.system(), core::DiskSpaceCheck::forSetup(*m_state.plan(), *list, downloads, options));
            !space)
            messages.append(space.error().message);
        showTrustChoice(unverifiable || !downloads.firstUse.isEmpty());
        problem = messages.join(u'\n');
    }
    if (!problem.isEmpty()) {
        m_statusLabel->setText(problem);
        m_statusLabel->show();
        Q_EMIT resolved(false);
        return;
    }
    if (!downloads.firstUse.isEmpty()) {
        // The student chose to trust these files: fetch them now, record what was seen, then commit.
        QStringList files;
        for (const core::Artifact &a : std::as_const(downloads.firstUse))
            files.append(a.fileName().isEmpty() ? a.name : a.fileName());
        setBusy(true);
        m_statusLabel->setText(tr("Downloading %1 and recording its SHA-256…").arg(files.join(QStringLiteral(", "))));
        m_statusLabel->show();
        if (m_cancelFirstUse)
            m_cancelFirstUse->store(true);
        m_cancelFirstUse = std::make_shared<std::atomic<bool>>(false);
        runFirstUse(this, *list, std::move(options), generation, m_cancelFirstUse);
        return;
    }
    commit(options, *list, downloads);
}

QCoro::Task<> OptionsPage::runFirstUse(QPointer<OptionsPage> page, core::ArtifactList list, core::SetupOptions options,
                                       quint64 generation, std::shared_ptr<std::atomic<bool>> cancel)
{
    auto fetched = co_await core::SetupFlow::fetchFirstUse(std::move(list), options, std::move(cancel));
    if (!page)
        co_return;
    page->finishFirstUse(generation, std::move(options), std::move(fetched));
}

void OptionsPage::finishFirstUse(quint64 generation, core::SetupOptions options, core::Result<core::ArtifactList> list)
{
    if (generation != m_generation)
        return;
    setBusy(false);
    if (!list) {
        qWarning().noquote() << "Trust on first use failed:" << list.error().code << list.error().detail;
        m_statusLabel->setText(list.error().message);
        m_statusLabel->show();
        Q_EMIT resolved(false);
        return;
    }
    commit(options, *list, core::SetupFlow::downloadPlan(*list, options));
}

void OptionsPage::commit(const core::SetupOptions &options, const core::ArtifactList &list,
                         const core::DownloadPlan &downloads)
{
    m_statusLabel->hide();
    m_resolvedKey = optionsKey(options);
    save(options);
    m_state.setOptions(options);
    m_state.setArtifacts(list);
    m_state.setDownloads(downloads.requests);
    Q_EMIT resolved(true);
    if (wizard() && wizard()->currentPage() == this)
        wizard()->next();
}

void OptionsPage::setBusy(bool busy)
{
    m_resolving = busy;
    m_busy->setVisible(busy);
    for (QWidget *w : std::initializer_list<QWidget *>{m_folderEdit, m_nameEdit, m_pypiCombo, m_nvidiaEdit, m_proxyEdit,
                                                       m_cacheEdit, m_bundleEdit, m_folderBrowse, m_bundleBrowse,
                                                       m_jupyterCheck, m_trustCheck})
        w->setEnabled(!busy);
    Q_EMIT completeChanged();
}

void OptionsPage::showTrustChoice(bool show)
{
    if (!show)
        m_trustCheck->setChecked(false); // unchecked whenever it appears again
    m_trustCheck->setVisible(show);
    m_trustRisk->setVisible(show);
}

void OptionsPage::showHelp(const QString &topic)
{
    m_helpTopic = topic;
    QString text;
    if (topic == u"folder") {
        text = tr("The folder where tfsetup creates your environment: a private copy of Python with TensorFlow and "
                  "the NVIDIA libraries it needs. Nothing outside this folder is changed, and deleting the folder "
                  "removes everything again.");
    } else if (topic == u"name") {
        text = tr("The name of the environment's folder. Jupyter lists it under this name, so you can keep several "
                  "environments side by side, for example one per course.");
    } else if (topic == u"pypi") {
        text = tr("PyPI is where pip downloads Python packages such as TensorFlow. A mirror is a copy of it on a "
                  "nearer server: in mainland China, Tsinghua (tuna), Alibaba Cloud (aliyun) or USTC are usually "
                  "much faster. You can also type the address of your lab's own index.");
    } else if (topic == u"nvidia") {
        text = tr("A copy of NVIDIA's download server, for example one your lab runs, or a folder with the same "
                  "layout. Leave it empty to download from NVIDIA. Wherever a file comes from, it must match "
                  "NVIDIA's published checksum.");
    } else if (topic == u"proxy") {
        text = tr("Some campus and company networks reach the internet only through a proxy server. If your "
                  "browser is set up with one, enter the same address here, like http://proxy.example.edu:3128. "
                  "Otherwise leave it empty.");
    } else if (topic == u"cache") {
        text = tr("Where downloaded files are kept. They are checked again before use, and a second install does "
                  "not download them again.");
    } else if (topic == u"bundle") {
        text = tr("An offline bundle is a folder made with \"tfsetup bundle\" on a computer with internet. It holds "
                  "every file one plan needs, so you can install without internet. Leave it empty to download.");
    }
    m_helpLabel->setText(text);
    m_helpLabel->setVisible(!text.isEmpty());
}

void OptionsPage::updateAdvice()
{
    // An empty field needs no sermon; Next stays off until it has a folder.
    const auto advice = m_folderEdit->text().trimmed().isEmpty()
                          ? QList<core::PathAdvice>()
                          : core::SetupFlow::adviseOnPath(m_folderEdit->text(), m_state.system().os());
    QStringList lines;
    for (const core::PathAdvice &a : advice)
        lines.append(a.message);
    m_folderAdvice->setText(lines.join(u'\n'));
    m_folderAdvice->setVisible(!lines.isEmpty());
}

void OptionsPage::load()
{
    const std::unique_ptr<QSettings> settings = m_settings();
    settings->beginGroup(QStringLiteral("options"));
    const auto text = [&](const char *key, const QString &fallback) {
        const QString value = settings->value(QLatin1String(key)).toString();
        return value.isEmpty() ? fallback : value;
    };
    m_folderEdit->setText(text("prefix", m_base.prefix.isEmpty() ? core::SetupOptions::defaultPrefix(m_state.system())
                                                                 : m_base.prefix));
    const QString pypi = text("pypiMirror", QStringLiteral("pypi"));
    const int index = m_pypiCombo->findData(pypi);
    if (index >= 0)
        m_pypiCombo->setCurrentIndex(index);
    else
        m_pypiCombo->setEditText(pypi);
    m_nvidiaEdit->setText(settings->value(QStringLiteral("nvidiaMirror")).toString());
    m_proxyEdit->setText(settings->value(QStringLiteral("proxy")).toString());
    // The download folder of the machine the wizard looks at (a fixture tree with --root), not
    // necessarily this one's.
    m_cacheEdit->setText(text("cacheDir", m_base.cacheDir.isEmpty() ? core::SetupOptions::defaultCacheDir(m_state.system())
                                                                     : m_base.cacheDir));
    m_bundleEdit->setText(settings->value(QStringLiteral("bundleDir")).toString());
    m_jupyterCheck->setChecked(settings->value(QStringLiteral("jupyter"), true).toBool());
    settings->endGroup();
}

void OptionsPage::save(const core::SetupOptions &o)
{
    const std::unique_ptr<QSettings> settings = m_settings();
    settings->beginGroup(QStringLiteral("options"));
    settings->setValue(QStringLiteral("prefix"), o.prefix);
    settings->setValue(QStringLiteral("pypiMirror"), o.pypiMirror);
    settings->setValue(QStringLiteral("nvidiaMirror"), o.nvidiaMirror);
    settings->setValue(QStringLiteral("proxy"), o.proxy);
    settings->setValue(QStringLiteral("cacheDir"), o.cacheDir);
    settings->setValue(QStringLiteral("bundleDir"), o.bundleDir);
    settings->setValue(QStringLiteral("jupyter"), o.jupyter);
    settings->endGroup();
    settings->sync();
}

void OptionsPage::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange) {
        retranslate();
        updateAdvice();
        if (!m_helpTopic.isEmpty())
            showHelp(m_helpTopic);
    }
    QWizardPage::changeEvent(event);
}

void OptionsPage::retranslate()
{
    setTitle(tr("Options"));
    setSubTitle(tr("Where the environment goes and where files come from. The suggestions work for most students."));
    // Alt+N is Next and Alt+B is Back on this page: the name and bundle rows use other letters.
    const QStringList labels{tr("&Folder:"), tr("N&ame:"), tr("&PyPI mirror:"), tr("N&VIDIA mirror:"),
                             tr("Pro&xy:"),  tr("&Downloads:"), tr("Offline b&undle:")};
    for (int i = 0; i < m_rowLabels.size(); ++i)
        m_rowLabels.at(i)->setText(labels.at(i));
    for (QPushButton *help : std::as_const(m_helpLinks)) {
        help->setText(tr("What is this?"));
        help->setAccessibleDescription(m_rowLabels.at(m_helpLinks.indexOf(help))->text().remove(u'&'));
    }
    m_folderBrowse->setText(tr("Bro&wse…"));
    m_jupyterCheck->setText(tr("Install &Jupyter: JupyterLab, to work in notebooks"));
    m_jupyterCheck->setAccessibleName(tr("Install JupyterLab"));
    m_jupyterCheck->setToolTip(tr("Every environment gets a Jupyter kernel. This adds JupyterLab, which "
                                  "start-jupyter and the Finish page open."));
    m_trustCheck->setText(
        tr("Download the files without a published checksum anyway, and record their SHA-256 (&trust on first use)"));
    m_trustCheck->setAccessibleName(tr("Trust files without a published checksum on first use"));
    m_trustRisk->setText(tr("Nothing can prove these files are the originals: a hostile network or mirror could "
                            "swap them. Their SHA-256 is recorded, so any later change is caught."));
    m_bundleBrowse->setText(tr("Brow&se…"));
    m_folderEdit->setToolTip(tr("The environment is created in a folder inside this one."));
    m_nameEdit->setToolTip(tr("Letters, digits, dots and dashes; no slashes."));
    m_nvidiaEdit->setPlaceholderText(tr("empty: download from NVIDIA"));
    m_proxyEdit->setPlaceholderText(tr("empty: no proxy, or the system's"));
    m_bundleEdit->setPlaceholderText(tr("empty: download over the internet"));
    if (const auto catalog = core::SourceCatalog::load()) {
        for (int i = 0; i < m_pypiCombo->count(); ++i) {
            const QString name = m_pypiCombo->itemData(i).toString();
            const auto mirror = catalog->pypiMirror(name);
            if (name == u"pypi") {
                m_pypiCombo->setItemText(i, tr("PyPI (pypi.org, official)"));
            } else if (mirror) {
                const QString host = QUrl(mirror->url).host();
                m_pypiCombo->setItemText(i, mirror->region == u"cn" ? tr("%1 (%2, China)").arg(name, host)
                                                                     : tr("%1 (%2)").arg(name, host));
            }
        }
    }
}

} // namespace tfsetup::ui
