#include "doctor/doctor.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QRegularExpression>
#include <QSaveFile>

namespace tfsetup::core {

namespace {

using namespace Qt::Literals::StringLiterals;

QString pick(const DoctorText &text, bool english)
{
    return english ? text.english : text.translated;
}

DoctorText severityLabel(Severity severity)
{
    switch (severity) {
    case Severity::Error:
        return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "ERROR"));
    case Severity::Warning:
        return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "WARNING"));
    case Severity::Info:
        break;
    }
    return doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "INFO"));
}

QString renderSystem(const DoctorReport &r, bool english)
{
    const HardwareReport &hw = r.hardware;
    QString out;
    auto line = [&](const DoctorText &label, const QString &value) {
        out += u"  "_s + pick(label, english) + u": " + (value.isEmpty() ? u"-"_s : value) + u'\n';
    };
    line(doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "System")),
         QStringList{hw.os.version.isEmpty() ? hw.os.family : hw.os.version, hw.os.arch,
                     hw.os.wsl ? u"WSL%1"_s.arg(hw.os.wsl) : QString()}
             .filter(QRegularExpression(u"."_s))
             .join(u", "_s));
    line(doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "Processor")),
         hw.cpu.name + (hw.cpu.avx.has_value() ? (*hw.cpu.avx ? u" (AVX)"_s : u" (no AVX)"_s) : QString()));
    QStringList gpus;
    for (const GpuInfo &g : hw.gpus)
        gpus.append(g.computeCapability.isEmpty() ? g.name : u"%1 (%2)"_s.arg(g.name, g.computeCapability));
    line(doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "GPUs")), gpus.join(u", "_s));
    line(doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "NVIDIA driver")),
         !hw.driver ? QString()
         : hw.driver->cuda.isEmpty() ? hw.driver->version
                                     : u"%1 (CUDA %2)"_s.arg(hw.driver->version, hw.driver->cuda));
    QStringList toolkits;
    for (const CudaToolkitInfo &t : hw.cudaToolkits)
        toolkits.append(u"%1 %2"_s.arg(t.version, t.path));
    line(doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "CUDA toolkits")), toolkits.join(u"; "_s));
    QStringList cudnn;
    for (const CudnnInfo &c : hw.cudnn)
        cudnn.append(u"%1 %2"_s.arg(c.version, c.path));
    line(doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "cuDNN")), cudnn.join(u"; "_s));
    if (!r.target.envDir.isEmpty() || !r.target.tensorflow.isEmpty()) {
        line(doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "Environment")),
             QStringList{r.target.envDir, r.target.envKind}.filter(QRegularExpression(u"."_s)).join(u", "_s));
        line(doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "Python")), r.target.pythonVersion);
        line(doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "TensorFlow")),
             r.target.tensorflow.isEmpty() ? QString() : r.target.tensorflowPackage.isEmpty()
                                                             ? r.target.tensorflow
                                                             : r.target.tensorflowPackage + u' ' + r.target.tensorflow);
    }
    return out;
}

QString renderFindings(const DoctorReport &r, bool english)
{
    QString out;
    if (r.findings.isEmpty()) {
        out += u"  "_s + pick(doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "No problems found.")), english) + u'\n';
        return out;
    }
    for (const DoctorFinding &f : r.findings) {
        out += u"["_s + pick(severityLabel(f.severity), english) + u"] " + pick(f.summary, english) + u"  ("
               + f.cause + u")\n";
        for (const QString &e : f.evidence)
            out += u"    "_s + e + u'\n';
        if (!f.fix.isEmpty())
            out += u"  -> "_s + pick(f.fix, english) + u'\n';
    }
    return out;
}

QString render(const DoctorReport &r, bool english)
{
    QString out;
    out += pick(doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "This machine")), english) + u'\n';
    out += renderSystem(r, english);
    out += u'\n';
    out += pick(doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "Findings: %1 errors, %2 warnings, %3 notes"),
                           {QString::number(r.count(Severity::Error)), QString::number(r.count(Severity::Warning)),
                            QString::number(r.count(Severity::Info))}),
                english)
           + u'\n';
    out += renderFindings(r, english);
    return out;
}

bool hasTranslation(const DoctorReport &r)
{
    const DoctorText probe = doctorText(QT_TRANSLATE_NOOP("tfsetup::core::Doctor", "This machine"));
    if (probe.translated != probe.english)
        return true;
    return std::any_of(r.findings.cbegin(), r.findings.cend(), [](const DoctorFinding &f) {
        return f.summary.translated != f.summary.english || f.fix.translated != f.fix.english;
    });
}

} // namespace

Redactor::Redactor(const SystemView &system)
{
    m_caseInsensitive = system.os() == OsFamily::Windows;
    const QString home = system.homeDir();
    if (!home.isEmpty())
        m_homes.append(home);
    for (const char *var : {"USERNAME", "USER", "LOGNAME"}) {
        const QString name = system.env(QString::fromLatin1(var)).trimmed();
        if (!name.isEmpty() && !m_names.contains(name))
            m_names.append(name);
    }
    const QString last = home.section(u'/', -1);
    if (!last.isEmpty() && !m_names.contains(last))
        m_names.append(last);
    for (const char *var : {"COMPUTERNAME", "HOSTNAME"}) {
        const QString name = system.env(QString::fromLatin1(var)).trimmed();
        if (!name.isEmpty() && !m_names.contains(name))
            m_names.append(name);
    }
}

Redactor::Redactor(QStringList homes, QStringList names) : m_homes(std::move(homes)), m_names(std::move(names)) {}

QString Redactor::apply(const QString &text) const
{
    QString out = text;
    const auto cs = m_caseInsensitive ? Qt::CaseInsensitive : Qt::CaseSensitive;
    for (const QString &home : m_homes) {
        if (home.size() < 2)
            continue;
        QString backslashed = home;
        backslashed.replace(u'/', u'\\');
        out.replace(home, u"<home>"_s, cs);
        out.replace(backslashed, u"<home>"_s, cs);
    }
    for (const QString &name : m_names) {
        // Whole words only, and not one- or two-letter names that would mask half the report.
        if (name.size() < 3)
            continue;
        QRegularExpression word(u"(?<![\\w])"_s + QRegularExpression::escape(name) + u"(?![\\w])"_s,
                                m_caseInsensitive ? QRegularExpression::CaseInsensitiveOption
                                                  : QRegularExpression::NoPatternOption);
        out.replace(word, u"<user>"_s);
    }
    // TensorFlow's CUDA diagnostics print the host name ("hostname: p04295").
    static const QRegularExpression host(uR"((hostname:|for host:)\s*\S+)"_s);
    out.replace(host, u"\\1 <host>"_s);
    return out;
}

int DoctorReport::count(Severity severity) const
{
    return int(std::count_if(findings.cbegin(), findings.cend(), [&](const DoctorFinding &f) { return f.severity == severity; }));
}

QJsonObject DoctorReport::toJson() const
{
    QJsonArray list;
    for (const DoctorFinding &f : findings)
        list.append(f.toJson());
    return {{u"schema"_s, 1},
            {u"target"_s, target.toJson()},
            {u"hardware"_s, hardware.toJson()},
            {u"findings"_s, list},
            {u"counts"_s, QJsonObject{{u"error"_s, count(Severity::Error)},
                                      {u"warning"_s, count(Severity::Warning)},
                                      {u"info"_s, count(Severity::Info)}}}};
}

QString DoctorReport::text() const
{
    return render(*this, false);
}

QString DoctorReport::reportText(const Redactor &redactor) const
{
    QString out = u"tfsetup doctor\n"_s;
    out += QStringLiteral("==========\n\n");
    if (hasTranslation(*this)) {
        out += render(*this, false);
        out += u"\n----- English -----\n\n"_s;
    }
    out += render(*this, true);
    return redactor.apply(out);
}

QCoro::Task<DoctorReport> runDoctor(SystemView &system, const Catalog &catalog, const TfLogReader &logReader,
                                    DoctorOptions options)
{
    DoctorReport report;
    report.hardware = co_await detectHardware(system, options.detect);
    report.target = inspectEnvironment(system, options.envDir);
    if (!options.tensorflow.isEmpty()) {
        report.target.tensorflow = options.tensorflow;
        report.target.tensorflowEvidence = u"--tf"_s;
    }
    if (options.cpuOnly)
        report.target.cpuOnly = true;
    report.findings = scanSystem(system, report.hardware, catalog, report.target);
    if (options.log) {
        TfLogContext context;
        context.cpuOnly = report.target.cpuOnly || report.hardware.nvidiaGpus().isEmpty();
        for (DoctorFinding f : logReader.read(*options.log, context)) {
            f.id.prepend(u"log."_s);
            report.findings.append(std::move(f));
        }
    }
    sortFindings(report.findings);
    co_return report;
}

Status writeDoctorReport(const QString &path, const QString &text)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(text.toUtf8()) < 0 || !file.commit()) {
        return Error{u"report_unwritable"_s,
                     QCoreApplication::translate("tfsetup::core::Doctor",
                                                 "Cannot write the report to %1. Choose a folder you can write to.")
                         .arg(path),
                     file.errorString()};
    }
    return Ok{};
}

} // namespace tfsetup::core
