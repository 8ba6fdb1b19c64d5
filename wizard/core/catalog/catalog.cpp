#include "catalog/catalog.h"

#include "catalog/version.h"
#include "util/jsonshape.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>

namespace tfsetup::core {

namespace {

QStringList strings(const QJsonObject &o, const char *key)
{
    QStringList out;
    for (const QJsonValue &v : o.value(QLatin1String(key)).toArray())
        out.append(v.toString());
    return out;
}

bool flag(const QJsonObject &o, const char *key, bool fallback)
{
    return o.value(QLatin1String(key)).toBool(fallback);
}

QList<QJsonObject> objects(const QJsonObject &o, const char *key)
{
    QList<QJsonObject> out;
    for (const QJsonValue &v : o.value(QLatin1String(key)).toArray()) {
        if (v.isObject())
            out.append(v.toObject());
    }
    return out;
}

DriverFloor driverFloor(const QJsonObject &o)
{
    const QJsonObject d = o.value(QLatin1String("driver_min")).toObject();
    return {textOf(d, "linux"), textOf(d, "windows")};
}

Result<QJsonObject> parse(const QByteArray &bytes, const QString &name)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject()) {
        return Error{QStringLiteral("catalog_malformed"),
                     QCoreApplication::translate("Catalog",
                                                 "The knowledge catalog file %1 is damaged. Reinstall "
                                                 "tfsetup, or remove the catalog override you gave.")
                         .arg(name),
                     error.errorString()};
    }
    const QJsonObject root = doc.object();
    if (root.value(QLatin1String("schema")).toInt() != 1) {
        return Error{QStringLiteral("catalog_schema"),
                     QCoreApplication::translate("Catalog",
                                                 "The knowledge catalog file %1 was written for another "
                                                 "version of tfsetup. Update tfsetup.")
                         .arg(name),
                     {}};
    }
    return root;
}

// Python ranges as TF prints them: "3.7-3.10" or a single "2.7".
std::pair<QString, QString> pythonBounds(const QString &range)
{
    const qsizetype dash = range.indexOf(u'-');
    if (dash < 0)
        return {range.trimmed(), range.trimmed()};
    return {range.left(dash).trimmed(), range.mid(dash + 1).trimmed()};
}

} // namespace

QString TfRelease::minor() const
{
    return version::majorMinor(version);
}

bool TfRelease::supportsPython(const QString &majorMinor) const
{
    const QString wanted = version::majorMinor(majorMinor);
    for (const QString &range : python) {
        const auto [lo, hi] = pythonBounds(range);
        if (version::inRange(wanted, lo, hi))
            return true;
    }
    return false;
}

QStringList TfRelease::pythonVersions() const
{
    QStringList out;
    for (const QString &range : python) {
        const auto [lo, hi] = pythonBounds(range);
        const int major = version::major(lo).toInt();
        if (version::major(hi).toInt() != major)
            continue; // TF never printed a range across Python majors
        const int from = version::majorMinor(lo).section(u'.', 1, 1).toInt();
        const int to = version::majorMinor(hi).section(u'.', 1, 1).toInt();
        for (int minor = from; minor <= to; ++minor)
            out.append(QString::number(major) + u'.' + QString::number(minor));
    }
    std::sort(out.begin(), out.end(), [](const QString &a, const QString &b) { return version::less(b, a); });
    return out;
}

QString TfRelease::pythonText() const
{
    return python.join(QStringLiteral(", "));
}

bool GpuBuild::covers(const QString &tfVersion, const QString &osName) const
{
    return os.contains(osName) && version::inRange(version::majorMinor(tfVersion), tfMin, tfMax);
}

QString GpuBuild::lowest() const
{
    QString low;
    for (const QString &cc : sass + ptx) {
        if (low.isEmpty() || version::less(cc, low))
            low = cc;
    }
    return low;
}

bool DriverBranchEnd::covers(const QString &computeCapability) const
{
    return !computeCapability.isEmpty() && version::inRange(computeCapability, ccMin, ccMax);
}

const RoutePlatform *Route::platformFor(const QString &osName, const QString &archName, const QString &tfVersion) const
{
    for (const RoutePlatform &p : platforms) {
        if (p.os == osName && p.arch == archName && version::inRange(version::majorMinor(tfVersion), p.tfMin, p.tfMax))
            return &p;
    }
    return nullptr;
}

bool Route::hasPlatform(const QString &osName, const QString &archName) const
{
    return std::any_of(platforms.cbegin(), platforms.cend(),
                       [&](const RoutePlatform &p) { return p.os == osName && p.arch == archName; });
}

QString Route::lastOnPlatform(const QString &osName, const QString &archName) const
{
    QString last;
    for (const RoutePlatform &p : platforms) {
        if (p.os != osName || p.arch != archName)
            continue;
        if (p.tfMax.isEmpty())
            return {};
        if (last.isEmpty() || version::less(last, p.tfMax))
            last = p.tfMax;
    }
    return last;
}

Result<Catalog> Catalog::load(const QString &directory)
{
    QList<QByteArray> contents;
    for (const char *name : {"tensorflow.json", "cuda.json", "libraries.json", "routes.json"}) {
        QFile f(directory + u'/' + QLatin1String(name));
        if (!f.open(QIODevice::ReadOnly)) {
            return Error{QStringLiteral("catalog_missing"),
                         tr("The knowledge catalog file %1 cannot be read. Reinstall tfsetup, or check the "
                            "catalog folder you gave.")
                             .arg(f.fileName()),
                         f.errorString()};
        }
        contents.append(f.readAll());
    }
    return fromJson(contents.at(0), contents.at(1), contents.at(2), contents.at(3));
}

Result<Catalog> Catalog::fromJson(const QByteArray &tensorflow, const QByteArray &cuda, const QByteArray &libraries,
                                  const QByteArray &routes)
{
    Catalog c;

    auto tf = parse(tensorflow, QStringLiteral("tensorflow.json"));
    if (!tf)
        return tf.error();
    for (const QJsonObject &o : objects(*tf, "releases")) {
        TfRelease r;
        r.version = textOf(o, "version");
        r.os = textOf(o, "os");
        r.python = strings(o, "python");
        r.cuda = textOf(o, "cuda");
        r.cudnn = textOf(o, "cudnn");
        r.package = textOf(o, "package");
        r.pipCudaExtra = textOf(o, "pip_cuda_extra");
        r.source = textOf(o, "source");
        r.note = textOf(o, "note");
        r.verified = flag(o, "verified", false);
        r.packageVerified = flag(o, "verified_package", true);
        c.m_releases.append(r);
    }
    for (const QJsonObject &o : objects(*tf, "gpu_builds")) {
        c.m_gpuBuilds.append({textOf(o, "tf_min"), textOf(o, "tf_max"), strings(o, "os"), strings(o, "sass"),
                              strings(o, "ptx"), textOf(o, "source"), flag(o, "verified", false)});
    }
    for (const QJsonObject &o : objects(*tf, "cpu_requirements")) {
        c.m_cpuRequirements.append(
            {textOf(o, "instruction_set"), textOf(o, "tf_min"), textOf(o, "source"), flag(o, "verified", false)});
    }

    auto cu = parse(cuda, QStringLiteral("cuda.json"));
    if (!cu)
        return cu.error();
    for (const QJsonObject &o : objects(*cu, "toolkits")) {
        c.m_toolkits.append({textOf(o, "version"), driverFloor(o), textOf(o, "cc_min"), textOf(o, "cc_max"),
                             textOf(o, "source"), textOf(o, "note"), flag(o, "verified", false)});
    }
    for (const QJsonObject &o : objects(*cu, "minor_compatibility")) {
        c.m_minorCompatibility.append({textOf(o, "major"), textOf(o, "cuda_min"), driverFloor(o), textOf(o, "source"),
                                       textOf(o, "note"), flag(o, "verified", false)});
    }

    for (const QJsonObject &o : objects(*cu, "driver_branches")) {
        c.m_driverBranchEnds.append({textOf(o, "architecture"), textOf(o, "cc_min"), textOf(o, "cc_max"),
                                     o.value(QLatin1String("last_branch")).toInt(0), textOf(o, "source"),
                                     flag(o, "verified", false)});
    }

    auto lib = parse(libraries, QStringLiteral("libraries.json"));
    if (!lib)
        return lib.error();
    auto librarySets = [](const QJsonObject &root, const char *key) {
        QList<LibrarySet> out;
        for (const QJsonObject &o : objects(root, key)) {
            out.append({textOf(o, "cuda_min"), textOf(o, "cuda_max"), textOf(o, "major"), textOf(o, "os"),
                        strings(o, "files"), textOf(o, "source"), flag(o, "verified", false)});
        }
        return out;
    };
    c.m_cudaLibraries = librarySets(*lib, "cuda");
    c.m_cudnnLibraries = librarySets(*lib, "cudnn");
    c.m_driverLibraries = librarySets(*lib, "driver");

    auto ro = parse(routes, QStringLiteral("routes.json"));
    if (!ro)
        return ro.error();
    for (const QJsonObject &o : objects(*ro, "routes")) {
        Route r;
        r.name = textOf(o, "name");
        r.os = strings(o, "os");
        r.arch = strings(o, "arch");
        r.accelerator = textOf(o, "accelerator");
        r.releases = textOf(o, "releases");
        r.tfMin = textOf(o, "tf_min");
        r.tfMax = textOf(o, "tf_max");
        r.beyondMaxReason = textOf(o, "beyond_max_reason");
        r.cudaLibraries = textOf(o, "cuda_libraries");
        r.driverOs = textOf(o, "driver_os");
        r.wsl = textOf(o, "wsl");
        r.windowsBuildMin = o.value(QLatin1String("windows_build_min")).toInt(0);
        r.requiresPipCuda = flag(o, "requires_pip_cuda", false);
        r.experimental = flag(o, "experimental", false);
        r.versions = strings(o, "versions");
        r.actions = strings(o, "actions");
        r.package = textOf(o, "package");
        r.plugins = strings(o, "plugins");
        r.pythonMin = textOf(o, "python_min");
        r.pythonMax = textOf(o, "python_max");
        for (const QJsonObject &p : objects(o, "platforms")) {
            r.platforms.append({textOf(p, "os"), textOf(p, "arch"), textOf(p, "tf_min"), textOf(p, "tf_max"),
                                textOf(p, "source"), flag(p, "verified", false)});
        }
        r.source = textOf(o, "source");
        r.note = textOf(o, "note");
        r.verified = flag(o, "verified", false);
        c.m_routes.append(r);
    }
    for (const QJsonObject &o : objects(*ro, "plugins")) {
        c.m_plugins.append({textOf(o, "name"), textOf(o, "last_release"), textOf(o, "released"),
                            textOf(o, "python_min"), textOf(o, "python_max"), textOf(o, "tf_min"), textOf(o, "tf_max"),
                            textOf(o, "broken_from"), textOf(o, "source"), textOf(o, "note"),
                            flag(o, "verified", false)});
    }
    return c;
}

QList<TfRelease> Catalog::releasesFor(const QString &os) const
{
    QList<TfRelease> out;
    for (const TfRelease &r : m_releases) {
        if (r.os == os)
            out.append(r);
    }
    std::sort(out.begin(), out.end(),
              [](const TfRelease &a, const TfRelease &b) { return version::less(b.version, a.version); });
    return out;
}

std::optional<TfRelease> Catalog::release(const QString &os, const QString &versionPrefix) const
{
    for (const TfRelease &r : releasesFor(os)) {
        if (version::matchesPrefix(versionPrefix, r.version))
            return r;
    }
    return std::nullopt;
}

std::optional<GpuBuild> Catalog::gpuBuild(const QString &tfVersion, const QString &os) const
{
    for (const GpuBuild &b : m_gpuBuilds) {
        if (b.covers(tfVersion, os))
            return b;
    }
    return std::nullopt;
}

std::optional<CpuRequirement> Catalog::cpuRequirement(const QString &instructionSet) const
{
    for (const CpuRequirement &r : m_cpuRequirements) {
        if (r.instructionSet == instructionSet)
            return r;
    }
    return std::nullopt;
}

std::optional<CudaToolkit> Catalog::toolkit(const QString &cudaVersion) const
{
    const QString wanted = version::majorMinor(cudaVersion);
    for (const CudaToolkit &t : m_toolkits) {
        if (version::compare(t.version, wanted) == 0)
            return t;
    }
    return std::nullopt;
}

std::optional<CudaToolkit> Catalog::firstToolkitTargeting(const QString &computeCapability) const
{
    std::optional<CudaToolkit> best;
    for (const CudaToolkit &t : m_toolkits) {
        if (!version::inRange(computeCapability, t.ccMin, t.ccMax))
            continue;
        if (!best || version::less(t.version, best->version))
            best = t;
    }
    return best;
}

std::optional<MinorCompatibility> Catalog::minorCompatibility(const QString &cudaVersion) const
{
    for (const MinorCompatibility &m : m_minorCompatibility) {
        if (version::major(cudaVersion) == m.major && !version::less(cudaVersion, m.cudaMin))
            return m;
    }
    return std::nullopt;
}

std::optional<DriverBranchEnd> Catalog::driverBranchEnd(const QString &computeCapability) const
{
    for (const DriverBranchEnd &d : m_driverBranchEnds) {
        if (d.covers(computeCapability))
            return d;
    }
    return std::nullopt;
}

QStringList Catalog::cudaLibraries(const QString &cudaVersion, const QString &os) const
{
    for (const LibrarySet &s : m_cudaLibraries) {
        if (s.os == os && version::inRange(version::majorMinor(cudaVersion), s.cudaMin, s.cudaMax))
            return s.files;
    }
    return {};
}

QStringList Catalog::cudnnLibraries(const QString &cudnnVersion, const QString &os) const
{
    for (const LibrarySet &s : m_cudnnLibraries) {
        if (s.os == os && s.major == version::major(cudnnVersion))
            return s.files;
    }
    return {};
}

QStringList Catalog::driverLibraries(const QString &os) const
{
    for (const LibrarySet &s : m_driverLibraries) {
        if (s.os == os)
            return s.files;
    }
    return {};
}

const Route *Catalog::route(const QString &name) const
{
    for (const Route &r : m_routes) {
        if (r.name == name)
            return &r;
    }
    return nullptr;
}

std::optional<PluginRecord> Catalog::plugin(const QString &name) const
{
    for (const PluginRecord &p : m_plugins) {
        if (p.name == name)
            return p;
    }
    return std::nullopt;
}

QStringList Catalog::routeNames() const
{
    QStringList out;
    for (const Route &r : m_routes)
        out.append(r.name);
    return out;
}

QStringList Catalog::problems() const
{
    QStringList out;
    auto need = [&out](bool ok, const QString &what) {
        if (!ok)
            out.append(what);
    };
    auto validRange = [](const QString &lo, const QString &hi) {
        return (lo.isEmpty() || version::isValid(lo)) && (hi.isEmpty() || version::isValid(hi))
            && (lo.isEmpty() || hi.isEmpty() || !version::less(hi, lo));
    };

    QSet<QString> seen;
    for (const TfRelease &r : m_releases) {
        const QString id = QStringLiteral("release %1/%2").arg(r.version, r.os);
        need(!seen.contains(r.os + r.minor()), id + QStringLiteral(": two records for one minor release"));
        seen.insert(r.os + r.minor());
        need(!r.source.isEmpty(), id + QStringLiteral(": no source"));
        need(version::isValid(r.version), id + QStringLiteral(": bad version"));
        need(r.os == u"linux" || r.os == u"windows", id + QStringLiteral(": unknown os"));
        need(!r.package.isEmpty(), id + QStringLiteral(": no package"));
        need(!r.python.isEmpty(), id + QStringLiteral(": no python range"));
        for (const QString &range : r.python) {
            const auto [lo, hi] = pythonBounds(range);
            need(validRange(lo, hi) && version::major(lo) == version::major(hi),
                 id + QStringLiteral(": bad python range ") + range);
        }
        need(toolkit(r.cuda).has_value(), id + QStringLiteral(": CUDA %1 is not in cuda.json").arg(r.cuda));
        need(!cudaLibraries(r.cuda, r.os).isEmpty(), id + QStringLiteral(": no library names for CUDA ") + r.cuda);
        need(!cudnnLibraries(r.cudnn, r.os).isEmpty(), id + QStringLiteral(": no library names for cuDNN ") + r.cudnn);
        need(gpuBuild(r.version, r.os).has_value(), id + QStringLiteral(": no gpu_builds record"));
        if (const auto t = toolkit(r.cuda); t && gpuBuild(r.version, r.os)) {
            // A wheel cannot carry code for a capability its CUDA cannot target.
            for (const QString &cc : gpuBuild(r.version, r.os)->sass + gpuBuild(r.version, r.os)->ptx) {
                need(version::inRange(cc, t->ccMin, t->ccMax),
                     id + QStringLiteral(": compute capability %1 outside CUDA %2's targets").arg(cc, r.cuda));
            }
        }
    }
    for (const GpuBuild &b : m_gpuBuilds) {
        const QString id = QStringLiteral("gpu_builds %1-%2").arg(b.tfMin, b.tfMax);
        need(!b.source.isEmpty(), id + QStringLiteral(": no source"));
        need(validRange(b.tfMin, b.tfMax), id + QStringLiteral(": bad range"));
        need(!b.sass.isEmpty() || !b.ptx.isEmpty(), id + QStringLiteral(": no architectures"));
        for (const GpuBuild &other : m_gpuBuilds) {
            if (&other == &b)
                continue;
            for (const QString &os : b.os) {
                const bool overlap = other.os.contains(os) && !version::less(b.tfMax, other.tfMin)
                    && !version::less(other.tfMax, b.tfMin);
                need(!overlap, id + QStringLiteral(": overlaps another record on ") + os);
            }
        }
    }
    for (const CpuRequirement &r : m_cpuRequirements)
        need(!r.source.isEmpty() && version::isValid(r.tfMin), QStringLiteral("cpu requirement ") + r.instructionSet);
    QSet<QString> toolkitsSeen;
    for (const CudaToolkit &t : m_toolkits) {
        const QString id = QStringLiteral("CUDA %1").arg(t.version);
        need(!toolkitsSeen.contains(t.version), id + QStringLiteral(": duplicate"));
        toolkitsSeen.insert(t.version);
        need(!t.source.isEmpty(), id + QStringLiteral(": no source"));
        need(validRange(t.ccMin, t.ccMax), id + QStringLiteral(": bad compute capability range"));
        need(version::isValid(t.driverMin.linux) && version::isValid(t.driverMin.windows),
             id + QStringLiteral(": bad driver numbers"));
    }
    // Newer toolkits never need an older driver or target a lower maximum.
    for (const CudaToolkit &a : m_toolkits) {
        for (const CudaToolkit &b : m_toolkits) {
            if (version::less(a.version, b.version)) {
                need(!version::less(b.driverMin.linux, a.driverMin.linux)
                         && !version::less(b.driverMin.windows, a.driverMin.windows),
                     QStringLiteral("CUDA %1 needs an older driver than CUDA %2").arg(b.version, a.version));
                need(!version::less(b.ccMax, a.ccMax),
                     QStringLiteral("CUDA %1 targets less than CUDA %2").arg(b.version, a.version));
            }
        }
    }
    for (const MinorCompatibility &m : m_minorCompatibility)
        need(!m.source.isEmpty(), QStringLiteral("minor compatibility %1: no source").arg(m.major));
    for (const DriverBranchEnd &d : m_driverBranchEnds) {
        const QString id = QStringLiteral("driver branch of %1").arg(d.architecture);
        need(!d.source.isEmpty(), id + QStringLiteral(": no source"));
        need(d.lastBranch > 0, id + QStringLiteral(": no last branch"));
        need(validRange(d.ccMin, d.ccMax) && !d.ccMin.isEmpty() && !d.ccMax.isEmpty(),
             id + QStringLiteral(": bad compute capability range"));
        for (const DriverBranchEnd &other : m_driverBranchEnds) {
            if (&other != &d) {
                need(version::less(d.ccMax, other.ccMin) || version::less(other.ccMax, d.ccMin),
                     id + QStringLiteral(": overlaps ") + other.architecture);
            }
        }
    }
    QSet<QString> pluginNames;
    for (const PluginRecord &p : m_plugins) {
        const QString id = QStringLiteral("plugin ") + p.name;
        need(!pluginNames.contains(p.name), id + QStringLiteral(": duplicate"));
        pluginNames.insert(p.name);
        need(!p.source.isEmpty() && !p.lastRelease.isEmpty(), id + QStringLiteral(": no source or last release"));
        need(validRange(p.pythonMin, p.pythonMax), id + QStringLiteral(": bad python range"));
        need(validRange(p.tfMin, p.tfMax), id + QStringLiteral(": bad TensorFlow range"));
        need(p.brokenFrom.isEmpty()
                 || (version::isValid(p.brokenFrom) && (p.tfMax.isEmpty() || version::less(p.tfMax, p.brokenFrom))),
             id + QStringLiteral(": broken_from must lie past tf_max"));
    }
    for (const QList<LibrarySet> *sets : {&m_cudaLibraries, &m_cudnnLibraries, &m_driverLibraries}) {
        for (const LibrarySet &s : *sets) {
            const QString id = QStringLiteral("libraries %1%2/%3").arg(s.cudaMin, s.major, s.os);
            need(!s.source.isEmpty(), id + QStringLiteral(": no source"));
            need(!s.files.isEmpty(), id + QStringLiteral(": no files"));
            need(validRange(s.cudaMin, s.cudaMax), id + QStringLiteral(": bad range"));
            for (const QString &f : s.files) {
                need(s.os == u"windows" ? f.endsWith(u".dll") : f.startsWith(u"lib") && f.contains(u".so"),
                     id + QStringLiteral(": file name does not fit the OS: ") + f);
            }
        }
    }
    QSet<QString> routeNamesSeen;
    for (const Route &r : m_routes) {
        const QString id = QStringLiteral("route ") + r.name;
        need(!routeNamesSeen.contains(r.name), id + QStringLiteral(": duplicate"));
        routeNamesSeen.insert(r.name);
        need(!r.source.isEmpty(), id + QStringLiteral(": no source"));
        need(!r.os.isEmpty() && !r.arch.isEmpty(), id + QStringLiteral(": no os or arch"));
        need(r.releases == u"linux" || r.releases == u"windows", id + QStringLiteral(": unknown release table"));
        need(validRange(r.tfMin, r.tfMax), id + QStringLiteral(": bad range"));
        need(r.accelerator != u"nvidia" || (!r.driverOs.isEmpty() && r.cudaLibraries != u"none"),
             id + QStringLiteral(": an NVIDIA route needs driver_os and cuda_libraries"));
        for (const QString &v : r.versions) {
            need(release(r.releases, v).has_value(),
                 id + QStringLiteral(": TF %1 is not in the %2 table").arg(v, r.releases));
        }
        need(r.wsl == u"never" || r.wsl == u"required" || r.wsl == u"any" || r.wsl == u"windows_or_wsl2",
             id + QStringLiteral(": unknown wsl value ") + r.wsl);
        need(validRange(r.pythonMin, r.pythonMax), id + QStringLiteral(": bad python range"));
        for (const QString &name : r.plugins)
            need(plugin(name).has_value(), id + QStringLiteral(": plugin %1 has no record").arg(name));
        for (const RoutePlatform &p : r.platforms) {
            need(!p.source.isEmpty() && validRange(p.tfMin, p.tfMax),
                 id + QStringLiteral(": platform %1/%2").arg(p.os, p.arch));
            need(r.os.contains(p.os) && r.arch.contains(p.arch),
                 id + QStringLiteral(": platform %1/%2 outside the route's os and arch").arg(p.os, p.arch));
            for (const RoutePlatform &q : r.platforms) {
                if (&q == &p || q.os != p.os || q.arch != p.arch)
                    continue;
                // Open ends count as unbounded; two ranges overlap unless one ends before the other starts.
                const bool apart = (!p.tfMax.isEmpty() && !q.tfMin.isEmpty() && version::less(p.tfMax, q.tfMin))
                    || (!q.tfMax.isEmpty() && !p.tfMin.isEmpty() && version::less(q.tfMax, p.tfMin));
                need(apart, id + QStringLiteral(": platform records for %1/%2 overlap").arg(p.os, p.arch));
            }
        }
        if (!r.tfMax.isEmpty() && r.accelerator == u"nvidia") {
            // A route that ends at tfMax must not list a newer tested release.
            for (const TfRelease &rel : releasesFor(r.releases)) {
                need(!version::less(r.tfMax, rel.minor()),
                     id + QStringLiteral(": TF %1 is newer than the route's last release").arg(rel.version));
            }
        }
    }
    return out;
}

} // namespace tfsetup::core
