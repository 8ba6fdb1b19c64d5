// TensorFlow logs and tracebacks students paste into the doctor: any text, any length, any
// encoding. Every finding names its cause and the lines it rests on.

#include "doctor/tflogreader.h"
#include "fuzzsupport.h"

using namespace tfsetup::core;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const auto reader = TfLogReader::load();
    TFSETUP_FUZZ_CHECK(reader.ok());
    const QString text = QString::fromUtf8(tfsetup::fuzz::bytes(data, size));
    for (const bool cpuOnly : {false, true}) {
        TfLogContext context;
        context.cpuOnly = cpuOnly;
        const QList<DoctorFinding> findings = reader->read(text, context);
        for (const DoctorFinding &finding : findings) {
            TFSETUP_FUZZ_CHECK(!finding.id.isEmpty());
            TFSETUP_FUZZ_CHECK(!finding.cause.isEmpty());
            (void)finding.toJson();
        }
    }
    // The rules file itself, as a lab override would give it.
    tfsetup::fuzz::checkResult(TfLogReader::fromJson(tfsetup::fuzz::bytes(data, size)));
    return 0;
}
