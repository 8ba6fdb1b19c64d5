// Documents tfsetup reads back from disk or from its own helpers, which a crash, a full disk or a
// curious student may have damaged: environment.json, install artifacts, the probe helper's
// report, the smoke test's output, and mirror settings typed by a user. Each reads to a value or
// an Error; what reads must write back and read again to the same thing.

#include "catalog/sourcecatalog.h"
#include "fuzzsupport.h"
#include "install/environmentrecord.h"
#include "install/installspec.h"
#include "sources/artifact.h"
#include "sources/mirrors.h"
#include "verify/libraryprobe.h"
#include "verify/smoketest.h"

#include "util/names.h"

#include <QJsonDocument>

using namespace tfsetup::core;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const auto [selector, input] = tfsetup::fuzz::select(data, size, 6);
    const QJsonObject object = QJsonDocument::fromJson(input).object();
    switch (selector) {
    case 0: {
        const auto record = EnvironmentRecord::fromJson(object);
        tfsetup::fuzz::checkResult(record);
        if (record.ok()) {
            const QJsonObject written = record->toJson();
            const auto again = EnvironmentRecord::fromJson(written);
            TFSETUP_FUZZ_CHECK(again.ok());
            TFSETUP_FUZZ_CHECK(again->toJson() == written);
            (void)record->summary();
            // An accepted record names only paths inside the environment (util/names.h).
            for (const RecordedFile &f : record->files)
                TFSETUP_FUZZ_CHECK(isSafeRelativeName(f.path));
            for (const QString &l : record->launchers)
                TFSETUP_FUZZ_CHECK(isSafeRelativeName(l));
            // A kernel folder is Jupyter's kernels/<name>, with no ".." on the way.
            if (!record->kernelFolder.isEmpty()) {
                const QStringList parts = QString(record->kernelFolder).replace(u'\\', u'/').split(u'/');
                TFSETUP_FUZZ_CHECK(!parts.contains(QStringLiteral("..")));
                TFSETUP_FUZZ_CHECK(parts.size() >= 3 && parts.at(parts.size() - 2) == u"kernels");
                TFSETUP_FUZZ_CHECK(isSafePathName(parts.constLast()));
            }
        } else if (const auto problem = EnvironmentRecord::shape().check(object);
                   problem && !problem->field.isEmpty()) {
            // Refused by the shape check: the message names the field ("files[3].sha256").
            TFSETUP_FUZZ_CHECK(record.error().code == u"record_malformed" || record.error().code == u"record_schema");
            if (record.error().code == u"record_malformed")
                TFSETUP_FUZZ_CHECK(record.error().message.contains(u'"' + problem->field + u'"'));
        }
        break;
    }
    case 1: {
        const InstallArtifact artifact = InstallArtifact::fromJson(object);
        const QJsonObject written = artifact.toJson();
        TFSETUP_FUZZ_CHECK(InstallArtifact::fromJson(written).toJson() == written);
        (void)artifact.isArchive();
        break;
    }
    case 2: {
        const Artifact artifact = Artifact::fromJson(object);
        (void)artifact.toJson();
        break;
    }
    case 3: {
        const auto report = ProbeReport::fromJson(object);
        tfsetup::fuzz::checkResult(report);
        if (report.ok()) {
            (void)report->hasErrors();
            (void)report->toJson();
        }
        break;
    }
    case 4: {
        ProcessResult process;
        process.started = true;
        process.exitCode = input.isEmpty() ? 0 : int(input.at(0)) % 3;
        process.standardOutput = input;
        for (const bool expectGpu : {true, false}) {
            const SmokeResult result = SmokeResult::parse(process, expectGpu);
            TFSETUP_FUZZ_CHECK(!result.layers.isEmpty() || !result.produced);
            (void)result.firstFailure();
        }
        break;
    }
    case 5: {
        static const auto catalog = SourceCatalog::load();
        TFSETUP_FUZZ_CHECK(catalog.ok());
        const auto mirror = MirrorSet::parse(QString::fromUtf8(input), &*catalog);
        tfsetup::fuzz::checkResult(mirror);
        if (mirror.ok()) {
            TFSETUP_FUZZ_CHECK(!mirror->origin.isEmpty());
            (void)mirror->urlFor(QStringLiteral("compute/cuda/redist/redistrib_12.5.1.json"));
        }
        break;
    }
    }
    return 0;
}
