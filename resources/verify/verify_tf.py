# GPU smoke test for a TensorFlow environment, run by tfsetup through the environment's Python
# launcher. Prints exactly one JSON document (the last line of stdout), even when TensorFlow
# cannot be imported or crashes half-way: every step is caught and recorded.
#
#   python verify_tf.py [--device /GPU:0] [--size N]
#
# The C++ side (verify/smoketest.cpp) turns the document into layers:
# import -> devices -> cuDNN -> compute. Keep the field names in step with it; fields are only
# ever added ("device_descriptions"), so older readers keep working.

import json
import os
import sys
import tempfile
import time
import traceback

SCHEMA = 1
LOG_LINES = 200


def error_of(exc):
    return {
        "type": type(exc).__name__,
        "message": str(exc)[:4000],
        "traceback": "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[-8000:],
    }


def plain(value):
    """Build info and device details hold numbers, strings and lists; anything else as text."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return str(value)


class NativeStderr:
    """Captures file descriptor 2, where TensorFlow's C++ logging goes ("Could not load dynamic
    library ..."), and gives it back afterwards, also echoing it so the user still sees it."""

    def __init__(self):
        self.lines = []
        self.file = None
        self.saved = None

    def __enter__(self):
        try:
            sys.stderr.flush()
            self.file = tempfile.TemporaryFile()
            self.saved = os.dup(2)
            os.dup2(self.file.fileno(), 2)
        except Exception:
            self.file = None
        return self

    def __exit__(self, *exc):
        if self.file is None:
            return False
        try:
            sys.stderr.flush()
            os.dup2(self.saved, 2)
            os.close(self.saved)
            self.file.seek(0)
            text = self.file.read().decode("utf-8", "replace")
            self.file.close()
            sys.stderr.write(text)
            sys.stderr.flush()
            self.lines = text.splitlines()[-LOG_LINES:]
        except Exception:
            pass
        return False


def timed(function):
    start = time.perf_counter()
    value = function()
    return value, time.perf_counter() - start


def run(report, device, size):
    report["import"] = {"ok": False}
    try:
        tf, seconds = timed(lambda: __import__("tensorflow"))
        report["import"] = {"ok": True, "seconds": round(seconds, 3), "version": getattr(tf, "__version__", "")}
    except BaseException as exc:  # ImportError, OSError from a DLL, SystemExit from a broken package
        report["import"]["error"] = error_of(exc)
        return

    try:
        report["build_info"] = plain(dict(tf.sysconfig.get_build_info()))
    except BaseException as exc:
        report["build_info_error"] = error_of(exc)

    report["devices"] = {"ok": False, "gpus": []}
    try:
        gpus = tf.config.list_physical_devices("GPU")
        listed = []
        for gpu in gpus:
            entry = {"name": gpu.name}
            try:
                entry["details"] = plain(tf.config.experimental.get_device_details(gpu))
            except BaseException as exc:
                entry["details_error"] = str(exc)
            listed.append(entry)
        report["devices"] = {"ok": True, "gpus": listed}
    except BaseException as exc:
        report["devices"]["error"] = error_of(exc)
        return

    # Memory growth must be set before the GPU is first used, so it comes right after listing.
    report["memory_growth"] = {"ok": True}
    try:
        for gpu in gpus:
            tf.config.experimental.set_memory_growth(gpu, True)
    except BaseException as exc:
        report["memory_growth"] = {"ok": False, "error": error_of(exc)}

    if device.upper().startswith("/GPU") and not gpus:
        return
    # Without this TensorFlow quietly runs an op placed on a missing GPU on the CPU instead.
    try:
        tf.config.set_soft_device_placement(False)
    except BaseException:
        pass

    report["conv2d"] = {"ok": False}
    try:
        def conv():
            with tf.device(device):
                images = tf.ones((1, 32, 32, 3))
                kernel = tf.ones((3, 3, 3, 8))
                out = tf.nn.conv2d(images, kernel, strides=1, padding="SAME")
                # Every interior output sums 3 * 3 * 3 ones.
                return out, float(out.numpy()[0][16][16][0])
        (out, value), seconds = timed(conv)
        report["conv2d"] = {"ok": True, "seconds": round(seconds, 4), "device": str(out.device),
                            "correct": abs(value - 27.0) < 1e-3}
    except BaseException as exc:
        report["conv2d"]["error"] = error_of(exc)

    report["matmul"] = {"ok": False}
    try:
        def matmul():
            with tf.device(device):
                a = tf.ones((size, size))
                product = tf.linalg.matmul(a, a)
                return product, float(product.numpy()[0][0])
        (product, value), first = timed(matmul)
        (product, value), second = timed(matmul)
        report["matmul"] = {"ok": True, "seconds": round(second, 4), "first_seconds": round(first, 4),
                            "size": size, "device": str(product.device), "correct": abs(value - size) < 1e-3}
    except BaseException as exc:
        report["matmul"]["error"] = error_of(exc)

    # Older TensorFlow has no get_device_details(): the card's name is in the description of each
    # local device ("device: 0, name: NVIDIA GeForce RTX 3060, pci bus id: ..."). Asked last, as
    # listing local devices initializes them (memory growth must be set before that).
    if any("device_name" not in entry.get("details", {}) for entry in listed):
        try:
            from tensorflow.python.client import device_lib
            report["device_descriptions"] = [
                {"name": d.name, "description": d.physical_device_desc}
                for d in device_lib.list_local_devices() if d.device_type == "GPU"]
        except BaseException as exc:
            report["device_descriptions_error"] = str(exc)


def main(argv):
    device = "/GPU:0"
    size = 1024
    args = list(argv)
    while args:
        option = args.pop(0)
        if option == "--device" and args:
            device = args.pop(0)
        elif option == "--size" and args:
            size = int(args.pop(0))

    report = {
        "schema": SCHEMA,
        "tool": "tfsetup-verify",
        "device": device,
        "python": {"version": "%d.%d.%d" % sys.version_info[:3], "executable": sys.executable},
    }
    started = time.perf_counter()
    capture = NativeStderr()
    try:
        with capture:
            run(report, device, size)
    except BaseException as exc:
        report["unexpected"] = error_of(exc)
    report["log"] = capture.lines
    report["total_seconds"] = round(time.perf_counter() - started, 3)
    sys.stdout.write("\n" + json.dumps(report, sort_keys=True) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
