// TensorFlow logs and tracebacks students paste into the doctor: any text, any length, any
// encoding. Every finding names its cause and the lines it rests on, and shows no character that
// could act on a terminal; the log's bytes are decoded or refused with a message; the text shown
// and the secrets masked are so for good (applying either again changes nothing).

#include "doctor/tflogreader.h"
#include "fuzzsupport.h"
#include "util/text.h"

#include <algorithm>

using namespace tfsetup::core;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const auto causes = CauseRegistry::load();
    TFSETUP_FUZZ_CHECK(causes.ok());
    static const auto rules = TfLogRules::load(QStringLiteral(":/resources/catalog/tflog.json"), *causes);
    TFSETUP_FUZZ_CHECK(rules.ok());
    static const TfLogReader reader(*rules, *causes);
    const QByteArray bytes = tfsetup::fuzz::bytes(data, size);
    const QString text = QString::fromUtf8(bytes);
    const auto visible = [](const QString &s) {
        return std::none_of(s.begin(), s.end(), [](QChar c) { return needsVisibleEscape(c.unicode()); });
    };
    for (const bool cpuOnly : {false, true}) {
        TfLogContext context;
        context.cpuOnly = cpuOnly;
        const QList<DoctorFinding> findings = reader.read(text, context);
        for (const DoctorFinding &finding : findings) {
            TFSETUP_FUZZ_CHECK(!finding.id.isEmpty());
            TFSETUP_FUZZ_CHECK(!finding.cause.isEmpty());
            for (const QString &line : finding.evidence)
                TFSETUP_FUZZ_CHECK(visible(line));
            (void)finding.toJson();
        }
    }
    const auto decoded = decodeTextInput(bytes, QStringLiteral("The log"));
    tfsetup::fuzz::checkResult(decoded);
    const QString shown = visibleText(text);
    TFSETUP_FUZZ_CHECK(visible(shown));
    TFSETUP_FUZZ_CHECK(visibleText(shown) == shown);
    const QString masked = redactSecrets(text);
    TFSETUP_FUZZ_CHECK(redactSecrets(masked) == masked);
    // The rules file itself, as a lab override would give it.
    tfsetup::fuzz::checkResult(TfLogRules::fromJson(tfsetup::fuzz::bytes(data, size), *causes));
    return 0;
}
