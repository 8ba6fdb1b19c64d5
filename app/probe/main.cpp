// tfsetup-probe: loads the libraries TensorFlow would load and prints what happened as JSON.
// Usage: tfsetup-probe [--library GROUP:NAME]... [--sublibrary PARENT>NAME]... [--own-dir DIR]...
//                      [--cuda VERSION] [--cudnn VERSION] [--compute]
// --compute: after loading, compute on the GPU with the loaded driver, cuBLAS and cuDNN.
// Exit 0: nothing wrong; 1: something is (see "findings"); 2: bad arguments.

#include "catalog/knowledge.h"
#include "system/realsystem.h"
#include "verify/libraryprobe.h"

#include <QCoreApplication>

#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QStringList arguments = QCoreApplication::arguments();
    arguments.removeFirst();

    const auto knowledge = tfsetup::core::Knowledge::shared();
    if (!knowledge) {
        const QByteArray text = knowledge.error().message.toUtf8() + '\n';
        fwrite(text.constData(), 1, size_t(text.size()), stderr);
        return 2;
    }
    tfsetup::core::RealSystem system;
    const tfsetup::core::ProbeOutcome outcome = tfsetup::core::runProbeHelper(system, **knowledge, arguments);
    if (!outcome.usageError.isEmpty()) {
        const QByteArray text = outcome.usageError.toUtf8() + '\n';
        fwrite(text.constData(), 1, size_t(text.size()), stderr);
    }
    fwrite(outcome.json.constData(), 1, size_t(outcome.json.size()), stdout);
    fflush(stdout);
    // A compute step hung inside the driver: unloading libraries under that thread could crash
    // after the report is written, so leave without destructors.
    if (outcome.exitWithoutCleanup)
        std::_Exit(outcome.exitCode);
    return outcome.exitCode;
}
