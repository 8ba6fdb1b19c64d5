// nvidia-smi output: the CSV of --query-gpu (with and without compute_cap, as the scanner asks)
// and the banner of plain nvidia-smi. Whatever a driver, a wrapper script or a broken install
// prints must end in GPUs with well-formed fields or an Error.

#include "detect/nvidiasmi.h"
#include "fuzzsupport.h"

using namespace tfsetup::core;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray input = tfsetup::fuzz::bytes(data, size);
    for (const bool withComputeCapability : {true, false}) {
        const auto gpus = nvidiasmi::parseQueryCsv(input, nvidiasmi::queryFields(withComputeCapability));
        tfsetup::fuzz::checkResult(gpus);
        if (gpus.ok()) {
            for (const nvidiasmi::SmiGpu &gpu : *gpus) {
                TFSETUP_FUZZ_CHECK(gpu.memoryMiB >= -1);
                TFSETUP_FUZZ_CHECK(gpu.pciId.isEmpty() || tfsetup::fuzz::matches(gpu.pciId, "[0-9a-f]{4}:[0-9a-f]{4}"));
                TFSETUP_FUZZ_CHECK(withComputeCapability || gpu.computeCapability.isEmpty());
            }
        }
    }
    const auto header = nvidiasmi::parseHeader(input);
    tfsetup::fuzz::checkResult(header);
    if (header.ok())
        TFSETUP_FUZZ_CHECK(!header->driverVersion.isEmpty());
    (void)nvidiasmi::isUnknownFieldError(input);
    const QString deviceId = QString::fromUtf8(input);
    const QString pciId = nvidiasmi::pciIdFromDeviceId(deviceId);
    TFSETUP_FUZZ_CHECK(pciId.isEmpty() || tfsetup::fuzz::matches(pciId, "[0-9a-f]{4}:[0-9a-f]{4}"));
    return 0;
}
