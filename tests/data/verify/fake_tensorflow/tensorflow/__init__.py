# A stand-in for the tensorflow package, just enough of its API for resources/verify/verify_tf.py.
# FAKE_TF_MODE picks the behaviour: ok, no_gpu, cpu_build, cudnn_fail, oom, import_error.
import os

_mode = os.environ.get("FAKE_TF_MODE", "ok")
if _mode == "import_error":
    raise ImportError("libcublas.so.11: cannot open shared object file: No such file or directory")

__version__ = "2.99.0"
_GPU = "/job:localhost/replica:0/task:0/device:GPU:0"
_CPU = "/job:localhost/replica:0/task:0/device:CPU:0"
_placement = [_CPU]


class _PhysicalDevice:
    def __init__(self, name):
        self.name = name
        self.device_type = "GPU"


class _Tensor:
    def __init__(self, value):
        self._value = value
        self.device = _placement[-1]

    def numpy(self):
        return self._value


class sysconfig:
    @staticmethod
    def get_build_info():
        return {"cuda_version": "12.3", "cudnn_version": "8", "is_cuda_build": _mode != "cpu_build",
                "cuda_compute_capabilities": ["sm_50", "compute_90"]}


class _Experimental:
    @staticmethod
    def get_device_details(device):
        return {"device_name": "Fake GeForce", "compute_capability": (8, 6)}

    @staticmethod
    def set_memory_growth(device, enable):
        pass


class config:
    experimental = _Experimental

    @staticmethod
    def list_physical_devices(kind):
        if _mode in ("no_gpu", "cpu_build"):
            # Written to the file descriptor, as TensorFlow's C++ logging does.
            os.write(2, b"W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic "
                        b"library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared object file: No such "
                        b"file or directory\n")
            return []
        return [_PhysicalDevice("/physical_device:GPU:0")]

    @staticmethod
    def set_soft_device_placement(enabled):
        pass


class device:
    def __init__(self, name):
        self._name = name

    def __enter__(self):
        _placement.append(_GPU if "GPU" in self._name.upper() else _CPU)

    def __exit__(self, *exc):
        _placement.pop()


def ones(shape):
    return shape


class nn:
    @staticmethod
    def conv2d(images, kernel, strides, padding):
        if _mode == "cudnn_fail":
            raise RuntimeError("{{function_node __wrapped__Conv2D_device_/job:localhost/replica:0/task:0/device:GPU:0}} "
                               "DNN library is not found. [Op:Conv2D]")
        batch, height, width, channels = images
        return _Tensor([[[[27.0] * kernel[3]] * width] * height] * batch)


class linalg:
    @staticmethod
    def matmul(a, b):
        if _mode == "oom":
            raise RuntimeError("OOM when allocating tensor with shape[1024,1024] and type float on "
                               "/job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc [Op:MatMul]")
        return _Tensor([[float(a[0])]])
