// Hardware-profile JSON (`detect --json` written on another machine, `plan --hardware FILE`, lab
// scripts). Reading is lenient; whatever was read must write back to a document that reads back
// to the same report, or two runs of the solver on "the same" machine could disagree.

#include "detect/hardwarereport.h"
#include "fuzzsupport.h"

#include <QJsonDocument>

using namespace tfsetup::core;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QJsonDocument document = QJsonDocument::fromJson(tfsetup::fuzz::bytes(data, size));
    if (!document.isObject())
        return 0;
    const HardwareReport report = HardwareReport::fromJson(document.object());
    const QJsonObject written = report.toJson();
    const HardwareReport again = HardwareReport::fromJson(written);
    TFSETUP_FUZZ_CHECK(again.toJson() == written);
    TFSETUP_FUZZ_CHECK(report.nvidiaGpus().size() <= report.gpus.size());
    // The checked reading (plan --hardware): what it accepts is within its sizes, and what it
    // accepted, written again, is accepted again.
    const auto checked = HardwareReport::parse(document.object(), QStringLiteral("fuzz"));
    if (checked.ok()) {
        TFSETUP_FUZZ_CHECK(checked->gpus.size() <= HardwareReport::maxGpus);
        TFSETUP_FUZZ_CHECK(HardwareReport::parse(checked->toJson(), QStringLiteral("fuzz")).ok());
    } else {
        TFSETUP_FUZZ_CHECK(!checked.error().message.isEmpty());
        // Refused by the shape check, whose problem names the field ("gpus[2].memory_mib").
        const auto problem = HardwareReport::shape().check(document.object());
        TFSETUP_FUZZ_CHECK(problem.has_value());
        TFSETUP_FUZZ_CHECK(checked.error().code == u"hardware_malformed");
        if (!problem->field.isEmpty())
            TFSETUP_FUZZ_CHECK(checked.error().message.contains(u'"' + problem->field + u'"'));
    }
    return 0;
}
