<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>CacheText</name>
    <message>
        <source>The cached copy %1 does not match its checksum and was set aside as %2. It will be downloaded again.</source>
        <translation>缓存中的副本 %1 与其校验和不符，已另存为 %2。它将被重新下载。</translation>
    </message>
    <message>
        <source>Cannot create the folder %1. Choose a folder you may write to.</source>
        <translation>无法创建文件夹 %1。请选择一个你有写入权限的文件夹。</translation>
    </message>
    <message>
        <source>Cannot write %1. Check that the disk has room and that you may write there.</source>
        <translation>无法写入 %1。请检查磁盘是否还有空间，以及你是否有权限写入该位置。</translation>
    </message>
    <message>
        <source>Cannot write %1.</source>
        <translation>无法写入 %1。</translation>
    </message>
</context>
<context>
    <name>Catalog</name>
    <message>
        <source>The knowledge catalog file %1 is damaged. Reinstall tfsetup, or remove the catalog override you gave.</source>
        <translation>知识目录文件 %1 已损坏。请重新安装 tfsetup，或去掉你指定的替代目录。</translation>
    </message>
    <message>
        <source>The knowledge catalog file %1 was written for another version of tfsetup. Update tfsetup.</source>
        <translation>知识目录文件 %1 是为另一个版本的 tfsetup 编写的。请更新 tfsetup。</translation>
    </message>
    <message>
        <source>The knowledge catalog file %1 cannot be read. Reinstall tfsetup, or check the catalog folder you gave.</source>
        <translation>无法读取知识目录文件 %1。请重新安装 tfsetup，或检查你指定的目录文件夹。</translation>
    </message>
</context>
<context>
    <name>Checksum</name>
    <message>
        <source>&quot;%1&quot; is not a valid %2 checksum (%3 hexadecimal digits expected). Copy it again from the official source.</source>
        <translation>“%1”不是有效的 %2 校验和（应为 %3 位十六进制数字）。请从官方来源重新复制。</translation>
    </message>
    <message>
        <source>Cannot read %1 to check it. Check that the file exists and that you may read it.</source>
        <translation>无法读取 %1 进行校验。请检查该文件是否存在，以及你是否有权限读取它。</translation>
    </message>
    <message>
        <source>Cancelled.</source>
        <translation>已取消。</translation>
    </message>
    <message>
        <source>Reading %1 failed.</source>
        <translation>读取 %1 失败。</translation>
    </message>
</context>
<context>
    <name>Cli</name>
    <message>
        <source>Report this machine&apos;s GPUs, driver, CPU, Pythons, CUDA and cuDNN</source>
        <translation>报告本机的 GPU、驱动程序、CPU、Python、CUDA 和 cuDNN</translation>
    </message>
    <message>
        <source>Choose a working TensorFlow / CUDA / cuDNN / Python combination</source>
        <translation>选择一套可用的 TensorFlow / CUDA / cuDNN / Python 组合</translation>
    </message>
    <message>
        <source>Download a file and verify its official checksum (resumable, mirrors, cache)</source>
        <translation>下载文件并核对其官方校验和（支持断点续传、镜像和缓存）</translation>
    </message>
    <message>
        <source>Usage: tfsetup [COMMAND] [OPTIONS]
Without a command, tfsetup opens the setup wizard.

Commands:
</source>
        <translation>用法：tfsetup [COMMAND] [OPTIONS]
不带命令运行时，tfsetup 会打开安装向导。

命令：
</translation>
    </message>
    <message>
        <source>
Options:
  -h, --help     Show this help
  -v, --version  Show the version

Run &quot;tfsetup COMMAND --help&quot; for the options of one command.
</source>
        <translation>
选项：
  -h, --help     显示此帮助
  -v, --version  显示版本

运行 &quot;tfsetup COMMAND --help&quot; 查看某个命令的选项。
</translation>
    </message>
    <message>
        <source>tfsetup: unknown command &quot;%1&quot;.</source>
        <translation>tfsetup：未知命令 &quot;%1&quot;。</translation>
    </message>
    <message>
        <source>Scan the folder DIR as if it were the file-system root (a Windows drive C: is DIR/C).</source>
        <translation>把文件夹 DIR 当作文件系统根目录来扫描（Windows 的 C: 盘对应 DIR/C）。</translation>
    </message>
    <message>
        <source>Take environment variables from FILE (KEY=VALUE lines) instead of this process.</source>
        <translation>从 FILE（每行一个 KEY=VALUE）读取环境变量，而不是使用当前进程的环境变量。</translation>
    </message>
    <message>
        <source>The system the --root folder imitates: windows or linux.</source>
        <translation>--root 文件夹所模拟的系统：windows 或 linux。</translation>
    </message>
    <message>
        <source>--env-file and --os describe a --root folder; give --root DIR as well.</source>
        <translation>--env-file 和 --os 用于描述 --root 文件夹，请同时提供 --root DIR。</translation>
    </message>
    <message>
        <source>Unknown --os &quot;%1&quot;: use windows or linux.</source>
        <translation>未知的 --os 值 &quot;%1&quot;：请使用 windows 或 linux。</translation>
    </message>
    <message>
        <source>error: %1</source>
        <translation>错误：%1</translation>
    </message>
    <message>
        <source>details: %1</source>
        <translation>详细信息：%1</translation>
    </message>
    <message>
        <source>The log of this run is %1</source>
        <translation>本次运行的日志：%1</translation>
    </message>
    <message>
        <source>Print the report as one JSON document.</source>
        <translation>以单个 JSON 文档输出报告。</translation>
    </message>
    <message>
        <source>Skip the search for Python interpreters.</source>
        <translation>跳过对 Python 解释器的搜索。</translation>
    </message>
    <message>
        <source>Report this machine&apos;s GPUs, driver, CPU, Pythons, CUDA toolkits and cuDNN copies.</source>
        <translation>报告本机的 GPU、驱动程序、CPU、Python、CUDA 工具包和 cuDNN 副本。</translation>
    </message>
    <message>
        <source>Where to fetch from; further URLs are mirrors tried in order.</source>
        <translation>下载地址；其余的 URL 作为镜像按顺序尝试。</translation>
    </message>
    <message>
        <source>The official SHA-256 checksum the file must have.</source>
        <translation>该文件应有的官方 SHA-256 校验和。</translation>
    </message>
    <message>
        <source>An MD5 checksum, only where the official source publishes nothing stronger.</source>
        <translation>MD5 校验和，仅在官方来源没有发布更强的校验和时使用。</translation>
    </message>
    <message>
        <source>The expected size in bytes.</source>
        <translation>预期的文件大小（字节）。</translation>
    </message>
    <message>
        <source>Where to save the verified file.</source>
        <translation>校验通过的文件的保存位置。</translation>
    </message>
    <message>
        <source>Fetch over N parallel connections.</source>
        <translation>使用 N 个并行连接下载。</translation>
    </message>
    <message>
        <source>Use this proxy (http://, https:// or socks5h://).</source>
        <translation>使用此代理（http://、https:// 或 socks5h://）。</translation>
    </message>
    <message>
        <source>Also trust the certificates in this PEM file (lab or company proxies).</source>
        <translation>同时信任此 PEM 文件中的证书（用于实验室或公司的代理）。</translation>
    </message>
    <message>
        <source>Keep verified files in this folder and reuse them.</source>
        <translation>将校验通过的文件保存在此文件夹中并重复使用。</translation>
    </message>
    <message>
        <source>Do not use the download cache.</source>
        <translation>不使用下载缓存。</translation>
    </message>
    <message>
        <source>Print the result as JSON.</source>
        <translation>以 JSON 格式输出结果。</translation>
    </message>
    <message>
        <source>Download a file and verify its checksum. Exits 0 only when the file at --out is verified.</source>
        <translation>下载文件并核对其校验和。只有当 --out 处的文件校验通过时，退出码才为 0。</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not an http:// or https:// address.</source>
        <translation>&quot;%1&quot; 不是 http:// 或 https:// 地址。</translation>
    </message>
    <message>
        <source>Give at least one URL, --out FILE, and exactly one of --sha256 or --md5.
</source>
        <translation>请提供至少一个 URL 和 --out FILE，并在 --sha256 与 --md5 中只选一个。
</translation>
    </message>
    <message>
        <source>--size needs a number of bytes.</source>
        <translation>--size 需要一个字节数。</translation>
    </message>
    <message>
        <source>--segments needs a number from 1 to 16.</source>
        <translation>--segments 需要 1 到 16 之间的数字。</translation>
    </message>
    <message>
        <source>%1 s left</source>
        <translation>剩余 %1 秒</translation>
    </message>
    <message>
        <source>Verified %1 (%2, %3)
</source>
        <translation>已校验 %1（%2，%3）
</translation>
    </message>
    <message>
        <source>from the cache</source>
        <translation>来自缓存</translation>
    </message>
    <message>
        <source>Note: only an MD5 checksum was available for this file; MD5 is weaker than SHA-256.</source>
        <translation>注意：此文件只有 MD5 校验和可用；MD5 的可靠性不如 SHA-256。</translation>
    </message>
    <message>
        <source>Plan for the machine described in FILE (the output of tfsetup detect --json) instead of this one.</source>
        <translation>为 FILE 中描述的计算机（tfsetup detect --json 的输出）制定方案，而不是为本机。</translation>
    </message>
    <message>
        <source>Only consider TensorFlow VERSION (&quot;2.13&quot; or &quot;2.13.0&quot;).</source>
        <translation>只考虑 TensorFlow VERSION（如 &quot;2.13&quot; 或 &quot;2.13.0&quot;）。</translation>
    </message>
    <message>
        <source>Use Python VERSION (&quot;3.10&quot;).</source>
        <translation>使用 Python VERSION（如 &quot;3.10&quot;）。</translation>
    </message>
    <message>
        <source>Only consider ROUTE: windows-native, linux-pip, linux-toolkit, wsl2, cpu, rocm, directml or metal.</source>
        <translation>只考虑 ROUTE 路线：windows-native、linux-pip、linux-toolkit、wsl2、cpu、rocm、directml 或 metal。</translation>
    </message>
    <message>
        <source>Plan without a GPU.</source>
        <translation>按没有 GPU 的情况制定方案。</translation>
    </message>
    <message>
        <source>The NVIDIA driver cannot be changed here: reject combinations it is too old for.</source>
        <translation>此处无法更换 NVIDIA 驱动程序：排除驱动程序版本过旧而无法支持的组合。</translation>
    </message>
    <message>
        <source>Print the plan as one JSON document.</source>
        <translation>以单个 JSON 文档输出方案。</translation>
    </message>
    <message>
        <source>Choose a TensorFlow / CUDA / cuDNN / Python combination that works on this machine, and say why the others do not.</source>
        <translation>选择一套能在本机上运行的 TensorFlow / CUDA / cuDNN / Python 组合，并说明其他组合为什么不行。</translation>
    </message>
    <message>
        <source>Unknown --route &quot;%1&quot;: use one of %2.</source>
        <translation>未知的 --route 值 &quot;%1&quot;：请使用以下之一：%2。</translation>
    </message>
    <message>
        <source>Cannot read the hardware file %1. Check the path.</source>
        <translation>无法读取硬件文件 %1。请检查路径。</translation>
    </message>
    <message>
        <source>The hardware file %1 is not a JSON object like the output of tfsetup detect --json.</source>
        <translation>硬件文件 %1 不是 JSON 对象（应与 tfsetup detect --json 的输出格式相同）。</translation>
    </message>
</context>
<context>
    <name>CudaDriver</name>
    <message>
        <source>The NVIDIA driver&apos;s CUDA library is too old or damaged. Update or reinstall the NVIDIA driver.</source>
        <translation>NVIDIA 驱动程序中的 CUDA 库版本过旧或已损坏。请更新或重新安装 NVIDIA 驱动程序。</translation>
    </message>
    <message>
        <source>CUDA cannot start on this computer. Make sure an NVIDIA GPU is present and enabled, and install or update its driver.</source>
        <translation>这台计算机无法启动 CUDA。请确认电脑装有 NVIDIA 显卡（GPU）且已启用，然后安装或更新它的驱动程序。</translation>
    </message>
    <message>
        <source>CUDA could not list the GPUs. Restart the computer; if that does not help, reinstall the NVIDIA driver.</source>
        <translation>CUDA 无法列出 GPU。请重启计算机；如果仍然不行，请重新安装 NVIDIA 驱动程序。</translation>
    </message>
</context>
<context>
    <name>GpuTable</name>
    <message>
        <source>Cannot read the GPU table %1. Reinstall tfsetup or point it at a readable catalog.</source>
        <translation>无法读取 GPU 数据表 %1。请重新安装 tfsetup，或为它指定一个可读取的目录。</translation>
    </message>
    <message>
        <source>The GPU table %1 is not valid JSON. Reinstall tfsetup or fix the catalog file.</source>
        <translation>GPU 数据表 %1 不是有效的 JSON。请重新安装 tfsetup 或修复该目录文件。</translation>
    </message>
    <message>
        <source>The GPU table %1 has a format this version of tfsetup does not know. Use the catalog that came with it.</source>
        <translation>GPU 数据表 %1 的格式是此版本 tfsetup 无法识别的。请使用 tfsetup 自带的目录。</translation>
    </message>
    <message>
        <source>A record of the GPU table %1 lacks a name or a source. Fix the catalog file.</source>
        <translation>GPU 数据表 %1 中有一条记录缺少名称或来源。请修复该目录文件。</translation>
    </message>
</context>
<context>
    <name>NvidiaSmi</name>
    <message>
        <source>nvidia-smi cannot reach the NVIDIA driver. Install the NVIDIA driver for your GPU (or repair it) and restart the computer.</source>
        <translation>nvidia-smi 无法连接到 NVIDIA 驱动程序。请为你的 GPU 安装（或修复）NVIDIA 驱动程序，然后重启计算机。</translation>
    </message>
    <message>
        <source>This NVIDIA driver&apos;s nvidia-smi does not know one of the queried fields. Updating the driver helps.</source>
        <translation>当前 NVIDIA 驱动程序附带的 nvidia-smi 不认识某个查询字段。更新驱动程序即可解决。</translation>
    </message>
    <message>
        <source>nvidia-smi printed something tfsetup cannot read. Run nvidia-smi yourself to see whether the driver works.</source>
        <translation>nvidia-smi 输出了 tfsetup 无法解读的内容。请自己运行 nvidia-smi，看看驱动程序是否正常工作。</translation>
    </message>
    <message>
        <source>nvidia-smi lists no NVIDIA GPU. Check that the GPU is seated and enabled, and that the driver is installed.</source>
        <translation>nvidia-smi 没有列出任何 NVIDIA GPU。请检查显卡是否插好并已启用，以及驱动程序是否已安装。</translation>
    </message>
    <message>
        <source>nvidia-smi printed no driver version. Run nvidia-smi yourself to see whether the driver works.</source>
        <translation>nvidia-smi 没有输出驱动程序版本。请自己运行 nvidia-smi，看看驱动程序是否正常工作。</translation>
    </message>
</context>
<context>
    <name>Nvml</name>
    <message>
        <source>The NVIDIA management library is too old or damaged. Update or reinstall the NVIDIA driver.</source>
        <translation>NVIDIA 管理库版本过旧或已损坏。请更新或重新安装 NVIDIA 驱动程序。</translation>
    </message>
    <message>
        <source>The NVIDIA driver did not answer. Install or reinstall the NVIDIA driver and restart the computer.</source>
        <translation>NVIDIA 驱动程序没有响应。请安装或重新安装 NVIDIA 驱动程序，然后重启计算机。</translation>
    </message>
    <message>
        <source>The NVIDIA driver could not list the GPUs. Restart the computer; if that does not help, reinstall the NVIDIA driver.</source>
        <translation>NVIDIA 驱动程序无法列出 GPU。请重启计算机；如果仍然不行，请重新安装 NVIDIA 驱动程序。</translation>
    </message>
</context>
<context>
    <name>PlanText</name>
    <message>
        <source>%1 on %2 with Python %3</source>
        <translation>%1，%2 路线，Python %3</translation>
    </message>
    <message>
        <source>, CUDA %1, cuDNN %2, driver %3 or newer</source>
        <translation>，CUDA %1，cuDNN %2，驱动程序 %3 或更新版本</translation>
    </message>
    <message>
        <source>Recommended: %1
</source>
        <translation>推荐：%1
</translation>
    </message>
    <message>
        <source>Why: %1
</source>
        <translation>理由：%1
</translation>
    </message>
    <message>
        <source>No TensorFlow combination fits this machine.
</source>
        <translation>没有适合本机的 TensorFlow 组合。
</translation>
    </message>
    <message>
        <source>
First:
</source>
        <translation>
首先：
</translation>
    </message>
    <message>
        <source>
Warnings:
</source>
        <translation>
警告：
</translation>
    </message>
    <message>
        <source>
Alternatives:
</source>
        <translation>
备选方案：
</translation>
    </message>
    <message numerus="yes">
        <source>  (%n more; use --json to see all)
</source>
        <translation>
            <numerusform>  （还有 %n 个；使用 --json 查看全部）
</numerusform>
        </translation>
    </message>
    <message>
        <source>
Not possible here:
</source>
        <translation>
在本机上不可行：
</translation>
    </message>
    <message>
        <source>  - %1: %2
</source>
        <translation>  - %1：%2
</translation>
    </message>
    <message>
        <source>  - TensorFlow %1 on %2: %3
</source>
        <translation>  - TensorFlow %1（%2 路线）：%3
</translation>
    </message>
</context>
<context>
    <name>ReportSummary</name>
    <message>
        <source>%1 under WSL2</source>
        <translation>WSL2 中的 %1</translation>
    </message>
    <message>
        <source>%1 under WSL1</source>
        <translation>WSL1 中的 %1</translation>
    </message>
    <message>
        <source>System: %1</source>
        <translation>系统：%1</translation>
    </message>
    <message>
        <source>System: %1, %2</source>
        <translation>系统：%1，%2</translation>
    </message>
    <message>
        <source>No NVIDIA GPU was found. TensorFlow can still run on the CPU.</source>
        <translation>没有找到 NVIDIA 显卡（GPU）。TensorFlow 仍然可以在 CPU 上运行。</translation>
    </message>
    <message>
        <source>Your GPU: %1 (compute capability unknown)</source>
        <translation>你的显卡：%1（计算能力未知）</translation>
    </message>
    <message>
        <source>Your GPU: %1, compute capability %2</source>
        <translation>你的显卡：%1，计算能力 %2</translation>
    </message>
    <message>
        <source>, %1 GiB of memory</source>
        <translation>，显存 %1 GiB</translation>
    </message>
    <message>
        <source>Other graphics: %1 (%2); TensorFlow&apos;s CUDA build cannot use it.</source>
        <translation>其他显卡：%1（%2）；TensorFlow 的 CUDA 版本无法使用它。</translation>
    </message>
    <message>
        <source>NVIDIA driver %1</source>
        <translation>NVIDIA 驱动程序 %1</translation>
    </message>
    <message>
        <source>NVIDIA driver %1 supports CUDA up to %2</source>
        <translation>NVIDIA 驱动程序 %1，最高支持 CUDA %2</translation>
    </message>
    <message>
        <source>No working NVIDIA driver was found. Install the driver for your GPU from NVIDIA first.</source>
        <translation>没有找到可用的 NVIDIA 驱动程序。请先从 NVIDIA 官网为你的显卡安装驱动程序。</translation>
    </message>
    <message>
        <source>unknown processor</source>
        <translation>未知处理器</translation>
    </message>
    <message>
        <source>Processor: %1 (whether it has the AVX instructions TensorFlow needs could not be checked)</source>
        <translation>处理器：%1（无法检查它是否支持 TensorFlow 所需的 AVX 指令）</translation>
    </message>
    <message>
        <source>Processor: %1, with the AVX instructions TensorFlow needs</source>
        <translation>处理器：%1，支持 TensorFlow 所需的 AVX 指令</translation>
    </message>
    <message>
        <source>Processor: %1. It lacks AVX, which official TensorFlow builds since 1.6 need.</source>
        <translation>处理器：%1。它不支持 AVX，而从 1.6 版起的官方 TensorFlow 版本都需要 AVX。</translation>
    </message>
    <message>
        <source>No Python was found; tfsetup can install one.</source>
        <translation>没有找到 Python；tfsetup 可以帮你安装。</translation>
    </message>
    <message>
        <source>Python found: %1</source>
        <translation>已找到 Python：%1</translation>
    </message>
    <message>
        <source>No CUDA toolkit is installed (tfsetup can bring the parts TensorFlow needs).</source>
        <translation>没有安装 CUDA 工具包（tfsetup 可以提供 TensorFlow 所需的部分）。</translation>
    </message>
    <message>
        <source>CUDA toolkit %1 in %2</source>
        <translation>CUDA 工具包 %1，位于 %2</translation>
    </message>
    <message>
        <source>cuDNN %1 in %2</source>
        <translation>cuDNN %1，位于 %2</translation>
    </message>
    <message>
        <source>The Microsoft Visual C++ runtime is missing (%1).</source>
        <translation>缺少 Microsoft Visual C++ 运行库（%1）。</translation>
    </message>
    <message>
        <source>tfsetup could not ask the NVIDIA driver library (NVML) about your GPU.</source>
        <translation>tfsetup 无法通过 NVIDIA 驱动程序库（NVML）查询你的显卡信息。</translation>
    </message>
    <message>
        <source>tfsetup could not ask the CUDA driver about your GPU.</source>
        <translation>tfsetup 无法通过 CUDA 驱动程序查询你的显卡信息。</translation>
    </message>
    <message>
        <source>The nvidia-smi tool that comes with the NVIDIA driver did not answer.</source>
        <translation>NVIDIA 驱动程序附带的 nvidia-smi 工具没有响应。</translation>
    </message>
    <message>
        <source>tfsetup could not read the list of devices plugged into the computer.</source>
        <translation>tfsetup 无法读取连接到这台计算机的设备列表。</translation>
    </message>
    <message>
        <source>tfsetup could not check every Python installation.</source>
        <translation>tfsetup 无法检查所有的 Python 安装。</translation>
    </message>
    <message>
        <source>The check &quot;%1&quot; did not work.</source>
        <translation>检查项“%1”没有成功。</translation>
    </message>
    <message>
        <source>What could not be checked:</source>
        <translation>无法检查的项目：</translation>
    </message>
</context>
<context>
    <name>Solver</name>
    <message>
        <source>an unnamed GPU</source>
        <translation>未命名的 GPU</translation>
    </message>
    <message>
        <source>The compute capability of the %1 is unknown, so tfsetup cannot check it against TensorFlow %2; run tfsetup detect on the machine itself.</source>
        <translation>%1 的计算能力未知，因此 tfsetup 无法判断它是否适用于 TensorFlow %2；请在那台计算机上直接运行 tfsetup detect。</translation>
    </message>
    <message>
        <source>The catalog does not say which GPUs TensorFlow %1 supports.</source>
        <translation>目录中没有说明 TensorFlow %1 支持哪些 GPU。</translation>
    </message>
    <message>
        <source>TensorFlow %1 (CUDA %2) runs on compute capability %3 and newer; the %4 has %5.</source>
        <translation>TensorFlow %1（CUDA %2）需要计算能力 %3 或更高；%4 的计算能力是 %5。</translation>
    </message>
    <message>
        <source>TensorFlow %1 is built with CUDA %2, which targets compute capability up to %3; the %4 (%5) needs CUDA %6 or newer.</source>
        <translation>TensorFlow %1 是用 CUDA %2 构建的，它最高支持计算能力 %3；%4（%5）需要 CUDA %6 或更新版本。</translation>
    </message>
    <message>
        <source>TensorFlow %1 is built with CUDA %2, which targets compute capability up to %3; the %4 (%5) is newer than any CUDA the catalog knows.</source>
        <translation>TensorFlow %1 是用 CUDA %2 构建的，它最高支持计算能力 %3；%4（%5）太新，目录中已知的 CUDA 版本都不支持它。</translation>
    </message>
    <message>
        <source>TensorFlow %1 has GPU code for compute capability %2 only; none of it runs on the %3 (%4).</source>
        <translation>TensorFlow %1 只包含面向计算能力 %2 的 GPU 代码，其中没有能在 %3（%4）上运行的。</translation>
    </message>
    <message>
        <source>TensorFlow %1 has no machine code for the %2 (compute capability %3): the driver compiles its PTX for %4 when TensorFlow starts, which takes minutes the first time.</source>
        <translation>TensorFlow %1 没有适用于 %2（计算能力 %3）的机器码：TensorFlow 启动时，驱动程序会编译其面向计算能力 %4 的 PTX 代码，第一次启动需要几分钟。</translation>
    </message>
    <message>
        <source>TensorFlow %1 is built with CUDA %2, which predates the %3 (compute capability %4; CUDA %2 targets up to %5): code compiled while TensorFlow runs goes through the driver&apos;s PTX JIT, so the first start is slow and some operations are reported to fail.</source>
        <translation>TensorFlow %1 是用 CUDA %2 构建的，而 CUDA %2 发布时还没有 %3（计算能力 %4；CUDA %2 最高支持 %5）：TensorFlow 运行时编译的代码要经过驱动程序的 PTX JIT，所以第一次启动较慢，而且有报告称部分操作会失败。</translation>
    </message>
    <message>
        <source>tfsetup could not confirm %1 from a primary source; the plan assumes it.</source>
        <translation>关于“%1”，tfsetup 无法从一手来源确认；本方案暂按此假定。</translation>
    </message>
    <message>
        <source>The %1 route runs on %2; this machine runs %3.</source>
        <translation>%1 路线适用于 %2；本机运行的是 %3。</translation>
    </message>
    <message>
        <source>WSL1 has no GPU access. Convert this distribution to WSL2 (wsl --set-version &lt;distribution&gt; 2).</source>
        <translation>WSL1 无法使用 GPU。请把这个发行版转换为 WSL2（wsl --set-version &lt;distribution&gt; 2）。</translation>
    </message>
    <message>
        <source>This is WSL2, where the GPU driver is the Windows one: use the wsl2 route.</source>
        <translation>这里是 WSL2，GPU 驱动程序用的是 Windows 中的驱动：请使用 wsl2 路线。</translation>
    </message>
    <message>
        <source>The wsl2 route is for Windows machines and for WSL2 itself; this is plain Linux.</source>
        <translation>wsl2 路线适用于 Windows 计算机和 WSL2 本身；这里是普通的 Linux。</translation>
    </message>
    <message>
        <source>GPU support in WSL2 needs Windows 10 build %1 or newer; this Windows is build %2. Update Windows.</source>
        <translation>WSL2 中的 GPU 支持需要 Windows 10 内部版本 %1 或更高；此 Windows 的内部版本是 %2。请更新 Windows。</translation>
    </message>
    <message>
        <source>There is no official TensorFlow package for %1 on %2.</source>
        <translation>没有适用于 %1（%2）的官方 TensorFlow 安装包。</translation>
    </message>
    <message>
        <source>The %1 route needs a %2 processor; this machine is %3.</source>
        <translation>%1 路线需要 %2 处理器；本机是 %3。</translation>
    </message>
    <message>
        <source>No NVIDIA GPU was found; the %1 route needs one.</source>
        <translation>没有找到 NVIDIA GPU；%1 路线需要 NVIDIA GPU。</translation>
    </message>
    <message>
        <source>The %1 route needs an NVIDIA GPU; this machine has %2.</source>
        <translation>%1 路线需要 NVIDIA GPU；本机的显卡是 %2。</translation>
    </message>
    <message>
        <source>The %1 route needs an AMD GPU; none was found.</source>
        <translation>%1 路线需要 AMD GPU，但没有找到。</translation>
    </message>
    <message>
        <source>The %1 route needs a Mac with Apple silicon.</source>
        <translation>%1 路线需要搭载 Apple 芯片的 Mac。</translation>
    </message>
    <message>
        <source>The %1 route needs a DirectX 12 GPU; none was found.</source>
        <translation>%1 路线需要支持 DirectX 12 的 GPU，但没有找到。</translation>
    </message>
    <message>
        <source>Official TensorFlow packages use AVX instructions since TensorFlow %1; this processor (%2) has no AVX.</source>
        <translation>从 TensorFlow %1 起，官方 TensorFlow 安装包都使用 AVX 指令；此处理器（%2）不支持 AVX。</translation>
    </message>
    <message>
        <source>name unknown</source>
        <translation>名称未知</translation>
    </message>
    <message>
        <source>TensorFlow %1 has no GPU support on native Windows: the last release with it is %2. Use WSL2 for newer releases, or TensorFlow %2 here.</source>
        <translation>TensorFlow %1 在原生 Windows 上不支持 GPU：最后一个支持 GPU 的版本是 %2。要使用更新的版本，请改用 WSL2，或在这里使用 TensorFlow %2。</translation>
    </message>
    <message>
        <source>every detail of the %1 route</source>
        <translation>%1 路线的全部细节</translation>
    </message>
    <message>
        <source>that TensorFlow %1 is published for %2 on %3</source>
        <translation>TensorFlow %1 提供适用于 %2（%3）的版本</translation>
    </message>
    <message>
        <source>the package name %1 for TensorFlow %2</source>
        <translation>TensorFlow %2 的包名 %1</translation>
    </message>
    <message>
        <source>TensorFlow %1 supports Python %2; you asked for Python %3.</source>
        <translation>TensorFlow %1 支持 Python %2；而你指定的是 Python %3。</translation>
    </message>
    <message>
        <source>TensorFlow %1 on the %2 route needs Python %3 or newer, which it does not support (%4).</source>
        <translation>在 %2 路线上，TensorFlow %1 需要 Python %3 或更新版本，但 TensorFlow %1 并不支持这些版本（它支持 %4）。</translation>
    </message>
    <message>
        <source>Install Python %1 (TensorFlow %2 supports Python %3).</source>
        <translation>安装 Python %1（TensorFlow %2 支持 Python %3）。</translation>
    </message>
    <message>
        <source>Install Python %1: TensorFlow %2 supports Python %3, and this machine has %4.</source>
        <translation>安装 Python %1：TensorFlow %2 支持 Python %3，而本机上的是 %4。</translation>
    </message>
    <message>
        <source>which GPU architectures TensorFlow %1&apos;s packages contain</source>
        <translation>TensorFlow %1 的安装包包含哪些 GPU 架构</translation>
    </message>
    <message>
        <source>%1 (compute capability %2)</source>
        <translation>%1（计算能力 %2）</translation>
    </message>
    <message>
        <source>TensorFlow will not use the %1.</source>
        <translation>TensorFlow 不会使用 %1。</translation>
    </message>
    <message>
        <source>TensorFlow %1 needs CUDA %2, and PTX JIT needs the driver CUDA %2 shipped with, %3 or newer on %4; yours is %5.</source>
        <translation>TensorFlow %1 需要 CUDA %2，而 PTX JIT 需要 CUDA %2 随附的驱动程序，即 %4 上的 %3 或更新版本；你的是 %5。</translation>
    </message>
    <message>
        <source>TensorFlow %1 needs CUDA %2, which needs driver %3 or newer on %4; yours is %5.</source>
        <translation>TensorFlow %1 需要 CUDA %2，而 CUDA %2 在 %4 上需要 %3 或更新版本的驱动程序；你的是 %5。</translation>
    </message>
    <message>
        <source>TensorFlow %1 needs CUDA %2; your driver supports CUDA up to %3. It needs driver %4 or newer on %5.</source>
        <translation>TensorFlow %1 需要 CUDA %2；你的驱动程序最高只支持 CUDA %3。在 %5 上需要 %4 或更新版本的驱动程序。</translation>
    </message>
    <message>
        <source>Install the NVIDIA driver, %1 or newer (TensorFlow %2 needs CUDA %3).</source>
        <translation>安装 %1 或更新版本的 NVIDIA 驱动程序（TensorFlow %2 需要 CUDA %3）。</translation>
    </message>
    <message>
        <source>Update the NVIDIA driver to %1 or newer.</source>
        <translation>将 NVIDIA 驱动程序更新到 %1 或更新版本。</translation>
    </message>
    <message>
        <source>Install CUDA %1 (TensorFlow %2 opens %3).</source>
        <translation>安装 CUDA %1（TensorFlow %2 会加载 %3）。</translation>
    </message>
    <message>
        <source>Install cuDNN %1 (TensorFlow %2 opens %3).</source>
        <translation>安装 cuDNN %1（TensorFlow %2 会加载 %3）。</translation>
    </message>
    <message>
        <source>Install the Microsoft Visual C++ Redistributable for Visual Studio 2015-2022 (x64); TensorFlow needs msvcp140.dll.</source>
        <translation>安装 Microsoft Visual C++ 可再发行程序包（Visual Studio 2015-2022，x64）；TensorFlow 需要 msvcp140.dll。</translation>
    </message>
    <message>
        <source>Install WSL2 with a Linux distribution (wsl --install) and run tfsetup inside it: TensorFlow %1 uses the GPU there, while native Windows GPU support ended with TensorFlow %2.</source>
        <translation>安装 WSL2 和一个 Linux 发行版（wsl --install），然后在其中运行 tfsetup：TensorFlow %1 在那里可以使用 GPU，而原生 Windows 上的 GPU 支持止于 TensorFlow %2。</translation>
    </message>
    <message>
        <source>Install AMD ROCm for your GPU first; AMD lists which Radeon and Instinct GPUs each ROCm release supports.</source>
        <translation>请先为你的 GPU 安装 AMD ROCm；AMD 官方列出了每个 ROCm 版本支持哪些 Radeon 和 Instinct GPU。</translation>
    </message>
    <message>
        <source>Prepare the %1 route (%2).</source>
        <translation>准备 %1 路线（%2）。</translation>
    </message>
    <message>
        <source>The %1 route is offered as an experiment: tfsetup cannot confirm that it supports your GPU.</source>
        <translation>%1 路线属于实验性选项：tfsetup 无法确认它是否支持你的 GPU。</translation>
    </message>
    <message>
        <source>TensorFlow %1&apos;s tested configuration runs natively on your %2.</source>
        <translation>TensorFlow %1 的官方测试配置可以在你的 %2 上原生运行。</translation>
    </message>
    <message>
        <source>TensorFlow %1 uses your GPU through the %2 route.</source>
        <translation>TensorFlow %1 通过 %2 路线使用你的 GPU。</translation>
    </message>
    <message>
        <source>TensorFlow %1 runs on your %2 inside WSL2; native Windows GPU support ended with TensorFlow %3.</source>
        <translation>TensorFlow %1 在 WSL2 中使用你的 %2 运行；原生 Windows 上的 GPU 支持止于 TensorFlow %3。</translation>
    </message>
    <message>
        <source>TensorFlow %1 can use your %2 only through PTX JIT: slow first start.</source>
        <translation>TensorFlow %1 只能通过 PTX JIT 使用你的 %2：第一次启动会比较慢。</translation>
    </message>
    <message>
        <source>TensorFlow %1 runs on the CPU.</source>
        <translation>TensorFlow %1 在 CPU 上运行。</translation>
    </message>
    <message>
        <source>No GPU route fits this machine, so TensorFlow %1 runs on the CPU.</source>
        <translation>没有适合本机的 GPU 路线，因此 TensorFlow %1 将在 CPU 上运行。</translation>
    </message>
    <message>
        <source>TensorFlow %1 on the experimental %2 route.</source>
        <translation>TensorFlow %1，使用实验性的 %2 路线。</translation>
    </message>
    <message>
        <source>CUDA %1 and cuDNN %2 come as pip packages, so only the NVIDIA driver (%3 or newer) must be installed.</source>
        <translation>CUDA %1 和 cuDNN %2 以 pip 包的形式提供，所以只需要安装 NVIDIA 驱动程序（%3 或更新版本）。</translation>
    </message>
    <message>
        <source>It needs CUDA %1, cuDNN %2 and driver %3 or newer.</source>
        <translation>它需要 CUDA %1、cuDNN %2 以及 %3 或更新版本的驱动程序。</translation>
    </message>
    <message>
        <source>It uses the installed Python %1.</source>
        <translation>它使用已安装的 Python %1。</translation>
    </message>
    <message>
        <source>It needs Python %1, which tfsetup installs.</source>
        <translation>它需要 Python %1，tfsetup 会帮你安装。</translation>
    </message>
    <message>
        <source>TensorFlow %1 is newer and listed as an alternative, but the catalog could not confirm all of its facts.</source>
        <translation>TensorFlow %1 版本更新，已列为备选方案，但目录无法确认它的全部信息。</translation>
    </message>
    <message>
        <source>The hardware report does not name the operating system; the plan assumes Linux. Give --os to choose.</source>
        <translation>硬件报告中没有注明操作系统；本方案假定为 Linux。可以用 --os 指定。</translation>
    </message>
    <message>
        <source>The catalog has no TensorFlow release %1 for this machine&apos;s routes.</source>
        <translation>目录中没有适用于本机可用路线的 TensorFlow %1 版本。</translation>
    </message>
    <message>
        <source>No TensorFlow release in the catalog can use your %1 here; the rejected combinations say why.</source>
        <translation>目录中没有哪个 TensorFlow 版本能在这里使用你的 %1；被排除的组合中说明了原因。</translation>
    </message>
    <message>
        <source>Official TensorFlow packages need a processor with AVX. Use a newer computer or a hosted notebook service.</source>
        <translation>官方 TensorFlow 安装包需要支持 AVX 的处理器。请换一台较新的计算机，或使用云端 Notebook 服务。</translation>
    </message>
</context>
<context>
    <name>SystemView</name>
    <message>
        <source>Cannot read the environment file %1. Check the path and that it is readable.</source>
        <translation>无法读取环境文件 %1。请检查路径以及该文件是否可读。</translation>
    </message>
    <message>
        <source>Line %1 of the environment file %2 is not KEY=VALUE. Fix or remove that line.</source>
        <translation>环境文件 %2 的第 %1 行不是 KEY=VALUE 格式。请修正或删除该行。</translation>
    </message>
    <message>
        <source>The folder %1 given as the system root does not exist. Give an existing folder.</source>
        <translation>作为系统根目录指定的文件夹 %1 不存在。请指定一个已存在的文件夹。</translation>
    </message>
</context>
<context>
    <name>VersionParsers</name>
    <message>
        <source>Could not read the version from %1. The file may be damaged or from an unsupported release; reinstall that component if the setup needs it.</source>
        <translation>无法从 %1 读取版本号。该文件可能已损坏，或来自不受支持的版本；如果安装需要该组件，请重新安装它。</translation>
    </message>
</context>
<context>
    <name>tfsetup::core::Downloader</name>
    <message>
        <source>The download of %1 is missing its address, its checksum or its destination.</source>
        <translation>%1 的下载任务缺少地址、校验和或保存位置。</translation>
    </message>
    <message>
        <source>The download was cancelled.</source>
        <translation>下载已取消。</translation>
    </message>
    <message>
        <source>The download of %1 was stopped. What arrived is kept; starting it again resumes it.</source>
        <translation>%1 的下载已停止。已下载的部分会保留，再次开始即可继续下载。</translation>
    </message>
    <message>
        <source>The disk is full while saving %1. Free some space (it needs %2 MB) or choose another folder, then try again; the download resumes.</source>
        <translation>保存 %1 时磁盘已满。请释放一些空间（需要 %2 MB）或选择其他文件夹，然后重试；下载会从中断处继续。</translation>
    </message>
    <message>
        <source>You may not write to the folder of %1. Choose a folder in your own user folder.</source>
        <translation>你没有权限写入 %1 所在的文件夹。请选择你自己用户文件夹中的某个位置。</translation>
    </message>
    <message>
        <source>Saving %1 failed. Check the disk and the folder&apos;s permissions.</source>
        <translation>保存 %1 失败。请检查磁盘以及该文件夹的权限。</translation>
    </message>
    <message>
        <source>%1 does not match its official %2 checksum, so it was not used. The bad file was set aside as %3. Try again later or another mirror; if it keeps happening, something between you and the server changes the file.</source>
        <translation>%1 与官方 %2 校验和不符，因此没有使用。损坏的文件已另存为 %3。请稍后重试或换一个镜像；如果问题反复出现，说明你和服务器之间有某个环节修改了文件。</translation>
    </message>
    <message>
        <source>%1 is not on the server (404 Not Found). The mirror may be incomplete; try another mirror.</source>
        <translation>服务器上没有 %1（404 Not Found）。该镜像可能不完整；请换一个镜像。</translation>
    </message>
    <message>
        <source>The server&apos;s name could not be resolved while fetching %1. Check the internet connection or the proxy setting.</source>
        <translation>下载 %1 时无法解析服务器名称。请检查网络连接或代理设置。</translation>
    </message>
    <message>
        <source>Could not connect to the server for %1. Check the internet connection, the proxy, or try a mirror.</source>
        <translation>无法连接到 %1 所在的服务器。请检查网络连接和代理，或换一个镜像。</translation>
    </message>
    <message>
        <source>The server&apos;s certificate for %1 could not be verified, so nothing was downloaded. A lab or company proxy may need its certificate added (CA bundle setting).</source>
        <translation>无法验证服务器为 %1 提供的证书，因此没有下载任何内容。如果你在实验室或公司网络中通过代理上网，可能需要添加该代理的证书（CA 证书包设置）。</translation>
    </message>
    <message>
        <source>The server tried to send %1 over an unencrypted connection; that was refused.</source>
        <translation>服务器试图通过未加密的连接发送 %1，已被拒绝。</translation>
    </message>
    <message>
        <source>The connection kept stalling or dropping while fetching %1. What arrived is kept; try again to resume.</source>
        <translation>下载 %1 时连接反复停滞或中断。已下载的部分会保留，重试即可继续下载。</translation>
    </message>
    <message>
        <source>The server sent a web page instead of %1 (often a login or error page). Try another mirror.</source>
        <translation>服务器返回的是网页而不是 %1（通常是登录页或错误页）。请换一个镜像。</translation>
    </message>
    <message>
        <source>The server&apos;s %1 has a different size than the official one. Try another mirror.</source>
        <translation>服务器上的 %1 与官方文件的大小不同。请换一个镜像。</translation>
    </message>
    <message>
        <source>%1 could not be downloaded from any mirror.</source>
        <translation>无法从任何镜像下载 %1。</translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::DetectPage</name>
    <message>
        <source>Your computer</source>
        <translation>你的计算机</translation>
    </message>
    <message>
        <source>tfsetup looks at your graphics card, its driver, the processor and what is already installed. Nothing is changed on your computer.</source>
        <translation>tfsetup 会查看你的显卡、显卡驱动程序、处理器以及已经安装的软件。不会对你的计算机做任何更改。</translation>
    </message>
    <message>
        <source>Looking at your computer… This takes a few seconds.</source>
        <translation>正在检查你的计算机……需要几秒钟。</translation>
    </message>
    <message>
        <source>Scan a&amp;gain</source>
        <translation>重新扫描(&amp;G)</translation>
    </message>
    <message>
        <source>Scan again</source>
        <translation>重新扫描</translation>
    </message>
    <message>
        <source>&amp;Copy report</source>
        <translation>复制报告(&amp;C)</translation>
    </message>
    <message>
        <source>Copy report</source>
        <translation>复制报告</translation>
    </message>
    <message>
        <source>Copies what was found, as text and as JSON, for example to ask for help.</source>
        <translation>以文本和 JSON 两种格式复制检测结果，例如用来向别人求助。</translation>
    </message>
    <message>
        <source>Hide &amp;details</source>
        <translation>隐藏详细信息(&amp;D)</translation>
    </message>
    <message>
        <source>Show &amp;details</source>
        <translation>显示详细信息(&amp;D)</translation>
    </message>
    <message>
        <source>Show details</source>
        <translation>显示详细信息</translation>
    </message>
    <message>
        <source>Field</source>
        <translation>项目</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>值</translation>
    </message>
    <message>
        <source>Found by</source>
        <translation>检测方式</translation>
    </message>
    <message>
        <source>Full report</source>
        <translation>完整报告</translation>
    </message>
    <message>
        <source>Some checks did not work. That is often harmless when another check found the same thing; &quot;Show details&quot; tells why.</source>
        <translation>有些检查没有成功。如果其他检查已经找到了同样的信息，这通常没有影响；点击“显示详细信息”可以查看原因。</translation>
    </message>
    <message>
        <source>The log file has everything tfsetup tried: %1</source>
        <translation>日志文件记录了 tfsetup 尝试过的所有操作：%1</translation>
    </message>
    <message>
        <source>none found</source>
        <translation>未找到</translation>
    </message>
    <message numerus="yes">
        <source>%n found</source>
        <translation>
            <numerusform>找到 %n 个</numerusform>
        </translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::SetupWizard</name>
    <message>
        <source>TensorFlow GPU setup</source>
        <translation>TensorFlow GPU 安装向导</translation>
    </message>
    <message>
        <source>&lt; &amp;Back</source>
        <translation>&lt; 上一步(&amp;B)</translation>
    </message>
    <message>
        <source>&amp;Next &gt;</source>
        <translation>下一步(&amp;N) &gt;</translation>
    </message>
    <message>
        <source>&amp;Install</source>
        <translation>安装(&amp;I)</translation>
    </message>
    <message>
        <source>&amp;Finish</source>
        <translation>完成(&amp;F)</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::WelcomePage</name>
    <message>
        <source>Welcome</source>
        <translation>欢迎</translation>
    </message>
    <message>
        <source>This wizard sets up TensorFlow with GPU support on this computer. It checks your hardware, picks versions that work together, downloads them from the official sites and tests the result.</source>
        <translation>本向导会在这台计算机上安装支持 GPU 的 TensorFlow。它会检查你的硬件，挑选能够相互配合的版本，从官方网站下载，并测试安装结果。</translation>
    </message>
    <message>
        <source>&amp;Set up a new TensorFlow environment</source>
        <translation>设置新的 TensorFlow 环境(&amp;S)</translation>
    </message>
    <message>
        <source>Choose this if you have not installed TensorFlow with tfsetup yet.</source>
        <translation>如果你还没有用 tfsetup 安装过 TensorFlow，请选择此项。</translation>
    </message>
    <message>
        <source>&amp;Repair an existing environment</source>
        <translation>修复现有环境(&amp;R)</translation>
    </message>
    <message>
        <source>Choose this if TensorFlow is installed but does not find the GPU or fails to start.</source>
        <translation>如果 TensorFlow 已经安装，但找不到 GPU 或无法启动，请选择此项。</translation>
    </message>
    <message>
        <source>Use a lab &amp;profile</source>
        <translation>使用实验室配置文件(&amp;P)</translation>
    </message>
    <message>
        <source>Choose this if your course or lab gave you a profile file that fixes the versions to install.</source>
        <translation>如果你的课程或实验室给了你一个指定了安装版本的配置文件，请选择此项。</translation>
    </message>
    <message>
        <source>&amp;Language:</source>
        <translation>语言(&amp;L)：</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
</context>
</TS>
