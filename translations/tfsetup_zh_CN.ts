<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>CacheText</name>
    <message>
        <source>The cached copy %1 does not match its checksum and was set aside as %2. It will be downloaded again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot create the folder %1. Choose a folder you may write to.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot write %1. Check that the disk has room and that you may write there.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot write %1.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Catalog</name>
    <message>
        <source>The knowledge catalog file %1 is damaged. Reinstall tfsetup, or remove the catalog override you gave.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The knowledge catalog file %1 was written for another version of tfsetup. Update tfsetup.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The knowledge catalog file %1 cannot be read. Reinstall tfsetup, or check the catalog folder you gave.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Checksum</name>
    <message>
        <source>&quot;%1&quot; is not a valid %2 checksum (%3 hexadecimal digits expected). Copy it again from the official source.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot read %1 to check it. Check that the file exists and that you may read it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancelled.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reading %1 failed.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Cli</name>
    <message>
        <source>Report this machine&apos;s GPUs, driver, CPU, Pythons, CUDA and cuDNN</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose a working TensorFlow / CUDA / cuDNN / Python combination</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Download a file and verify its official checksum (resumable, mirrors, cache)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Usage: tfsetup [COMMAND] [OPTIONS]
Without a command, tfsetup opens the setup wizard.

Commands:
</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>
Options:
  -h, --help     Show this help
  -v, --version  Show the version

Run &quot;tfsetup COMMAND --help&quot; for the options of one command.
</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tfsetup: unknown command &quot;%1&quot;.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scan the folder DIR as if it were the file-system root (a Windows drive C: is DIR/C).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Take environment variables from FILE (KEY=VALUE lines) instead of this process.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The system the --root folder imitates: windows or linux.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--env-file and --os describe a --root folder; give --root DIR as well.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unknown --os &quot;%1&quot;: use windows or linux.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>error: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>details: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The log of this run is %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Print the report as one JSON document.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Skip the search for Python interpreters.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Report this machine&apos;s GPUs, driver, CPU, Pythons, CUDA toolkits and cuDNN copies.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Where to fetch from; further URLs are mirrors tried in order.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The official SHA-256 checksum the file must have.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>An MD5 checksum, only where the official source publishes nothing stronger.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The expected size in bytes.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Where to save the verified file.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fetch over N parallel connections.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use this proxy (http://, https:// or socks5h://).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Also trust the certificates in this PEM file (lab or company proxies).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keep verified files in this folder and reuse them.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Do not use the download cache.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Print the result as JSON.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Download a file and verify its checksum. Exits 0 only when the file at --out is verified.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not an http:// or https:// address.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Give at least one URL, --out FILE, and exactly one of --sha256 or --md5.
</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--size needs a number of bytes.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--segments needs a number from 1 to 16.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 s left</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Verified %1 (%2, %3)
</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>from the cache</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Note: only an MD5 checksum was available for this file; MD5 is weaker than SHA-256.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Plan for the machine described in FILE (the output of tfsetup detect --json) instead of this one.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Only consider TensorFlow VERSION (&quot;2.13&quot; or &quot;2.13.0&quot;).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use Python VERSION (&quot;3.10&quot;).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Only consider ROUTE: windows-native, linux-pip, linux-toolkit, wsl2, cpu, rocm, directml or metal.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Plan without a GPU.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The NVIDIA driver cannot be changed here: reject combinations it is too old for.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Print the plan as one JSON document.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose a TensorFlow / CUDA / cuDNN / Python combination that works on this machine, and say why the others do not.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unknown --route &quot;%1&quot;: use one of %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot read the hardware file %1. Check the path.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The hardware file %1 is not a JSON object like the output of tfsetup detect --json.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>CudaDriver</name>
    <message>
        <source>The NVIDIA driver&apos;s CUDA library is too old or damaged. Update or reinstall the NVIDIA driver.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CUDA cannot start on this computer. Make sure an NVIDIA GPU is present and enabled, and install or update its driver.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CUDA could not list the GPUs. Restart the computer; if that does not help, reinstall the NVIDIA driver.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>GpuTable</name>
    <message>
        <source>Cannot read the GPU table %1. Reinstall tfsetup or point it at a readable catalog.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The GPU table %1 is not valid JSON. Reinstall tfsetup or fix the catalog file.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The GPU table %1 has a format this version of tfsetup does not know. Use the catalog that came with it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A record of the GPU table %1 lacks a name or a source. Fix the catalog file.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>NvidiaSmi</name>
    <message>
        <source>nvidia-smi cannot reach the NVIDIA driver. Install the NVIDIA driver for your GPU (or repair it) and restart the computer.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This NVIDIA driver&apos;s nvidia-smi does not know one of the queried fields. Updating the driver helps.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>nvidia-smi printed something tfsetup cannot read. Run nvidia-smi yourself to see whether the driver works.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>nvidia-smi lists no NVIDIA GPU. Check that the GPU is seated and enabled, and that the driver is installed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>nvidia-smi printed no driver version. Run nvidia-smi yourself to see whether the driver works.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Nvml</name>
    <message>
        <source>The NVIDIA management library is too old or damaged. Update or reinstall the NVIDIA driver.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The NVIDIA driver did not answer. Install or reinstall the NVIDIA driver and restart the computer.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The NVIDIA driver could not list the GPUs. Restart the computer; if that does not help, reinstall the NVIDIA driver.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>PlanText</name>
    <message>
        <source>%1 on %2 with Python %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, CUDA %1, cuDNN %2, driver %3 or newer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Recommended: %1
</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Why: %1
</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No TensorFlow combination fits this machine.
</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>
First:
</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>
Warnings:
</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>
Alternatives:
</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>  (%n more; use --json to see all)
</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>
Not possible here:
</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>  - %1: %2
</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>  - TensorFlow %1 on %2: %3
</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ReportSummary</name>
    <message>
        <source>%1 under WSL2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 under WSL1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>System: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>System: %1, %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No NVIDIA GPU was found. TensorFlow can still run on the CPU.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Your GPU: %1 (compute capability unknown)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Your GPU: %1, compute capability %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, %1 GiB of memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Other graphics: %1 (%2); TensorFlow&apos;s CUDA build cannot use it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>NVIDIA driver %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>NVIDIA driver %1 supports CUDA up to %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No working NVIDIA driver was found. Install the driver for your GPU from NVIDIA first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown processor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Processor: %1 (whether it has the AVX instructions TensorFlow needs could not be checked)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Processor: %1, with the AVX instructions TensorFlow needs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Processor: %1. It lacks AVX, which official TensorFlow builds since 1.6 need.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No Python was found; tfsetup can install one.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Python found: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No CUDA toolkit is installed (tfsetup can bring the parts TensorFlow needs).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CUDA toolkit %1 in %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cuDNN %1 in %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The Microsoft Visual C++ runtime is missing (%1).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tfsetup could not ask the NVIDIA driver library (NVML) about your GPU.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tfsetup could not ask the CUDA driver about your GPU.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The nvidia-smi tool that comes with the NVIDIA driver did not answer.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tfsetup could not read the list of devices plugged into the computer.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tfsetup could not check every Python installation.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The check &quot;%1&quot; did not work.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What could not be checked:</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Solver</name>
    <message>
        <source>an unnamed GPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The compute capability of the %1 is unknown, so tfsetup cannot check it against TensorFlow %2; run tfsetup detect on the machine itself.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The catalog does not say which GPUs TensorFlow %1 supports.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TensorFlow %1 (CUDA %2) runs on compute capability %3 and newer; the %4 has %5.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TensorFlow %1 is built with CUDA %2, which targets compute capability up to %3; the %4 (%5) needs CUDA %6 or newer.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TensorFlow %1 is built with CUDA %2, which targets compute capability up to %3; the %4 (%5) is newer than any CUDA the catalog knows.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TensorFlow %1 has GPU code for compute capability %2 only; none of it runs on the %3 (%4).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TensorFlow %1 has no machine code for the %2 (compute capability %3): the driver compiles its PTX for %4 when TensorFlow starts, which takes minutes the first time.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TensorFlow %1 is built with CUDA %2, which predates the %3 (compute capability %4; CUDA %2 targets up to %5): code compiled while TensorFlow runs goes through the driver&apos;s PTX JIT, so the first start is slow and some operations are reported to fail.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tfsetup could not confirm %1 from a primary source; the plan assumes it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The %1 route runs on %2; this machine runs %3.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>WSL1 has no GPU access. Convert this distribution to WSL2 (wsl --set-version &lt;distribution&gt; 2).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This is WSL2, where the GPU driver is the Windows one: use the wsl2 route.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The wsl2 route is for Windows machines and for WSL2 itself; this is plain Linux.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPU support in WSL2 needs Windows 10 build %1 or newer; this Windows is build %2. Update Windows.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>There is no official TensorFlow package for %1 on %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The %1 route needs a %2 processor; this machine is %3.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No NVIDIA GPU was found; the %1 route needs one.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The %1 route needs an NVIDIA GPU; this machine has %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The %1 route needs an AMD GPU; none was found.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The %1 route needs a Mac with Apple silicon.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The %1 route needs a DirectX 12 GPU; none was found.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Official TensorFlow packages use AVX instructions since TensorFlow %1; this processor (%2) has no AVX.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>name unknown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TensorFlow %1 has no GPU support on native Windows: the last release with it is %2. Use WSL2 for newer releases, or TensorFlow %2 here.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>every detail of the %1 route</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>that TensorFlow %1 is published for %2 on %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the package name %1 for TensorFlow %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TensorFlow %1 supports Python %2; you asked for Python %3.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TensorFlow %1 on the %2 route needs Python %3 or newer, which it does not support (%4).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Install Python %1 (TensorFlow %2 supports Python %3).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Install Python %1: TensorFlow %2 supports Python %3, and this machine has %4.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>which GPU architectures TensorFlow %1&apos;s packages contain</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (compute capability %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TensorFlow will not use the %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TensorFlow %1 needs CUDA %2, and PTX JIT needs the driver CUDA %2 shipped with, %3 or newer on %4; yours is %5.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TensorFlow %1 needs CUDA %2, which needs driver %3 or newer on %4; yours is %5.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TensorFlow %1 needs CUDA %2; your driver supports CUDA up to %3. It needs driver %4 or newer on %5.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Install the NVIDIA driver, %1 or newer (TensorFlow %2 needs CUDA %3).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Update the NVIDIA driver to %1 or newer.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Install CUDA %1 (TensorFlow %2 opens %3).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Install cuDNN %1 (TensorFlow %2 opens %3).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Install the Microsoft Visual C++ Redistributable for Visual Studio 2015-2022 (x64); TensorFlow needs msvcp140.dll.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Install WSL2 with a Linux distribution (wsl --install) and run tfsetup inside it: TensorFlow %1 uses the GPU there, while native Windows GPU support ended with TensorFlow %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Install AMD ROCm for your GPU first; AMD lists which Radeon and Instinct GPUs each ROCm release supports.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Prepare the %1 route (%2).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The %1 route is offered as an experiment: tfsetup cannot confirm that it supports your GPU.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TensorFlow %1&apos;s tested configuration runs natively on your %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TensorFlow %1 uses your GPU through the %2 route.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TensorFlow %1 runs on your %2 inside WSL2; native Windows GPU support ended with TensorFlow %3.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TensorFlow %1 can use your %2 only through PTX JIT: slow first start.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TensorFlow %1 runs on the CPU.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No GPU route fits this machine, so TensorFlow %1 runs on the CPU.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TensorFlow %1 on the experimental %2 route.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CUDA %1 and cuDNN %2 come as pip packages, so only the NVIDIA driver (%3 or newer) must be installed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>It needs CUDA %1, cuDNN %2 and driver %3 or newer.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>It uses the installed Python %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>It needs Python %1, which tfsetup installs.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>TensorFlow %1 is newer and listed as an alternative, but the catalog could not confirm all of its facts.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The hardware report does not name the operating system; the plan assumes Linux. Give --os to choose.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The catalog has no TensorFlow release %1 for this machine&apos;s routes.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No TensorFlow release in the catalog can use your %1 here; the rejected combinations say why.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Official TensorFlow packages need a processor with AVX. Use a newer computer or a hosted notebook service.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>SystemView</name>
    <message>
        <source>Cannot read the environment file %1. Check the path and that it is readable.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Line %1 of the environment file %2 is not KEY=VALUE. Fix or remove that line.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The folder %1 given as the system root does not exist. Give an existing folder.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>VersionParsers</name>
    <message>
        <source>Could not read the version from %1. The file may be damaged or from an unsupported release; reinstall that component if the setup needs it.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>tfsetup::core::Downloader</name>
    <message>
        <source>The download of %1 is missing its address, its checksum or its destination.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The download was cancelled.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The download of %1 was stopped. What arrived is kept; starting it again resumes it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The disk is full while saving %1. Free some space (it needs %2 MB) or choose another folder, then try again; the download resumes.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>You may not write to the folder of %1. Choose a folder in your own user folder.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saving %1 failed. Check the disk and the folder&apos;s permissions.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 does not match its official %2 checksum, so it was not used. The bad file was set aside as %3. Try again later or another mirror; if it keeps happening, something between you and the server changes the file.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is not on the server (404 Not Found). The mirror may be incomplete; try another mirror.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The server&apos;s name could not be resolved while fetching %1. Check the internet connection or the proxy setting.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not connect to the server for %1. Check the internet connection, the proxy, or try a mirror.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The server&apos;s certificate for %1 could not be verified, so nothing was downloaded. A lab or company proxy may need its certificate added (CA bundle setting).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The server tried to send %1 over an unencrypted connection; that was refused.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The connection kept stalling or dropping while fetching %1. What arrived is kept; try again to resume.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The server sent a web page instead of %1 (often a login or error page). Try another mirror.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The server&apos;s %1 has a different size than the official one. Try another mirror.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 could not be downloaded from any mirror.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::DetectPage</name>
    <message>
        <source>Your computer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tfsetup looks at your graphics card, its driver, the processor and what is already installed. Nothing is changed on your computer.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Looking at your computer… This takes a few seconds.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scan a&amp;gain</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scan again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Copy report</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy report</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copies what was found, as text and as JSON, for example to ask for help.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hide &amp;details</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show &amp;details</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show details</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Field</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Value</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Found by</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Full report</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Some checks did not work. That is often harmless when another check found the same thing; &quot;Show details&quot; tells why.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The log file has everything tfsetup tried: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none found</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n found</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>unknown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>yes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::SetupWizard</name>
    <message>
        <source>TensorFlow GPU setup</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt; &amp;Back</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Next &gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Install</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Finish</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::WelcomePage</name>
    <message>
        <source>Welcome</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This wizard sets up TensorFlow with GPU support on this computer. It checks your hardware, picks versions that work together, downloads them from the official sites and tests the result.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Set up a new TensorFlow environment</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose this if you have not installed TensorFlow with tfsetup yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Repair an existing environment</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose this if TensorFlow is installed but does not find the GPU or fails to start.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use a lab &amp;profile</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose this if your course or lab gave you a profile file that fixes the versions to install.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Language:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Language</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
