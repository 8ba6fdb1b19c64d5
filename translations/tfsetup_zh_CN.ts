<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>ArchiveReader</name>
    <message>
        <source>The archive %1 contains an entry that could write outside its folder, so nothing from it was installed. Download it again from the official site; if this keeps happening, the mirror serves a tampered file.</source>
        <translation>压缩包 %1 中有一个条目可能会写到其所在文件夹之外，因此其中的任何内容都没有安装。请从官方网站重新下载；如果问题反复出现，说明该镜像提供的是被篡改过的文件。</translation>
    </message>
    <message>
        <source>Cannot open the archive %1. Download it again; it may be incomplete.</source>
        <translation>无法打开压缩包 %1。请重新下载；它可能不完整。</translation>
    </message>
    <message>
        <source>The archive %1 is damaged. Download it again.</source>
        <translation>压缩包 %1 已损坏。请重新下载。</translation>
    </message>
    <message>
        <source>Unpacking was cancelled.</source>
        <translation>解压已取消。</translation>
    </message>
    <message>
        <source>Cannot write %1. Check the free space and the permissions of the install folder.</source>
        <translation>无法写入 %1。请检查磁盘剩余空间以及安装文件夹的权限。</translation>
    </message>
    <message>
        <source>Cannot create the folder %1. Check the permissions of the install folder.</source>
        <translation>无法创建文件夹 %1。请检查安装文件夹的权限。</translation>
    </message>
    <message>
        <source>Cannot create the link %1. The install folder must be on a disk that supports links (not FAT or a network share).</source>
        <translation>无法创建链接 %1。安装文件夹所在的磁盘必须支持链接（不能是 FAT 格式或网络共享）。</translation>
    </message>
    <message>
        <source>Cannot write %1. Check the free space on the disk.</source>
        <translation>无法写入 %1。请检查磁盘剩余空间。</translation>
    </message>
    <message>
        <source>%1 in the archive %2 is larger than expected. The archive is not what it should be; download it again.</source>
        <translation>压缩包 %2 中的 %1 比预期的大。该压缩包不是应有的文件；请重新下载。</translation>
    </message>
    <message>
        <source>The archive %1 does not contain the file tfsetup looks for. Download it again.</source>
        <translation>压缩包 %1 中没有 tfsetup 要找的文件。请重新下载。</translation>
    </message>
</context>
<context>
    <name>ArchiveWriter</name>
    <message>
        <source>Cannot create the archive %1.</source>
        <translation>无法创建压缩包 %1。</translation>
    </message>
    <message>
        <source>Cannot add %1 to the archive.</source>
        <translation>无法将 %1 添加到压缩包中。</translation>
    </message>
    <message>
        <source>Cannot finish the archive.</source>
        <translation>无法完成压缩包的写入。</translation>
    </message>
</context>
<context>
    <name>ArtifactList</name>
    <message>
        <source>no checksum</source>
        <translation>无校验和</translation>
    </message>
    <message>
        <source>(optional)</source>
        <translation>（可选）</translation>
    </message>
    <message>
        <source>warning: %1</source>
        <translation>警告：%1</translation>
    </message>
</context>
<context>
    <name>ArtifactResolver</name>
    <message>
        <source>The plan file has no recommended plan, so there is nothing to fetch. Run tfsetup plan again with other choices.</source>
        <translation>方案文件中没有推荐方案，因此没有需要下载的内容。请换用其他选项重新运行 tfsetup plan。</translation>
    </message>
    <message>
        <source>The plan file does not name a route and a TensorFlow version. Give the output of tfsetup plan --json.</source>
        <translation>方案文件中没有指明路线和 TensorFlow 版本。请提供 tfsetup plan --json 的输出。</translation>
    </message>
    <message>
        <source>No NVIDIA redistributable manifest is known for CUDA %1. Use the full installer route (--cuda-from installer) instead.</source>
        <translation>没有已知的 CUDA %1 的 NVIDIA 可再发行组件清单。请改用完整安装程序路线（--cuda-from installer）。</translation>
    </message>
    <message>
        <source>NVIDIA has no redistributable archives for CUDA %1. tfsetup uses the CUDA %2 archives instead: they provide the same library names, but this combination is outside TensorFlow&apos;s tested configuration. For the tested toolkit, choose the full CUDA %1 installer (needs administrator rights).</source>
        <translation>NVIDIA 没有为 CUDA %1 提供可再分发的压缩包。tfsetup 改用 CUDA %2 的压缩包：它们提供相同的库文件名，但这种组合不在 TensorFlow 的官方测试配置之内。如需经过测试的工具包，请选择完整的 CUDA %1 安装程序（需要管理员权限）。</translation>
    </message>
    <message>
        <source>tfsetup has no pinned checksum for NVIDIA&apos;s %1; it was taken from NVIDIA over a verified connection.</source>
        <translation>tfsetup 没有 NVIDIA 的 %1 的固定校验和；它是通过经过验证的连接从 NVIDIA 获取的。</translation>
    </message>
    <message>
        <source>The sources catalog does not say which CUDA %1 components TensorFlow needs. Update tfsetup.</source>
        <translation>下载来源表中没有说明 TensorFlow 需要哪些 CUDA %1 组件。请更新 tfsetup。</translation>
    </message>
    <message>
        <source>NVIDIA&apos;s %1 has no %2 for %3.</source>
        <translation>NVIDIA 的 %1 中没有适用于 %3 的 %2。</translation>
    </message>
    <message>
        <source>tfsetup knows no full installer for CUDA %1. Use the portable route instead.</source>
        <translation>tfsetup 不知道 CUDA %1 的完整安装程序。请改用便携路线。</translation>
    </message>
    <message>
        <source>NVIDIA&apos;s MD5 list for the CUDA %1 installer could not be read, so the installer has no checksum yet. Try again online, or choose to trust it on first use.</source>
        <translation>无法读取 NVIDIA 为 CUDA %1 安装程序提供的 MD5 列表，因此该安装程序暂时没有校验和。请联网后重试，或选择在首次使用时信任它。</translation>
    </message>
    <message>
        <source>NVIDIA publishes only an MD5 checksum for full installers; MD5 detects damage, not tampering.</source>
        <translation>NVIDIA 只为完整安装程序发布 MD5 校验和；MD5 只能发现文件损坏，无法发现篡改。</translation>
    </message>
    <message>
        <source>The full CUDA %1 installer changes the whole system and needs administrator rights; the display driver is not installed with it.</source>
        <translation>完整的 CUDA %1 安装程序会改动整个系统，并且需要管理员权限；它不会同时安装显卡驱动程序。</translation>
    </message>
    <message>
        <source>cuDNN %1 on Windows needs zlibwapi.dll, which NVIDIA does not ship with it. tfsetup does not download it from unofficial sites; see the details.</source>
        <translation>Windows 上的 cuDNN %1 需要 zlibwapi.dll，但 NVIDIA 没有随 cuDNN 一起提供该文件。tfsetup 不会从非官方网站下载它；请查看详细信息。</translation>
    </message>
    <message>
        <source>NVIDIA&apos;s %1 has no cuDNN for %2 and CUDA %3.</source>
        <translation>NVIDIA 的 %1 中没有适用于 %2 和 CUDA %3 的 cuDNN。</translation>
    </message>
    <message>
        <source>tfsetup knows no download of cuDNN %1 for %2.</source>
        <translation>tfsetup 不知道适用于 %2 的 cuDNN %1 的下载地址。</translation>
    </message>
    <message>
        <source>NVIDIA publishes no checksum for cuDNN %1 (%2), and tfsetup knows no independent one. It can only be used if you choose to trust the file on first use.</source>
        <translation>NVIDIA 没有公布 cuDNN %1（%2）的校验和，tfsetup 也不知道其他独立来源的校验和。只有当你选择在首次使用时信任该文件，才能使用它。</translation>
    </message>
    <message>
        <source>NVIDIA publishes no checksum for cuDNN %1; tfsetup checks it against an independently recorded SHA-256.</source>
        <translation>NVIDIA 没有为 cuDNN %1 发布校验和；tfsetup 会用一个独立记录的 SHA-256 校验和来核对它。</translation>
    </message>
    <message>
        <source>tfsetup knows no python.org installer for Python %1.</source>
        <translation>tfsetup 不知道有适用于 Python %1 的 python.org 安装程序。</translation>
    </message>
    <message>
        <source>python.org publishes only an MD5 checksum for this installer; MD5 detects damage, not tampering.</source>
        <translation>python.org 只为这个安装程序公布了 MD5 校验和；MD5 能发现损坏，但发现不了篡改。</translation>
    </message>
    <message>
        <source>python.org publishes only an MD5 checksum for %1. It detects a damaged download, not a deliberately altered one.</source>
        <translation>python.org 只为 %1 公布了 MD5 校验和。它能发现下载损坏，但发现不了有意的篡改。</translation>
    </message>
    <message>
        <source>python.org&apos;s checksum for %1 could not be read from python.org. Compare the file with the checksum on python.org&apos;s release page, or choose to trust it on first use.</source>
        <translation>无法从 python.org 读取 %1 的校验和。请将文件与 python.org 发布页面上的校验和比对，或选择首次使用时信任它。</translation>
    </message>
    <message>
        <source>Python %1 is not installed, and tfsetup knows no relocatable build of it. Install it with the system&apos;s package manager.</source>
        <translation>未安装 Python %1，tfsetup 也不知道它的可迁移版本。请用系统的软件包管理器安装它。</translation>
    </message>
    <message>
        <source>Python %1 is not installed. tfsetup unpacks the relocatable CPython %2 build (python-build-standalone, release %3) into the environment&apos;s own folder; nothing outside it changes.</source>
        <translation>未安装 Python %1。tfsetup 会把可迁移的 CPython %2（python-build-standalone，发布版 %3）解压到环境自己的文件夹中；环境之外的任何东西都不会改变。</translation>
    </message>
    <message>
        <source>The SHA-256 of %1 could not be read from the SHA256SUMS of python-build-standalone&apos;s release %2. Try again online, or choose to trust the file on first use.</source>
        <translation>无法从 python-build-standalone 发布版 %2 的 SHA256SUMS 中读取 %1 的 SHA-256。请联网后重试，或选择首次使用时信任该文件。</translation>
    </message>
    <message>
        <source>The plan file</source>
        <translation>方案文件</translation>
    </message>
    <message>
        <source>Give the output of tfsetup plan --json.</source>
        <translation>请提供 tfsetup plan --json 的输出。</translation>
    </message>
    <message>
        <source>Check the internet connection, the proxy or the mirror settings.</source>
        <translation>请检查网络连接、代理或镜像设置。</translation>
    </message>
    <message>
        <source>NVIDIA&apos;s manifest %1 could not be fetched and verified from any mirror.</source>
        <translation>无法从任何镜像获取并验证 NVIDIA 的清单 %1。</translation>
    </message>
    <message>
        <source>tfsetup has no pinned checksum for NVIDIA&apos;s %1, and it came from %2 over plain HTTP, which cannot prove that it is NVIDIA&apos;s, yet the archives&apos; checksums are read from it. Use NVIDIA&apos;s https:// address, or a sources catalog that pins this manifest.</source>
        <translation>tfsetup 没有 NVIDIA 的 %1 的固定校验和，而且它是通过明文 HTTP 从 %2 获取的，这无法证明它来自 NVIDIA，而压缩包的校验和却要从它读取。请使用 NVIDIA 的 https:// 地址，或者使用固定了此清单的下载来源表。</translation>
    </message>
    <message>
        <source>python-build-standalone&apos;s release %1 lists the SHA-256 %2 for %3, but tfsetup&apos;s sources catalog pins %4. Either the release was changed after the pin was recorded or the pin is wrong, so tfsetup will not use this file. Install Python %5 with the system&apos;s package manager, or update tfsetup and try again.</source>
        <translation>python-build-standalone 的发布 %1 为 %3 列出的 SHA-256 是 %2，而 tfsetup 的下载来源表固定的是 %4。要么该发布在记录固定值之后被改动过，要么固定值有误，因此 tfsetup 不会使用这个文件。请用系统的包管理器安装 Python %5，或更新 tfsetup 后重试。</translation>
    </message>
    <message>
        <source>SHA-256 pinned in tfsetup&apos;s sources catalog (%1) and confirmed by the release&apos;s SHA256SUMS.</source>
        <translation>SHA-256 固定在 tfsetup 的下载来源表中（%1），并已由该发布的 SHA256SUMS 确认。</translation>
    </message>
    <message>
        <source>SHA-256 pinned in tfsetup&apos;s sources catalog (%1); the release&apos;s SHA256SUMS could not be read to compare (%2).</source>
        <translation>SHA-256 固定在 tfsetup 的下载来源表中（%1）；无法读取该发布的 SHA256SUMS 进行比对（%2）。</translation>
    </message>
    <message>
        <source>cuDNN %1 for %2 is built for CUDA %3, not for CUDA %4 of this plan, so TensorFlow could not load it. Choose the cuDNN that goes with CUDA %4.</source>
        <translation>cuDNN %1（%2）是为 CUDA %3 构建的，而不是为此方案的 CUDA %4 构建的，所以 TensorFlow 无法加载它。请选择与 CUDA %4 配套的 cuDNN。</translation>
    </message>
</context>
<context>
    <name>Bundle</name>
    <message>
        <source>Cannot write %1. Check that the bundle folder is writable and has free space.</source>
        <translation>无法写入 %1。请检查离线包文件夹是否可写、是否还有剩余空间。</translation>
    </message>
    <message>
        <source>Checking the bundle was cancelled.</source>
        <translation>离线包检查已取消。</translation>
    </message>
    <message>
        <source>These files in the bundle do not match their checksums and were not used: %1. Copy the bundle again from the machine that wrote it.</source>
        <translation>离线包中的以下文件与其校验和不符，未被使用：%1。请从生成该离线包的计算机上重新复制。</translation>
    </message>
    <message>
        <source>These files are missing from the bundle: %1. Copy the whole bundle folder.</source>
        <translation>离线包中缺少以下文件：%1。请复制整个离线包文件夹。</translation>
    </message>
    <message>
        <source>must be %1 hexadecimal digits</source>
        <translation>必须是 %1 位十六进制数字</translation>
    </message>
    <message>
        <source>must be a plain name (no slashes, not &quot;.&quot; or &quot;..&quot;, not starting with a dot)</source>
        <translation>必须是一个普通名称（不含斜杠，不是“.”或“..”，不以点开头）</translation>
    </message>
    <message>
        <source>must be a path inside the bundle folder</source>
        <translation>必须是离线包文件夹内的路径</translation>
    </message>
    <message>
        <source>The bundle description</source>
        <translation>离线包描述文件</translation>
    </message>
    <message>
        <source>The bundle description %1</source>
        <translation>离线包描述文件 %1</translation>
    </message>
    <message>
        <source>has neither a SHA-256 nor an MD5 checksum</source>
        <translation>既没有 SHA-256 也没有 MD5 校验和</translation>
    </message>
    <message>
        <source>lists no file</source>
        <translation>没有列出任何文件</translation>
    </message>
    <message>
        <source>is listed twice</source>
        <translation>被列出了两次</translation>
    </message>
    <message>
        <source>has no files in &quot;files&quot;</source>
        <translation>在“files”中没有任何文件</translation>
    </message>
    <message>
        <source>has no entry in &quot;files&quot;</source>
        <translation>在“files”中没有对应条目</translation>
    </message>
    <message>
        <source>has another checksum than its entry in &quot;files&quot;</source>
        <translation>的校验和与其在“files”中的条目不同</translation>
    </message>
    <message>
        <source>differs from its entry in &quot;files&quot;</source>
        <translation>与其在“files”中的条目不一致</translation>
    </message>
    <message>
        <source>The offline bundle folder %1 does not exist. Choose the folder that tfsetup bundle wrote (the one that holds bundle.json).</source>
        <translation>离线包文件夹 %1 不存在。请选择 tfsetup bundle 写出的文件夹（包含 bundle.json 的那个）。</translation>
    </message>
    <message>
        <source>The folder %1 is empty, so it is not an offline bundle. Make one with tfsetup bundle --out FOLDER on a computer with internet, copy the whole folder here and choose it.</source>
        <translation>文件夹 %1 是空的，所以不是离线包。请在能上网的电脑上用 tfsetup bundle --out 文件夹 制作一个，把整个文件夹复制到这里再选择它。</translation>
    </message>
    <message>
        <source>The folder %1 is not an offline bundle: it has no bundle.json. Make one with tfsetup bundle --out FOLDER on a computer with internet, or choose the folder that tfsetup bundle wrote.</source>
        <translation>文件夹 %1 不是离线包：其中没有 bundle.json。请在能上网的电脑上用 tfsetup bundle --out 文件夹 制作一个，或选择 tfsetup bundle 写出的文件夹。</translation>
    </message>
    <message>
        <source>Make the bundle again with tfsetup bundle, or copy the whole folder again from the computer that made it.</source>
        <translation>请用 tfsetup bundle 重新制作离线包，或从制作它的电脑重新复制整个文件夹。</translation>
    </message>
    <message>
        <source>%1 is damaged: it is not valid JSON (%2). %3</source>
        <translation>%1 已损坏：不是有效的 JSON（%2）。%3</translation>
    </message>
    <message>
        <source>is not &quot;%1&quot;</source>
        <translation>不是“%1”</translation>
    </message>
    <message>
        <source>is not %1, the only one this tfsetup reads (the bundle comes from another tfsetup version)</source>
        <translation>不是 %1，而这个 tfsetup 只能读取该版本（离线包来自另一个 tfsetup 版本）</translation>
    </message>
    <message>
        <source>no TensorFlow</source>
        <translation>无 TensorFlow</translation>
    </message>
    <message>
        <source>TensorFlow %1</source>
        <translation>TensorFlow %1</translation>
    </message>
    <message>
        <source>%1 (route %2, %3)</source>
        <translation>%1（路线 %2，%3）</translation>
    </message>
    <message>
        <source>%1 for Python %2 (route %3, %4)</source>
        <translation>%1，Python %2（路线 %3，%4）</translation>
    </message>
    <message>
        <source>The offline bundle %1 was made for %2, but the plan chosen is %3. Choose the plan the bundle was made for, or make a bundle for this plan with tfsetup bundle on a computer with internet.</source>
        <translation>离线包 %1 是为 %2 制作的，但所选方案是 %3。请选择离线包对应的方案，或在能上网的电脑上用 tfsetup bundle 为此方案制作离线包。</translation>
    </message>
    <message>
        <source>has more than one entry in &quot;files&quot;</source>
        <translation>在“files”中出现了不止一次</translation>
    </message>
    <message>
        <source>%1 is damaged: %2 %3</source>
        <translation>%1 已损坏：%2 %3</translation>
    </message>
</context>
<context>
    <name>BundleWriter</name>
    <message>
        <source>Cannot create the bundle folder %1.</source>
        <translation>无法创建离线包文件夹 %1。</translation>
    </message>
    <message>
        <source>The artifact %1 has an unsafe path.</source>
        <translation>文件 %1 的路径不安全。</translation>
    </message>
    <message>
        <source>No official checksum exists for %1. Nothing was downloaded. If you accept these files as they are served now, run again with --trust-on-first-use; their checksums will be recorded in the bundle.</source>
        <translation>%1 没有官方校验和。没有下载任何内容。如果你接受这些文件当前提供的样子，请加上 --trust-on-first-use 重新运行；它们的校验和会被记录到离线包中。</translation>
    </message>
    <message>
        <source>Trusted on first use: no published checksum exists; this SHA-256 was recorded when the bundle was written.</source>
        <translation>首次使用时信任：没有公开发布的校验和；此 SHA-256 是在写入离线包时记录的。</translation>
    </message>
    <message>
        <source>No Python packages were chosen for the bundle, so it could not hold any. Check the requirements and the package index.</source>
        <translation>没有为离线包选出任何 Python 包，所以离线包中无法包含它们。请检查依赖要求和软件包索引。</translation>
    </message>
    <message>
        <source>The wheel %1 has an unsafe name.</source>
        <translation>wheel 文件 %1 的名称不安全。</translation>
    </message>
</context>
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
</context>
<context>
    <name>Catalog</name>
    <message>
        <source>The knowledge catalog file %1 is damaged. Reinstall tfsetup, or remove the catalog override you gave.</source>
        <translation>知识库文件 %1 已损坏。请重新安装 tfsetup，或去掉你指定的替代知识库。</translation>
    </message>
    <message>
        <source>The knowledge catalog file %1 was written for another version of tfsetup. Update tfsetup.</source>
        <translation>知识库文件 %1 是为另一个版本的 tfsetup 编写的。请更新 tfsetup。</translation>
    </message>
    <message>
        <source>The knowledge catalog file %1 cannot be read. Reinstall tfsetup, or check the catalog folder you gave.</source>
        <translation>无法读取知识库文件 %1。请重新安装 tfsetup，或检查你指定的知识库文件夹。</translation>
    </message>
</context>
<context>
    <name>CatalogKeys</name>
    <message>
        <source>must be %1 lower-case hexadecimal digits</source>
        <translation>必须是 %1 位小写十六进制数字</translation>
    </message>
    <message>
        <source>This is not an Ed25519 public key. Give the lab&apos;s public key as a PEM file (openssl pkey -in KEY -pubout -out lab-public.pem) or as the 64 hexadecimal digits that &quot;sign_catalog.py --key KEY --print-public-key&quot; prints.</source>
        <translation>这不是 Ed25519 公钥。请提供实验室公钥的 PEM 文件（openssl pkey -in KEY -pubout -out lab-public.pem），或 &quot;sign_catalog.py --key KEY --print-public-key&quot; 打印的 64 位十六进制数字。</translation>
    </message>
    <message>
        <source>This file holds a private key. Never copy the lab&apos;s private key to the machines: give its public half, made with &quot;openssl pkey -in KEY -pubout -out lab-public.pem&quot;.</source>
        <translation>这个文件里是私钥。切勿把实验室的私钥复制到各台机器上：请提供它的公钥部分，可用 &quot;openssl pkey -in KEY -pubout -out lab-public.pem&quot; 生成。</translation>
    </message>
    <message>
        <source>An Ed25519 public key has 32 bytes.</source>
        <translation>Ed25519 公钥的长度是 32 字节。</translation>
    </message>
    <message>
        <source>The lab key could not be recorded in %1, where every account of this computer reads it. Run the command again as an administrator (&quot;Run as administrator&quot;).</source>
        <translation>无法把实验室密钥记录到 %1（这台电脑的所有账户都从那里读取）。请以管理员身份（“以管理员身份运行”）重新运行这条命令。</translation>
    </message>
    <message>
        <source>The lab key could not be recorded in %1, where every account of this computer reads it. Run the command again as an administrator, with sudo.</source>
        <translation>无法把实验室密钥记录到 %1（这台电脑的所有账户都从那里读取）。请用 sudo 以管理员身份重新运行这条命令。</translation>
    </message>
    <message>
        <source>Lab key</source>
        <translation>实验室密钥</translation>
    </message>
    <message>
        <source>No lab key with the id %1 is trusted on this computer; nothing was removed. &quot;tfsetup catalog status&quot; lists the trusted keys.</source>
        <translation>这台电脑没有信任 ID 为 %1 的实验室密钥；没有删除任何内容。&quot;tfsetup catalog status&quot; 会列出受信任的密钥。</translation>
    </message>
    <message>
        <source>%1 is not a key record tfsetup wrote, so it was left as it is. Remove it by hand if it does not belong there.</source>
        <translation>%1 不是 tfsetup 写入的密钥记录，因此保持原样。如果它不该在那里，请手动删除。</translation>
    </message>
    <message>
        <source>The lab key %1 could not be removed from %2. Run the command again as an administrator (&quot;Run as administrator&quot;).</source>
        <translation>无法从 %2 删除实验室密钥 %1。请以管理员身份（“以管理员身份运行”）重新运行这条命令。</translation>
    </message>
    <message>
        <source>The lab key %1 could not be removed from %2. Run the command again as an administrator, with sudo.</source>
        <translation>无法从 %2 删除实验室密钥 %1。请用 sudo 以管理员身份重新运行这条命令。</translation>
    </message>
</context>
<context>
    <name>CatalogUpdates</name>
    <message>
        <source>must be &quot;%1&quot;</source>
        <translation>必须是“%1”</translation>
    </message>
    <message>
        <source>must be a date written YYYY-MM-DD</source>
        <translation>必须是 YYYY-MM-DD 格式的日期</translation>
    </message>
    <message>
        <source>The catalog update %1 is refused: its file %2 cannot be used (%3). tfsetup keeps using the catalog it has. Ask whoever published the update for a corrected one.</source>
        <translation>知识库更新 %1 被拒绝：其中的文件 %2 无法使用（%3）。tfsetup 继续使用现有的知识库。请向发布该更新的人索取更正后的版本。</translation>
    </message>
    <message>
        <source>it is not a JSON object</source>
        <translation>不是 JSON 对象</translation>
    </message>
    <message>
        <source>The catalog update %1 is refused: its version %2 is older than the catalog tfsetup already has (version %3), and an older catalog is never installed over a newer one. Nothing was changed; ask for the current update if you expected a newer one.</source>
        <translation>知识库更新 %1 被拒绝：它的版本 %2 比 tfsetup 已有的知识库（版本 %3）更旧，较旧的知识库永远不会覆盖较新的知识库。没有做任何更改；如果你期待更新的版本，请获取最新的更新。</translation>
    </message>
    <message>
        <source>tfsetup keeps using the catalog it has. Download the update again: it may have been cut off or changed on the way.</source>
        <translation>tfsetup 继续使用现有的知识库。请重新下载该更新：它可能在传输中被截断或篡改。</translation>
    </message>
    <message>
        <source>The catalog update %1 is refused: it is larger than %2 MB, far more than a catalog holds. Check that the address or file is a tfsetup catalog update.</source>
        <translation>知识库更新 %1 被拒绝：它大于 %2 MB，远超一个知识库应有的大小。请检查该地址或文件是否确实是 tfsetup 的知识库更新。</translation>
    </message>
    <message>
        <source>The catalog update %1 is refused: it is not a complete catalog update document. %2</source>
        <translation>知识库更新 %1 被拒绝：它不是完整的知识库更新文档。%2</translation>
    </message>
    <message>
        <source>The catalog update %1</source>
        <translation>知识库更新 %1</translation>
    </message>
    <message>
        <source>names a file &quot;%1&quot; that is not a catalog file name</source>
        <translation>提到了一个名为“%1”的文件，而这不是知识库文件名</translation>
    </message>
    <message>
        <source>lacks the file %1</source>
        <translation>缺少文件 %1</translation>
    </message>
    <message>
        <source>The catalog update %1 is refused: its signature does not match its contents, so it was changed after it was signed or damaged on the way. tfsetup keeps using the catalog it has. Download it again; if this repeats, tell whoever runs the mirror.</source>
        <translation>知识库更新 %1 被拒绝：它的签名与内容不符，说明它在签名后被修改过，或在传输中损坏。tfsetup 继续使用现有的知识库。请重新下载；如果反复出现，请告知镜像的管理者。</translation>
    </message>
    <message>
        <source>No catalog update is installed.</source>
        <translation>未安装知识库更新。</translation>
    </message>
    <message>
        <source>The installed catalog update</source>
        <translation>已安装的知识库更新</translation>
    </message>
    <message>
        <source>The installed catalog update cannot be read: %1 Run &quot;tfsetup catalog update&quot; to install it again.</source>
        <translation>无法读取已安装的知识库更新：%1 请运行“tfsetup catalog update”重新安装。</translation>
    </message>
    <message>
        <source>The installed catalog update (version %1) is not newer than the catalog built into this tfsetup (version %2), so the built-in one is used.</source>
        <translation>已安装的知识库更新（版本 %1）并不比 tfsetup 内置的知识库（版本 %2）新，所以使用内置知识库。</translation>
    </message>
    <message>
        <source>The catalog update could not be stored in %1. Check that the folder is writable and the disk is not full, then try again; tfsetup keeps using the catalog it has.</source>
        <translation>知识库更新无法保存到 %1。请检查该文件夹是否可写、磁盘是否已满，然后重试；tfsetup 继续使用现有的知识库。</translation>
    </message>
    <message>
        <source>No address for catalog updates is known. Give one with --from (your lab&apos;s mirror or a downloaded file).</source>
        <translation>不知道从哪里获取知识库更新。请用 --from 指定一个地址（你所在实验室的镜像或已下载的文件）。</translation>
    </message>
    <message>
        <source>The catalog update %1 is refused: it is larger than %2 MB, far more than a catalog holds. Check that the address is a tfsetup catalog update.</source>
        <translation>知识库更新 %1 被拒绝：它大于 %2 MB，远超一个知识库应有的大小。请检查该地址是否确实是 tfsetup 的知识库更新。</translation>
    </message>
    <message>
        <source>The catalog update file</source>
        <translation>知识库更新文件</translation>
    </message>
    <message>
        <source>Cannot use the catalog update: %1</source>
        <translation>无法使用知识库更新：%1</translation>
    </message>
    <message>
        <source>The catalog update %1 is refused: it is signed with the key %2, which this computer does not trust. tfsetup keeps using the catalog it has. If it is your lab&apos;s catalog, ask your lab administrator to run &quot;tfsetup catalog trust&quot; with the lab&apos;s public key on this computer; otherwise take updates only from tfsetup&apos;s releases or a mirror that copies them unchanged.</source>
        <translation>已拒绝知识库更新 %1：它由密钥 %2 签名，而这台电脑不信任该密钥。tfsetup 继续使用现有的知识库。如果这是你们实验室的知识库，请让实验室管理员在这台电脑上用实验室公钥运行 &quot;tfsetup catalog trust&quot;；否则请只从 tfsetup 的发布页面或原样复制它的镜像获取更新。</translation>
    </message>
    <message>
        <source>signed with key %1, trusted keys %2</source>
        <translation>签名密钥 %1，受信任的密钥 %2</translation>
    </message>
</context>
<context>
    <name>CauseRegistry</name>
    <message>
        <source>The list of causes the doctor knows (%1) cannot be read. Reinstall tfsetup.</source>
        <translation>无法读取医生所知的原因列表（%1）。请重新安装 tfsetup。</translation>
    </message>
    <message>
        <source>Reinstall tfsetup.</source>
        <translation>请重新安装 tfsetup。</translation>
    </message>
    <message>
        <source>The list of causes the doctor knows is damaged. Reinstall tfsetup.</source>
        <translation>医生所知的原因列表已损坏。请重新安装 tfsetup。</translation>
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
    <name>CleanReport</name>
    <message numerus="yes">
        <source>Would free %1: %n cached download(s)</source>
        <translation>
            <numerusform>将释放 %1：%n 个缓存的下载文件</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Freed %1: %n cached download(s)</source>
        <translation>
            <numerusform>已释放 %1：%n 个缓存的下载文件</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>and %n old log(s).</source>
        <translation>
            <numerusform>以及 %n 个旧日志。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Kept %n old download(s) that an environment or an offline bundle still needs.</source>
        <translation>
            <numerusform>保留了 %n 个仍被某个环境或离线包需要的旧下载文件。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Kept %n download(s) another tfsetup is using right now.</source>
        <translation>
            <numerusform>保留了 %n 个另一个 tfsetup 正在使用的下载文件。</numerusform>
        </translation>
    </message>
    <message>
        <source>The download cache now holds %1.</source>
        <translation>下载缓存现在占用 %1。</translation>
    </message>
    <message numerus="yes">
        <source>Would keep %n old download(s) that an environment or an offline bundle still needs.</source>
        <translation>
            <numerusform>将保留 %n 个仍被某个环境或离线包需要的旧下载文件。</numerusform>
        </translation>
    </message>
    <message>
        <source>The download cache would then hold %1 (nothing was removed: this was a dry run).</source>
        <translation>届时下载缓存将占用 %1（这是一次试运行，没有删除任何内容）。</translation>
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
        <source>Open the setup wizard.</source>
        <translation>打开安装向导。</translation>
    </message>
    <message>
        <source>Write the bundle into folder DIR.</source>
        <translation>将离线包写入文件夹 DIR。</translation>
    </message>
    <message>
        <source>Only check the bundle in DIR: every file against its checksum.</source>
        <translation>只检查 DIR 中的离线包：逐一核对每个文件的校验和。</translation>
    </message>
    <message>
        <source>Accept files for which no official checksum exists as they are served now, and record their checksums in the bundle.</source>
        <translation>对于没有官方校验和的文件，接受其当前提供的样子，并将其校验和记录到离线包中。</translation>
    </message>
    <message>
        <source>All %1 files of the bundle match their checksums.
</source>
        <translation>离线包中的全部 %1 个文件都与其校验和相符。
</translation>
    </message>
    <message>
        <source>warning: %1</source>
        <translation>警告：%1</translation>
    </message>
    <message>
        <source>Wrote %1 files to %2
</source>
        <translation>已将 %1 个文件写入 %2
</translation>
    </message>
    <message>
        <source>Open the setup wizard (the default), also over a --root folder</source>
        <translation>打开安装向导（默认），也可用于 --root 文件夹</translation>
    </message>
    <message>
        <source>Install an environment as a lab profile describes it, without questions</source>
        <translation>按照实验室配置文件的描述安装环境，无需回答任何问题</translation>
    </message>
    <message>
        <source>Prove an environment works: load its GPU libraries, then compute on the GPU</source>
        <translation>验证环境是否可用：加载其 GPU 库，然后在 GPU 上进行计算</translation>
    </message>
    <message>
        <source>List the official files of a plan with their checksums (mirrors, lab servers)</source>
        <translation>列出某个方案的官方文件及其校验和（用于镜像、实验室服务器）</translation>
    </message>
    <message>
        <source>Write an offline bundle of a plan&apos;s files for machines without internet</source>
        <translation>为没有网络的计算机生成包含某个方案所需文件的离线包</translation>
    </message>
    <message>
        <source>Explain why TensorFlow does not use the GPU, from this machine and a log</source>
        <translation>根据本机情况和日志，解释 TensorFlow 为什么没有使用 GPU</translation>
    </message>
    <message>
        <source>Repair an environment: restore damaged or moved files, launchers and kernel, then verify</source>
        <translation>修复环境：恢复损坏或被移动的文件、启动脚本和内核，然后进行验证</translation>
    </message>
    <message>
        <source>The TensorFlow VERSION meant to run, when no --env says it (&quot;2.10&quot;).</source>
        <translation>当没有 --env 指明时，要运行的 TensorFlow VERSION（如 &quot;2.10&quot;）。</translation>
    </message>
    <message>
        <source>The environment is meant to run on the CPU: GPU messages are only explained.</source>
        <translation>该环境设计为在 CPU 上运行：GPU 相关消息仅作解释。</translation>
    </message>
    <message>
        <source>Read a TensorFlow log or traceback from FILE (&quot;-&quot; reads it from the input) and name its causes.</source>
        <translation>从 FILE 读取 TensorFlow 日志或错误回溯（&quot;-&quot; 表示从标准输入读取），并指出其原因。</translation>
    </message>
    <message>
        <source>Also write a report to FILE with your user name and home folder masked, in your language and in English, ready to paste into a chat or an issue.</source>
        <translation>同时将报告写入 FILE，其中你的用户名和主文件夹会被隐去；报告包含你的语言和英文两个版本，可直接粘贴到聊天或 issue 中。</translation>
    </message>
    <message>
        <source>Print the findings as one JSON document.</source>
        <translation>以单个 JSON 文档输出发现的问题。</translation>
    </message>
    <message>
        <source>Find out why TensorFlow does not use the GPU: check the machine, an environment and a log, and say what to do.</source>
        <translation>找出 TensorFlow 没有使用 GPU 的原因：检查本机、环境和日志，并说明该怎么做。</translation>
    </message>
    <message>
        <source>The environment folder %1 does not exist. Give the folder that holds the environment&apos;s python.</source>
        <translation>环境文件夹 %1 不存在。请指定存放该环境 python 的文件夹。</translation>
    </message>
    <message>
        <source>Install what the lab profile FILE describes.</source>
        <translation>安装实验室配置文件 FILE 所描述的环境。</translation>
    </message>
    <message>
        <source>Do not ask: install now (for unattended roll-outs).</source>
        <translation>不询问，立即安装（用于无人值守的批量部署）。</translation>
    </message>
    <message>
        <source>Put the environment in DIR instead of the profile&apos;s folder.</source>
        <translation>将环境放在 DIR 中，而不是配置文件指定的文件夹中。</translation>
    </message>
    <message>
        <source>Use only the files of the bundle given with --from; no network.</source>
        <translation>只使用 --from 指定的离线包中的文件；不使用网络。</translation>
    </message>
    <message>
        <source>The offline bundle folder (with artifacts.json).</source>
        <translation>离线包文件夹（包含 artifacts.json）。</translation>
    </message>
    <message>
        <source>Print the result as one JSON document.</source>
        <translation>以单个 JSON 文档输出结果。</translation>
    </message>
    <message>
        <source>Install a TensorFlow environment without questions, as a lab profile describes it.</source>
        <translation>按照实验室配置文件的描述安装 TensorFlow 环境，无需回答任何问题。</translation>
    </message>
    <message>
        <source>Give the lab profile with --profile FILE. Without one, start tfsetup without a command to use the wizard.</source>
        <translation>请用 --profile FILE 指定实验室配置文件。如果没有配置文件，请不带命令启动 tfsetup 以使用向导。</translation>
    </message>
    <message>
        <source>--offline and --from BUNDLE go together.</source>
        <translation>--offline 和 --from BUNDLE 需要一起使用。</translation>
    </message>
    <message>
        <source>This would install &quot;%1&quot; (TensorFlow %2, %3) into %4.
Run again with --yes to install.
</source>
        <translation>将会把“%1”（TensorFlow %2，%3）安装到 %4。
加上 --yes 重新运行即可安装。
</translation>
    </message>
    <message>
        <source>The environment %1 was already complete; nothing changed.
</source>
        <translation>环境 %1 已经是完整的，未做任何更改。
</translation>
    </message>
    <message>
        <source>Installed %1.
</source>
        <translation>已安装 %1。
</translation>
    </message>
    <message>
        <source>Start it with:
</source>
        <translation>启动方式：
</translation>
    </message>
    <message>
        <source>The environment folder to repair (the one holding environment.json).</source>
        <translation>要修复的环境文件夹（包含 environment.json 的那个）。</translation>
    </message>
    <message>
        <source>Only say what would be repaired; change and download nothing.</source>
        <translation>只说明会修复哪些内容；不做任何更改，也不下载任何内容。</translation>
    </message>
    <message>
        <source>A TensorFlow log or traceback (FILE): the doctor reads it and repair acts on what applies to the environment.</source>
        <translation>TensorFlow 日志或错误回溯（FILE）：doctor 会读取它，repair 会处理其中与该环境相关的问题。</translation>
    </message>
    <message>
        <source>Do not run verify after the repair.</source>
        <translation>修复后不运行 verify。</translation>
    </message>
    <message>
        <source>The library probe to use (default: beside tfsetup).</source>
        <translation>要使用的库探测程序（默认：tfsetup 所在位置的那个）。</translation>
    </message>
    <message>
        <source>Repair an environment: check every installed file against environment.json, take back what is missing or damaged from NVIDIA&apos;s archives, move misplaced files back, write the launchers and the Jupyter kernel again, then verify.</source>
        <translation>修复环境：根据 environment.json 检查每个已安装的文件，从 NVIDIA 的压缩包中重新取回缺失或损坏的文件，把放错位置的文件移回原处，重新写入启动脚本和 Jupyter 内核，然后进行验证。</translation>
    </message>
    <message>
        <source>Give the environment to repair with --env DIR. &quot;tfsetup wizard&quot; finds them for you.</source>
        <translation>请用 --env DIR 指定要修复的环境。“tfsetup wizard”可以帮你找到它们。</translation>
    </message>
    <message>
        <source>Resolve the plan in FILE (the output of tfsetup plan --json).</source>
        <translation>解析 FILE 中的方案（tfsetup plan --json 的输出）。</translation>
    </message>
    <message>
        <source>Without --plan: the TensorFlow VERSION (&quot;2.10&quot;).</source>
        <translation>不使用 --plan 时：TensorFlow 版本 VERSION（如 &quot;2.10&quot;）。</translation>
    </message>
    <message>
        <source>Without --plan: the target system, windows or linux.</source>
        <translation>未指定 --plan 时：目标系统，windows 或 linux。</translation>
    </message>
    <message>
        <source>Without --plan: the ROUTE (windows-native, linux-toolkit, linux-pip, …).</source>
        <translation>不使用 --plan 时：指定 ROUTE 路线（windows-native、linux-toolkit、linux-pip 等）。</translation>
    </message>
    <message>
        <source>Without --plan: a Python VERSION to install as well (&quot;3.10&quot;).</source>
        <translation>不使用 --plan 时：同时安装的 Python 版本 VERSION（如 &quot;3.10&quot;）。</translation>
    </message>
    <message>
        <source>Fetch from this mirror first: a URL or folder laid out like NVIDIA&apos;s server, or python=URL, pypi=URL or a PyPI preset (pypi=tuna). May be repeated.</source>
        <translation>优先从此镜像下载：可以是目录结构与 NVIDIA 服务器相同的 URL 或文件夹，也可以是 python=URL、pypi=URL 或 PyPI 预设（pypi=tuna）。可多次指定。</translation>
    </message>
    <message>
        <source>redist: portable archives, no administrator rights (default); installer: NVIDIA&apos;s full installer, with nvcc, needs administrator rights.</source>
        <translation>redist：便携压缩包，不需要管理员权限（默认）；installer：NVIDIA 的完整安装程序，包含 nvcc，需要管理员权限。</translation>
    </message>
    <message>
        <source>Also list optional parts (CUPTI for the profiler).</source>
        <translation>同时列出可选组件（用于性能分析器的 CUPTI）。</translation>
    </message>
    <message>
        <source>Treat URL as the official server of ORIGIN (nvidia, python, pypi), for labs that re-host it under the same layout.</source>
        <translation>把 URL 当作 ORIGIN（nvidia、python、pypi）的官方服务器，适用于按相同目录结构重新托管这些文件的实验室。</translation>
    </message>
    <message>
        <source>Also trust the certificates in this PEM file.</source>
        <translation>同时信任此 PEM 文件中的证书。</translation>
    </message>
    <message>
        <source>Cannot read the plan file %1.</source>
        <translation>无法读取方案文件 %1。</translation>
    </message>
    <message>
        <source>TensorFlow %1 is not in the tested configurations for %2.</source>
        <translation>TensorFlow %1 不在 %2 的官方测试配置中。</translation>
    </message>
    <message>
        <source>--cuda-from takes redist or installer.</source>
        <translation>--cuda-from 的取值为 redist 或 installer。</translation>
    </message>
    <message>
        <source>--origin takes ORIGIN=URL, for example nvidia=https://lab.example/nvidia.</source>
        <translation>--origin 的格式为 ORIGIN=URL，例如 nvidia=https://lab.example/nvidia。</translation>
    </message>
    <message>
        <source>Print the artifact list as one JSON document.</source>
        <translation>以单个 JSON 文档输出文件列表。</translation>
    </message>
    <message>
        <source>List the exact official files a plan needs, each with the checksum that will be accepted, and where they are fetched from.</source>
        <translation>列出某个方案所需的确切官方文件，以及每个文件会被接受的校验和和下载来源。</translation>
    </message>
    <message>
        <source>The environment folder to verify (the one holding environment.json).</source>
        <translation>要验证的环境文件夹（包含 environment.json 的那个）。</translation>
    </message>
    <message>
        <source>Run Python through FILE (the environment&apos;s start-python launcher) instead of the one the environment names.</source>
        <translation>通过 FILE（该环境的 start-python 启动脚本）运行 Python，而不是使用环境中指定的 Python。</translation>
    </message>
    <message>
        <source>The TensorFlow version to check for, when the environment does not say.</source>
        <translation>环境中未注明时，要检查的 TensorFlow 版本。</translation>
    </message>
    <message>
        <source>Whose library names to load: windows or linux.</source>
        <translation>按哪个系统的库文件名加载：windows 或 linux。</translation>
    </message>
    <message>
        <source>The CUDA version TensorFlow was built with.</source>
        <translation>构建 TensorFlow 时所用的 CUDA 版本。</translation>
    </message>
    <message>
        <source>The cuDNN version TensorFlow was built with.</source>
        <translation>构建 TensorFlow 时所用的 cuDNN 版本。</translation>
    </message>
    <message>
        <source>A folder that holds the environment&apos;s own copies of the libraries (repeatable).</source>
        <translation>存放该环境自带库副本的文件夹（可多次指定）。</translation>
    </message>
    <message>
        <source>The environment is meant to run on the processor.</source>
        <translation>该环境预期在处理器（CPU）上运行。</translation>
    </message>
    <message>
        <source>Prove that an environment works: load every GPU library TensorFlow will load, then import TensorFlow and compute on the GPU. Names the first step that fails and what to do.</source>
        <translation>证明环境可以正常工作：加载 TensorFlow 会加载的每个 GPU 库，然后导入 TensorFlow 并在 GPU 上进行计算。如有失败，会指出第一个失败的步骤以及解决办法。</translation>
    </message>
    <message>
        <source>Give --env DIR, or say what to check with --launcher FILE and --tf VERSION.</source>
        <translation>请提供 --env DIR，或者用 --launcher FILE 和 --tf VERSION 指定要检查的内容。</translation>
    </message>
    <message>
        <source>Use this language (%1) instead of the system&apos;s.</source>
        <translation>使用此语言（%1），而不是系统语言。</translation>
    </message>
    <message>
        <source>Download into DIR and keep verified files there; many machines may share one folder (each file is fetched once).</source>
        <translation>下载到 DIR 并在那里保留已校验的文件；多台机器可以共用一个文件夹（每个文件只下载一次）。</translation>
    </message>
    <message>
        <source>tfsetup: there is no translation &quot;%1&quot;. Choose one of: %2.</source>
        <translation>tfsetup：没有“%1”的翻译。请从以下选项中选择：%2。</translation>
    </message>
    <message>
        <source>tfsetup: the wizard needs a graphical display, and there is none here (DISPLAY and WAYLAND_DISPLAY are unset). Start it on the desktop, or use the commands listed by &quot;tfsetup --help&quot;, for example &quot;tfsetup detect&quot;.</source>
        <translation>tfsetup：安装向导需要图形界面，而这里没有（DISPLAY 和 WAYLAND_DISPLAY 均未设置）。请在桌面上启动它，或者使用“tfsetup --help”列出的命令，例如“tfsetup detect”。</translation>
    </message>
    <message>
        <source>The Jupyter front end whose wheels join the kernel&apos;s: lab (default), notebook, server or none.</source>
        <translation>与内核一起下载其 wheel 的 Jupyter 前端：lab（默认）、notebook、server 或 none。</translation>
    </message>
    <message>
        <source>The hardware file</source>
        <translation>硬件文件</translation>
    </message>
    <message>
        <source>Cannot use the hardware file %1: %2 Give the output of tfsetup detect --json.</source>
        <translation>无法使用硬件文件 %1：%2 请提供 tfsetup detect --json 的输出。</translation>
    </message>
    <message>
        <source>The hardware file %1</source>
        <translation>硬件文件 %1</translation>
    </message>
    <message>
        <source>The plan file</source>
        <translation>方案文件</translation>
    </message>
    <message>
        <source>Where the log comes from: &quot;this&quot; computer, an &quot;other&quot; one, or &quot;auto&quot; (the default: a log that shows another machine is read as that machine&apos;s).</source>
        <translation>日志来自哪里：“this”（这台电脑）、“other”（另一台）或“auto”（默认：显示出另一台机器的日志按那台机器来读）。</translation>
    </message>
    <message>
        <source>Check the machine described in FILE (the output of tfsetup detect --json there) instead of this one, for example the computer a log comes from.</source>
        <translation>检查 FILE 所描述的机器（在那台机器上运行 tfsetup detect --json 的输出），而不是这台，例如日志所来自的电脑。</translation>
    </message>
    <message>
        <source>--log-from takes &quot;this&quot;, &quot;other&quot; or &quot;auto&quot;, not &quot;%1&quot;.</source>
        <translation>--log-from 只接受“this”、“other”或“auto”，而不是“%1”。</translation>
    </message>
    <message>
        <source>Drop a mirror that stays below BYTES per second (k, M: KiB, MiB) for SECONDS and go on from the next one, keeping what arrived; default %1:%2, 0 turns it off.</source>
        <translation>镜像速度在 SECONDS 秒内一直低于每秒 BYTES 字节（可用 k、M 表示 KiB、MiB）时放弃它，保留已下载的部分，从下一个来源继续；默认 %1:%2，0 表示关闭。</translation>
    </message>
    <message>
        <source>Not every place this setup downloads from could be reached. Each origin above says why and what to do: set --proxy, choose a mirror (--mirror pypi=%1), or use an offline bundle.</source>
        <translation>这次安装需要的下载来源并非都能连上。上面每个来源都写明了原因和办法：设置 --proxy，选择镜像（--mirror pypi=%1），或使用离线包。</translation>
    </message>
    <message>
        <source>Instead of listing files, test whether PyPI (or the --mirror pypi=…), NVIDIA (or its mirror) and python.org answer, through --proxy, how fast, and rank the PyPI mirror presets. Exit status 0 when every place the setup needs answered.</source>
        <translation>不列出文件，而是通过 --proxy 测试 PyPI（或 --mirror pypi=…）、NVIDIA（或其镜像）和 python.org 是否响应、速度如何，并对 PyPI 预设镜像排序。安装所需的每个来源都响应时退出状态为 0。</translation>
    </message>
    <message>
        <source>Built-in catalog: version %1 of %2
</source>
        <translation>内置知识库：版本 %1，日期 %2
</translation>
    </message>
    <message>
        <source>Installed update: none
</source>
        <translation>已安装的更新：无
</translation>
    </message>
    <message>
        <source>Installed update: does not verify
</source>
        <translation>已安装的更新：验证未通过
</translation>
    </message>
    <message>
        <source>Not used: %1
</source>
        <translation>未使用：%1
</translation>
    </message>
    <message>
        <source>In use: the installed update
</source>
        <translation>正在使用：已安装的更新
</translation>
    </message>
    <message>
        <source>In use: the built-in catalog
</source>
        <translation>正在使用：内置知识库
</translation>
    </message>
    <message>
        <source>The catalog is up to date (version %1); nothing was changed.
</source>
        <translation>知识库已是最新（版本 %1）；没有做任何更改。
</translation>
    </message>
    <message>
        <source>Take the update from this address or file (a lab mirror, a downloaded copy) instead of tfsetup&apos;s release page.</source>
        <translation>从这个地址或文件获取更新（实验室镜像、已下载的副本），而不是从 tfsetup 的发布页面获取。</translation>
    </message>
    <message>
        <source>Show or update the knowledge catalog (TensorFlow&apos;s tested configurations, NVIDIA&apos;s tables, GPUs, sources). Updates are signed; one that does not verify, or is older than the catalog in use, is refused and the catalog in use stays.</source>
        <translation>显示或更新知识库（TensorFlow 测试过的配置、NVIDIA 的对照表、GPU、下载来源）。更新经过签名；验证不通过或比正在使用的知识库更旧的更新会被拒绝，并继续使用现有知识库。</translation>
    </message>
    <message>
        <source>tfsetup catalog status: --from, --proxy and --ca-bundle belong to &quot;catalog update&quot;.</source>
        <translation>tfsetup catalog status：--from、--proxy 和 --ca-bundle 属于“catalog update”。</translation>
    </message>
    <message>
        <source>%1 was installed, but its Jupyter kernel could not be registered, so notebooks will not find it. %2 Fix that and run the same install again; it only registers the kernel.</source>
        <translation>%1 已安装，但它的 Jupyter 内核无法注册，所以笔记本找不到它。%2 解决这个问题后再运行同样的安装；它只会注册内核。</translation>
    </message>
    <message>
        <source>Only say what would be removed and how much it frees.</source>
        <translation>只说明会删除什么、能释放多少空间。</translation>
    </message>
    <message>
        <source>Remove cached downloads not used for more than DAYS days (default 90; 0: all that nothing refers to).</source>
        <translation>删除超过 DAYS 天未使用的缓存下载文件（默认 90 天；0：删除所有不再被引用的文件）。</translation>
    </message>
    <message>
        <source>Then remove the oldest until the cache is at most SIZE (500M, 20G).</source>
        <translation>然后删除最旧的文件，直到缓存不超过 SIZE（如 500M、20G）。</translation>
    </message>
    <message>
        <source>The download cache to clean (default: the user&apos;s own).</source>
        <translation>要清理的下载缓存（默认：当前用户自己的缓存）。</translation>
    </message>
    <message>
        <source>Keep every file this offline bundle lists (repeatable).</source>
        <translation>保留此离线包列出的每个文件（可重复指定）。</translation>
    </message>
    <message>
        <source>Free disk space: prune the download cache by age and size, keeping every file an environment or an offline bundle still needs, and remove old run logs.</source>
        <translation>释放磁盘空间：按时间和大小清理下载缓存，保留环境或离线包仍需要的每个文件，并删除旧的运行日志。</translation>
    </message>
    <message>
        <source>--max-age takes a number of days, for example 30.</source>
        <translation>--max-age 需要一个天数，例如 30。</translation>
    </message>
    <message>
        <source>--max-size takes a size, for example 500M or 20G.</source>
        <translation>--max-size 需要一个大小，例如 500M 或 20G。</translation>
    </message>
    <message>
        <source>Upgrade an environment to the newest TensorFlow that fits this machine, keeping your files</source>
        <translation>将环境升级到适合本机的最新 TensorFlow，并保留你的文件</translation>
    </message>
    <message>
        <source>List the environments tfsetup made, their versions, size and last verify</source>
        <translation>列出 tfsetup 创建的环境及其版本、大小和最近一次验证</translation>
    </message>
    <message>
        <source>Remove an environment tfsetup made, with its launchers, kernel and menu entry</source>
        <translation>删除 tfsetup 创建的环境，连同其启动脚本、内核和菜单项</translation>
    </message>
    <message>
        <source>Free space: prune the download cache and old logs, keeping what is still needed</source>
        <translation>释放空间：清理下载缓存和旧日志，保留仍需要的文件</translation>
    </message>
    <message>
        <source>The NVIDIA GPUs the environment uses, by nvidia-smi&apos;s numbers in the order TensorFlow is to number them (0,2), or all, instead of the profile&apos;s &quot;gpus&quot; (default: those this TensorFlow runs on without a slow first start).</source>
        <translation>环境使用的 NVIDIA GPU：按 nvidia-smi 的编号，按 TensorFlow 要对它们编号的顺序列出（如 0,2），或 all；用于代替配置文件中的 &quot;gpus&quot;（默认：此 TensorFlow 无需缓慢首次启动即可运行的 GPU）。</translation>
    </message>
    <message>
        <source>Choose the GPUs from this report (tfsetup detect --json) instead of detecting this computer.</source>
        <translation>根据此报告（tfsetup detect --json 的输出）选择 GPU，而不检测本机。</translation>
    </message>
    <message>
        <source>The lab profile&apos;s &quot;gpus&quot;</source>
        <translation>实验室配置文件的 &quot;gpus&quot;</translation>
    </message>
    <message>
        <source>Also look in DIR, an environment or a folder of environments (repeatable).</source>
        <translation>同时在 DIR 中查找：一个环境或一个存放环境的文件夹（可重复指定）。</translation>
    </message>
    <message>
        <source>Look for newer TensorFlow releases for the machine described in FILE (the output of tfsetup detect --json) instead of this one.</source>
        <translation>为 FILE（tfsetup detect --json 的输出）所描述的计算机查找更新的 TensorFlow 版本，而不是本机。</translation>
    </message>
    <message>
        <source>Do not look for newer TensorFlow releases (no hardware detection).</source>
        <translation>不查找更新的 TensorFlow 版本（不检测硬件）。</translation>
    </message>
    <message>
        <source>List every environment tfsetup made: route, TensorFlow, Python, CUDA and cuDNN, size on disk, the last verify, and whether a newer TensorFlow fits this machine on the same route.</source>
        <translation>列出 tfsetup 创建的每个环境：路线、TensorFlow、Python、CUDA 和 cuDNN、磁盘占用、最近一次验证，以及同一路线上是否有适合本机的更新 TensorFlow。</translation>
    </message>
    <message>
        <source>The environment folder to remove (the one holding environment.json).</source>
        <translation>要删除的环境文件夹（包含 environment.json 的那个）。</translation>
    </message>
    <message>
        <source>Remove it; without --yes, only say what would be removed.</source>
        <translation>删除它；不加 --yes 时只说明会删除什么。</translation>
    </message>
    <message>
        <source>Remove an environment tfsetup made, with its launchers, Jupyter kernel and menu entry. Only files whose record proves tfsetup made them go; anything else in the folder is kept and named.</source>
        <translation>删除 tfsetup 创建的环境，连同其启动脚本、Jupyter 内核和菜单项。只删除记录能证明由 tfsetup 创建的文件；文件夹中的其他内容会保留并列出。</translation>
    </message>
    <message>
        <source>Give the environment to remove with --env DIR.</source>
        <translation>请用 --env DIR 指定要删除的环境。</translation>
    </message>
    <message>
        <source>Nothing was removed. Run again with --yes to remove it.</source>
        <translation>没有删除任何内容。加上 --yes 再运行一次即可删除。</translation>
    </message>
    <message>
        <source>The environment folder to upgrade (the one holding environment.json).</source>
        <translation>要升级的环境文件夹（包含 environment.json 的那个）。</translation>
    </message>
    <message>
        <source>Upgrade to TensorFlow VERSION (&quot;2.16&quot;) instead of the newest that fits this machine.</source>
        <translation>升级到 TensorFlow VERSION（如 &quot;2.16&quot;），而不是适合本机的最新版本。</translation>
    </message>
    <message>
        <source>Plan for the machine described in FILE (the output of tfsetup detect --json) instead of detecting this one.</source>
        <translation>为 FILE（tfsetup detect --json 的输出）所描述的计算机制定方案，而不检测本机。</translation>
    </message>
    <message>
        <source>Only say what the upgrade would do; change and download nothing.</source>
        <translation>只说明升级会做什么；不做任何更改，也不下载任何内容。</translation>
    </message>
    <message>
        <source>Do not ask: upgrade now.</source>
        <translation>不再询问：立即升级。</translation>
    </message>
    <message>
        <source>Do not run verify after the upgrade.</source>
        <translation>升级后不运行验证。</translation>
    </message>
    <message>
        <source>Upgrade an environment to the newest TensorFlow that runs on this machine on the same route. The new version is built beside the old one and switched in with your files kept; if anything fails, the old one stays as it was. Then the launchers and the Jupyter kernel are written again and the environment is verified.</source>
        <translation>将环境升级到本机在同一路线上能运行的最新 TensorFlow。新版本在旧版本旁边构建，完成后切换过来，并保留你的文件；如果任何一步失败，旧版本保持原样。然后重新写入启动脚本和 Jupyter 内核，并验证环境。</translation>
    </message>
    <message>
        <source>Give the environment to upgrade with --env DIR (tfsetup list shows them).</source>
        <translation>请用 --env DIR 指定要升级的环境（tfsetup list 会列出它们）。</translation>
    </message>
    <message>
        <source>%1 is as it was before.</source>
        <translation>%1 保持原样。</translation>
    </message>
    <message>
        <source>%1 was upgraded to TensorFlow %2, but it did not pass verification. tfsetup doctor --env %1 finds the cause.</source>
        <translation>%1 已升级到 TensorFlow %2，但未通过验证。运行 tfsetup doctor --env %1 可以找出原因。</translation>
    </message>
    <message>
        <source>Bundle what the lab profile FILE installs: its plan, its extra packages, its Jupyter front end, through its mirrors and proxy (the options here go on top).</source>
        <translation>打包实验室配置文件 FILE 所安装的内容：它的方案、额外的包和 Jupyter 前端，经由它的镜像和代理（此处的选项在其之上生效）。</translation>
    </message>
    <message>
        <source>Download into DIR and keep verified files there (default: the user&apos;s download cache).</source>
        <translation>下载到 DIR，并把经过验证的文件保存在那里（默认：用户的下载缓存）。</translation>
    </message>
    <message>
        <source>Leave out the Python packages.</source>
        <translation>不包含 Python 包。</translation>
    </message>
    <message>
        <source>The Python whose pip chooses the packages (default: python&lt;plan&apos;s version&gt;, else python3).</source>
        <translation>由其 pip 选择软件包的 Python（默认：python&lt;方案的版本&gt;，否则 python3）。</translation>
    </message>
    <message>
        <source>Choose wheels for this platform tag (win_amd64, manylinux2014_x86_64, …) instead of this machine&apos;s. May be repeated.</source>
        <translation>为此平台标签（win_amd64、manylinux2014_x86_64 等）而不是本机选择 wheel。可重复使用。</translation>
    </message>
    <message>
        <source>Write a folder with every file a plan needs, their checksums, the Python packages pip&apos;s resolver chose and their lock (pylock.toml), for machines without internet (install --offline --from DIR). Served by any web server, the folder is also a lab mirror.</source>
        <translation>写出一个文件夹，包含方案所需的每个文件、它们的校验和、pip 的解析器选出的 Python 包及其锁定文件（pylock.toml），供没有网络的电脑使用（install --offline --from DIR）。用任意 Web 服务器提供该文件夹，它也可作为实验室镜像。</translation>
    </message>
    <message>
        <source>Unknown Jupyter front end %1: use lab, notebook, server or none.</source>
        <translation>未知的 Jupyter 前端 %1：请使用 lab、notebook、server 或 none。</translation>
    </message>
    <message>
        <source>Give --out DIR (or --verify DIR).</source>
        <translation>请给出 --out DIR（或 --verify DIR）。</translation>
    </message>
    <message>
        <source>Fetch NVIDIA&apos;s files from this copy of NVIDIA&apos;s download tree first (URL or folder); pypi=URL or a PyPI preset (pypi=tuna) for the Python packages, asked in the order given. May be repeated.</source>
        <translation>先从 NVIDIA 下载目录的这个副本（网址或文件夹）获取 NVIDIA 的文件；pypi=网址 或 PyPI 预设（pypi=tuna）用于 Python 包，按给出的顺序尝试。可重复使用。</translation>
    </message>
    <message>
        <source>The folder with earlier downloads (default: tfsetup&apos;s download folder); the same as --cache.</source>
        <translation>存放之前下载文件的文件夹（默认：tfsetup 的下载文件夹）；与 --cache 相同。</translation>
    </message>
    <message>
        <source>A package index to take a damaged Python package&apos;s wheel from when the environment&apos;s lock names none that answers (the same as --mirror pypi=URL; may be repeated).</source>
        <translation>当环境的锁定文件中没有可用的来源时，从该软件包索引获取损坏的 Python 包的 wheel（与 --mirror pypi=网址 相同；可重复使用）。</translation>
    </message>
    <message>
        <source>With --root: open the wizard on this page (%1), for demonstrations and screenshots of a fixture machine.</source>
        <translation>与 --root 一起使用：直接在此页面（%1）打开向导，用于演示和为模拟测试机器截图。</translation>
    </message>
    <message>
        <source>tfsetup: --page needs --root and one of: %1.</source>
        <translation>tfsetup：--page 需要同时指定 --root，并取以下值之一：%1。</translation>
    </message>
    <message>
        <source>tfsetup %1: the command line is not complete or not valid; see tfsetup %1 --help.</source>
        <translation>tfsetup %1：命令行不完整或无效；请参阅 tfsetup %1 --help。</translation>
    </message>
    <message>
        <source>tfsetup %1 failed.</source>
        <translation>tfsetup %1 失败。</translation>
    </message>
    <message>
        <source>Check the Python environment in DIR: a folder tfsetup installed (or its venv), a venv or a conda environment.</source>
        <translation>检查 DIR 中的 Python 环境：tfsetup 安装的文件夹（或其中的 venv）、一个 venv 或一个 conda 环境。</translation>
    </message>
    <message>
        <source>--out needs the file to save to, not &quot;%1&quot; (is its value missing?). For a file whose name starts with &quot;-&quot;, write ./%1.</source>
        <translation>--out 需要给出要保存到的文件，而不是“%1”（是不是漏写了它的值？）。文件名以“-”开头时，请写成 ./%1。</translation>
    </message>
    <message>
        <source>Give at least one URL, --out FILE, and exactly one of --sha256 or --md5.</source>
        <translation>请至少给出一个 URL、--out FILE，并且在 --sha256 和 --md5 中恰好给出一个。</translation>
    </message>
    <message>
        <source>Nothing was installed: add --yes to install &quot;%1&quot; (TensorFlow %2, %3) into %4.</source>
        <translation>没有安装任何内容：加上 --yes 才会把“%1”（TensorFlow %2，%3）安装到 %4。</translation>
    </message>
    <message>
        <source>Run again with --yes to install.</source>
        <translation>请加上 --yes 重新运行以进行安装。</translation>
    </message>
    <message>
        <source>No TensorFlow / CUDA / cuDNN / Python combination fits this machine with these options; each rejected one says why.</source>
        <translation>在这些选项下，没有适合本机的 TensorFlow / CUDA / cuDNN / Python 组合；每个被拒绝的组合都说明了原因。</translation>
    </message>
    <message>
        <source>Give --plan FILE, or all of --tf VERSION, --os windows|linux and --route ROUTE.</source>
        <translation>请给出 --plan FILE，或者同时给出 --tf VERSION、--os windows|linux 和 --route ROUTE。</translation>
    </message>
    <message>
        <source>Run again with --yes to upgrade.</source>
        <translation>请加上 --yes 重新运行以进行升级。</translation>
    </message>
    <message>
        <source>The environment did not pass verification: %1: %2</source>
        <translation>环境未通过验证：%1：%2</translation>
    </message>
    <message>
        <source>The environment did not pass verification.</source>
        <translation>环境未通过验证。</translation>
    </message>
    <message>
        <source>tfsetup&apos;s release key</source>
        <translation>tfsetup 的发布密钥</translation>
    </message>
    <message>
        <source>the lab key &quot;%1&quot; (%2)</source>
        <translation>实验室密钥“%1”（%2）</translation>
    </message>
    <message>
        <source>Installed update: version %1 of %2, from %3, installed %4; signed with %5, its signature verifies
</source>
        <translation>已安装的更新：版本 %1（%2），来自 %3，安装于 %4；由%5签名，签名验证通过
</translation>
    </message>
    <message>
        <source>Trusted lab keys: none (updates signed by tfsetup&apos;s release key only)
</source>
        <translation>受信任的实验室密钥：无（只接受 tfsetup 发布密钥签名的更新）
</translation>
    </message>
    <message>
        <source>Trusted lab key: &quot;%1&quot; (%2), added %3
</source>
        <translation>受信任的实验室密钥：“%1”（%2），添加于 %3
</translation>
    </message>
    <message>
        <source>tfsetup&apos;s release page has not published a catalog update yet (%1 answers &quot;not found&quot;). The built-in catalog (version %2) stays in use; nothing was changed.
A lab can publish its own signed catalog: sign it with the lab&apos;s key (resources/catalog/sign_catalog.py), have an administrator run &quot;tfsetup catalog trust&quot; with the lab&apos;s public key, then take it with &quot;tfsetup catalog update --from URL&quot; or set catalog/updateFrom in tfsetup&apos;s settings.
</source>
        <translation>tfsetup 的发布页面还没有发布知识库更新（%1 回答“未找到”）。继续使用内置知识库（版本 %2），没有做任何更改。
实验室可以发布自己签名的知识库：用实验室密钥签名（resources/catalog/sign_catalog.py），请管理员用实验室公钥运行 &quot;tfsetup catalog trust&quot;，然后用 &quot;tfsetup catalog update --from URL&quot; 获取，或在 tfsetup 的设置中设置 catalog/updateFrom。
</translation>
    </message>
    <message>
        <source>Installed catalog update version %1 of %2 from %3, signed with %4. tfsetup uses it from now on.
</source>
        <translation>已从 %3 安装知识库更新版本 %1（%2），由%4签名。tfsetup 从现在起使用它。
</translation>
    </message>
    <message>
        <source>The public key file</source>
        <translation>公钥文件</translation>
    </message>
    <message>
        <source>Trusted the lab key &quot;%1&quot; (%2) on this computer: recorded in %3. Every account of this computer now accepts catalog updates signed with it (&quot;tfsetup catalog update --from URL&quot;).
</source>
        <translation>这台电脑已信任实验室密钥“%1”（%2）：记录在 %3。这台电脑的所有账户现在都接受用它签名的知识库更新（&quot;tfsetup catalog update --from URL&quot;）。
</translation>
    </message>
    <message>
        <source>The lab key &quot;%1&quot; (%2) is no longer trusted on this computer; a catalog update it signed is no longer used.
</source>
        <translation>这台电脑不再信任实验室密钥“%1”（%2）；它签名的知识库更新不再使用。
</translation>
    </message>
    <message>
        <source>status: which catalog is in use, whether the installed update verifies and which lab keys are trusted; update: fetch, check and install a signed catalog update; trust KEY: trust a lab&apos;s public key (PEM file or 64 hex digits) on this computer, as an administrator; untrust KEY_ID: stop trusting it.</source>
        <translation>status：正在使用哪个知识库、已安装的更新能否通过验证、信任了哪些实验室密钥；update：获取、检查并安装已签名的知识库更新；trust KEY：以管理员身份在这台电脑上信任实验室公钥（PEM 文件或 64 位十六进制数字）；untrust KEY_ID：不再信任它。</translation>
    </message>
    <message>
        <source>With trust: the lab key&apos;s name, shown by &quot;catalog status&quot;.</source>
        <translation>用于 trust：实验室密钥的名称，由 &quot;catalog status&quot; 显示。</translation>
    </message>
    <message>
        <source>tfsetup catalog trust: give the lab&apos;s public key, for example &quot;sudo tfsetup catalog trust lab-public.pem --name Lab&quot;.</source>
        <translation>tfsetup catalog trust：请给出实验室公钥，例如 &quot;sudo tfsetup catalog trust lab-public.pem --name Lab&quot;。</translation>
    </message>
    <message>
        <source>tfsetup catalog untrust: give the key id &quot;tfsetup catalog status&quot; lists.</source>
        <translation>tfsetup catalog untrust：请给出 &quot;tfsetup catalog status&quot; 列出的密钥 ID。</translation>
    </message>
    <message>
        <source>tfsetup catalog %1: --from, --proxy and --ca-bundle belong to &quot;catalog update&quot;, --name to &quot;catalog trust&quot;.</source>
        <translation>tfsetup catalog %1：--from、--proxy 和 --ca-bundle 属于 &quot;catalog update&quot;，--name 属于 &quot;catalog trust&quot;。</translation>
    </message>
    <message>
        <source>tfsetup catalog: say status, update, trust or untrust, for example &quot;tfsetup catalog status&quot;.</source>
        <translation>tfsetup catalog：请给出 status、update、trust 或 untrust，例如 &quot;tfsetup catalog status&quot;。</translation>
    </message>
    <message>
        <source>tfsetup catalog %1: --name belongs to &quot;catalog trust&quot;.</source>
        <translation>tfsetup catalog %1：--name 属于 &quot;catalog trust&quot;。</translation>
    </message>
    <message>
        <source>Show the knowledge catalog in use, install a signed catalog update, or trust a lab&apos;s catalog key</source>
        <translation>显示正在使用的知识库、安装已签名的知识库更新，或信任实验室的知识库密钥</translation>
    </message>
    <message>
        <source>--hardware describes the machine already: leave out --root and --env-file, or leave out --hardware to detect the folder --root gives.</source>
        <translation>--hardware 已经描述了这台机器：请去掉 --root 和 --env-file，或者去掉 --hardware，改为检测 --root 给出的文件夹。</translation>
    </message>
</context>
<context>
    <name>Confined</name>
    <message>
        <source>tfsetup does not write %1: the way there leads through a link (or a file stands where a folder belongs), so the write could land outside the folder it belongs to. Remove the link or the file, or choose another folder, then try again.</source>
        <translation>tfsetup 不会写入 %1：通往它的路径经过一个链接（或在应为文件夹的位置有一个文件），写入可能落到它所属文件夹之外。请删除该链接或文件，或选择其他文件夹，然后重试。</translation>
    </message>
    <message>
        <source>Cannot write %1. Check the free space and that the folder is yours, then try again.</source>
        <translation>无法写入 %1。请检查可用空间以及该文件夹是否属于你，然后重试。</translation>
    </message>
    <message>
        <source>Cannot read %1. Check that the file is there and that you may read it.</source>
        <translation>无法读取 %1。请检查文件是否存在以及你是否有读取权限。</translation>
    </message>
    <message>
        <source>You may not write %1. Choose a folder that is yours, or ask its owner for write permission.</source>
        <translation>你没有写入 %1 的权限。请选择属于你的文件夹，或请其所有者授予写入权限。</translation>
    </message>
    <message>
        <source>The disk holding %1 is full (or your disk quota is used up). Free some space, then try again.</source>
        <translation>%1 所在的磁盘已满（或你的磁盘配额已用完）。请释放一些空间，然后重试。</translation>
    </message>
    <message>
        <source>%1 is a link to another file. tfsetup does not write through links: give the path of a new file, or of a plain file to replace.</source>
        <translation>%1 是指向另一个文件的链接。tfsetup 不会通过链接写入：请给出一个新文件的路径，或一个要替换的普通文件的路径。</translation>
    </message>
    <message>
        <source>%1 is not a plain file (a folder, a device or a pipe), so tfsetup does not write there. Give the path of a new file.</source>
        <translation>%1 不是普通文件（而是文件夹、设备或管道），tfsetup 不会写入那里。请给出一个新文件的路径。</translation>
    </message>
    <message>
        <source>The folder of %1 does not exist. Choose a folder that exists.</source>
        <translation>%1 所在的文件夹不存在。请选择一个已存在的文件夹。</translation>
    </message>
</context>
<context>
    <name>ConfinedRemove</name>
    <message>
        <source>%1 lies behind a link that tfsetup did not make; nothing was removed through it.</source>
        <translation>%1 位于一个不是 tfsetup 创建的链接之后；没有通过它删除任何内容。</translation>
    </message>
    <message>
        <source>%1 cannot be removed: permission denied. Close the programs that use it and try again.</source>
        <translation>无法删除 %1：权限被拒绝。请关闭正在使用它的程序后重试。</translation>
    </message>
    <message>
        <source>The folder %1 is not empty.</source>
        <translation>文件夹 %1 不是空的。</translation>
    </message>
    <message>
        <source>%1 does not exist.</source>
        <translation>%1 不存在。</translation>
    </message>
    <message>
        <source>%1 is a folder, not a file.</source>
        <translation>%1 是文件夹，不是文件。</translation>
    </message>
    <message>
        <source>%1 could not be removed. Close the programs that use it and try again.</source>
        <translation>无法删除 %1。请关闭正在使用它的程序后重试。</translation>
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
    <name>DiskSpaceCheck</name>
    <message>
        <source>Not enough free disk space: %1 needs about %2 MB for %3, but only %4 MB are free there. Free %5 MB or choose a folder on another disk, then try again.</source>
        <translation>磁盘空间不足：%1 需要约 %2 MB 用于%3，但那里只剩 %4 MB。请释放 %5 MB，或选择另一个磁盘上的文件夹，然后重试。</translation>
    </message>
    <message>
        <source>the downloads</source>
        <translation>下载的文件</translation>
    </message>
    <message>
        <source>the unpacked libraries</source>
        <translation>解压后的库</translation>
    </message>
</context>
<context>
    <name>DownloadReport</name>
    <message>
        <source>%1 of %2 (%3 %)</source>
        <translation>%1 / %2（%3 %）</translation>
    </message>
    <message>
        <source>, %1/s</source>
        <translation>，%1/秒</translation>
    </message>
    <message>
        <source>, about %1 left</source>
        <translation>，约剩 %1</translation>
    </message>
    <message>
        <source> — %1</source>
        <translation> — %1</translation>
    </message>
    <message>
        <source> — %1 from %2</source>
        <translation> — %1，来自 %2</translation>
    </message>
</context>
<context>
    <name>EnvironmentIndex</name>
    <message>
        <source>The list of environments</source>
        <translation>环境列表</translation>
    </message>
    <message>
        <source>The list of environments in %1 cannot be written. Check that the folder is yours and not full.</source>
        <translation>无法写入 %1 中的环境列表。请检查该文件夹是否属于你、磁盘是否已满。</translation>
    </message>
    <message>
        <source>Another tfsetup is changing the list of environments. Try again in a moment.</source>
        <translation>另一个 tfsetup 正在修改环境列表。请稍后再试。</translation>
    </message>
</context>
<context>
    <name>EnvironmentInfo</name>
    <message>
        <source>The environment folder %1 does not exist. Give the folder tfsetup installed into.</source>
        <translation>环境文件夹 %1 不存在。请指定 tfsetup 安装到的文件夹。</translation>
    </message>
    <message>
        <source>%1 is damaged (not a JSON object). Run tfsetup repair --env %2.</source>
        <translation>%1 已损坏（不是 JSON 对象）。请运行 tfsetup repair --env %2。</translation>
    </message>
    <message>
        <source>%1 has neither an environment.json nor a start-python launcher, so it is not an environment tfsetup made. Give the right folder, or name a launcher with --launcher.</source>
        <translation>%1 中既没有 environment.json，也没有 start-python 启动脚本，因此它不是 tfsetup 创建的环境。请指定正确的文件夹，或用 --launcher 指定启动脚本。</translation>
    </message>
</context>
<context>
    <name>EnvironmentListing</name>
    <message>
        <source>Its removal was stopped midway. Remove it again to finish.</source>
        <translation>它的删除在中途被中断。请再删除一次以完成。</translation>
    </message>
    <message>
        <source>The folder is gone (moved or deleted by hand).</source>
        <translation>文件夹不见了（被手动移动或删除）。</translation>
    </message>
    <message>
        <source>The folder is now a link to another place; tfsetup does not follow it.</source>
        <translation>该文件夹现在是指向别处的链接；tfsetup 不会跟随它。</translation>
    </message>
    <message numerus="yes">
        <source>%n recorded file(s) are missing or changed. Repair restores them.</source>
        <translation>
            <numerusform>有 %n 个已记录的文件丢失或被更改。修复可以恢复它们。</numerusform>
        </translation>
    </message>
    <message>
        <source>No environment made by tfsetup was found.</source>
        <translation>没有找到 tfsetup 创建的环境。</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>TensorFlow %1 on %2, Python %3, CUDA %4, cuDNN %5</source>
        <translation>TensorFlow %1，路线 %2，Python %3，CUDA %4，cuDNN %5</translation>
    </message>
    <message>
        <source>Size on disk: %1</source>
        <translation>磁盘占用：%1</translation>
    </message>
    <message>
        <source>Last verified %1: passed</source>
        <translation>最近一次验证 %1：通过</translation>
    </message>
    <message>
        <source>Last verified %1: failed (%2)</source>
        <translation>最近一次验证 %1：失败（%2）</translation>
    </message>
    <message>
        <source>Not verified since it was installed.</source>
        <translation>安装后尚未验证。</translation>
    </message>
    <message>
        <source>TensorFlow %1 fits this machine on the same route.</source>
        <translation>TensorFlow %1 在同一路线上适合本机。</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>TensorFlow %1 on %2, Python %3, CUDA %4, cuDNN %5 (from pip&apos;s nvidia-* wheels)</source>
        <translation>TensorFlow %1，%2，Python %3，CUDA %4，cuDNN %5（来自 pip 的 nvidia-* wheel 包）</translation>
    </message>
</context>
<context>
    <name>EnvironmentRecord</name>
    <message>
        <source>This environment was made by a newer tfsetup. Update tfsetup to change it.</source>
        <translation>此环境是由更新版本的 tfsetup 创建的。请先更新 tfsetup 再修改它。</translation>
    </message>
    <message>
        <source>The environment record is damaged. Install the environment again.</source>
        <translation>环境记录已损坏。请重新安装该环境。</translation>
    </message>
    <message>
        <source>This folder has no environment record. Install the environment again.</source>
        <translation>此文件夹中没有环境记录。请重新安装该环境。</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>none (this environment runs on the CPU)</source>
        <translation>无（此环境在 CPU 上运行）</translation>
    </message>
    <message>
        <source>TensorFlow environment &quot;%1&quot;</source>
        <translation>TensorFlow 环境“%1”</translation>
    </message>
    <message>
        <source>Paste this into a help request: it says what was installed.</source>
        <translation>请求帮助时请粘贴以下内容：它说明了安装了哪些东西。</translation>
    </message>
    <message>
        <source>Operating system</source>
        <translation>操作系统</translation>
    </message>
    <message>
        <source>Python</source>
        <translation>Python</translation>
    </message>
    <message>
        <source>TensorFlow</source>
        <translation>TensorFlow</translation>
    </message>
    <message>
        <source>CUDA</source>
        <translation>CUDA</translation>
    </message>
    <message>
        <source>cuDNN</source>
        <translation>cuDNN</translation>
    </message>
    <message>
        <source>NVIDIA driver</source>
        <translation>NVIDIA 驱动程序</translation>
    </message>
    <message>
        <source>Route</source>
        <translation>路线</translation>
    </message>
    <message>
        <source>Installed</source>
        <translation>安装时间</translation>
    </message>
    <message>
        <source>tfsetup</source>
        <translation>tfsetup</translation>
    </message>
    <message>
        <source>must be a path inside the environment folder (no &quot;..&quot;, not absolute)</source>
        <translation>必须是环境文件夹内的路径（不含“..”，不是绝对路径）</translation>
    </message>
    <message>
        <source>must be 64 lower-case hexadecimal digits</source>
        <translation>必须是 64 位小写十六进制数字</translation>
    </message>
    <message>
        <source>must be a Jupyter kernel folder (…/kernels/NAME)</source>
        <translation>必须是 Jupyter 内核文件夹（…/kernels/名称）</translation>
    </message>
    <message>
        <source>The environment record</source>
        <translation>环境记录</translation>
    </message>
    <message>
        <source>Install the environment again.</source>
        <translation>请重新安装该环境。</translation>
    </message>
    <message>
        <source>from pip&apos;s nvidia-* wheels (version not recorded)</source>
        <translation>来自 pip 的 nvidia-* wheel 包（未记录版本）</translation>
    </message>
    <message>
        <source>%1 (from pip&apos;s nvidia-* wheels)</source>
        <translation>%1（来自 pip 的 nvidia-* wheel 包）</translation>
    </message>
</context>
<context>
    <name>FirstUse</name>
    <message>
        <source>The download of %1 was cancelled.</source>
        <translation>%1 的下载已取消。</translation>
    </message>
    <message>
        <source>%1 could not be downloaded from any source.</source>
        <translation>无法从任何来源下载 %1。</translation>
    </message>
    <message>
        <source>Check the connection and the mirrors.</source>
        <translation>请检查网络连接和镜像。</translation>
    </message>
</context>
<context>
    <name>GpuChoice</name>
    <message>
        <source>%1 takes &quot;default&quot;, &quot;all&quot; or GPU numbers as nvidia-smi shows them, separated by commas (such as 0,2); &quot;%2&quot; is none of these.</source>
        <translation>%1 只接受 &quot;default&quot;、&quot;all&quot; 或按 nvidia-smi 显示的 GPU 编号（用逗号分隔，如 0,2）；&quot;%2&quot; 都不是。</translation>
    </message>
    <message>
        <source>%1 names GPU %2 twice.</source>
        <translation>%1 两次指定了 GPU %2。</translation>
    </message>
    <message>
        <source>must be &quot;default&quot;, &quot;all&quot; or a list of GPU numbers as nvidia-smi shows them, such as [0, 2]</source>
        <translation>必须是 &quot;default&quot;、&quot;all&quot; 或按 nvidia-smi 显示的 GPU 编号列表，例如 [0, 2]</translation>
    </message>
    <message>
        <source>must name at least one GPU (or be &quot;all&quot;)</source>
        <translation>必须至少指定一个 GPU（或为 &quot;all&quot;）</translation>
    </message>
    <message>
        <source>names GPU %1 twice</source>
        <translation>两次指定了 GPU %1</translation>
    </message>
    <message>
        <source>%1 names GPU %2, but this computer&apos;s NVIDIA GPUs are %3 (as nvidia-smi numbers them).</source>
        <translation>%1 指定了 GPU %2，但本机的 NVIDIA GPU 是 %3（按 nvidia-smi 的编号）。</translation>
    </message>
    <message>
        <source>%1 names %2, which TensorFlow %3 cannot use: %4 Leave it out.</source>
        <translation>%1 指定了 %2，而 TensorFlow %3 无法使用它：%4 请将它去掉。</translation>
    </message>
    <message>
        <source>GPU %1, %2</source>
        <translation>GPU %1，%2</translation>
    </message>
    <message>
        <source>GPU %1, %2 (compute capability %3)</source>
        <translation>GPU %1，%2（计算能力 %3）</translation>
    </message>
    <message>
        <source>The environment uses GPUs %1 (CUDA_VISIBLE_DEVICES).</source>
        <translation>该环境使用 GPU %1（CUDA_VISIBLE_DEVICES）。</translation>
    </message>
    <message>
        <source>The environment uses %1 (CUDA_VISIBLE_DEVICES=%2).</source>
        <translation>该环境使用 %1（CUDA_VISIBLE_DEVICES=%2）。</translation>
    </message>
    <message>
        <source>%1 is left out: %2</source>
        <translation>%1 未被使用：%2</translation>
    </message>
    <message>
        <source>%1 is left out: it was not chosen.</source>
        <translation>%1 未被使用：没有选择它。</translation>
    </message>
    <message>
        <source>No NVIDIA GPU of this computer can be used by this TensorFlow: it will run on the processor.</source>
        <translation>这个 TensorFlow 无法使用本机的任何 NVIDIA GPU：它将在处理器上运行。</translation>
    </message>
</context>
<context>
    <name>GpuTable</name>
    <message>
        <source>Cannot read the GPU table %1. Reinstall tfsetup or point it at a readable catalog.</source>
        <translation>无法读取 GPU 数据表 %1。请重新安装 tfsetup，或为它指定一个可读取的知识库。</translation>
    </message>
    <message>
        <source>The GPU table %1 is not valid JSON. Reinstall tfsetup or fix the catalog file.</source>
        <translation>GPU 数据表 %1 不是有效的 JSON。请重新安装 tfsetup 或修复该知识库文件。</translation>
    </message>
    <message>
        <source>The GPU table %1 has a format this version of tfsetup does not know. Use the catalog that came with it.</source>
        <translation>GPU 数据表 %1 的格式是此版本 tfsetup 无法识别的。请使用 tfsetup 自带的知识库。</translation>
    </message>
    <message>
        <source>A record of the GPU table %1 lacks a name or a source. Fix the catalog file.</source>
        <translation>GPU 数据表 %1 中有一条记录缺少名称或来源。请修复该知识库文件。</translation>
    </message>
</context>
<context>
    <name>HardwareReport</name>
    <message>
        <source>Give the output of tfsetup detect --json.</source>
        <translation>请提供 tfsetup detect --json 的输出。</translation>
    </message>
</context>
<context>
    <name>InputFile</name>
    <message>
        <source>%1 %2 is larger than %3 MB, more than such a file ever holds. Check that you gave the right file.</source>
        <translation>%1 %2 大于 %3 MB，超出了此类文件可能的大小。请确认你给出的文件是否正确。</translation>
    </message>
    <message>
        <source>%1 %2 does not exist. Check the path.</source>
        <translation>%1 %2 不存在。请检查路径。</translation>
    </message>
    <message>
        <source>%1 %2 is not a plain file (it is a folder, a device or a pipe). Give the path of the file itself.</source>
        <translation>%1 %2 不是普通文件（它是文件夹、设备或管道）。请给出文件本身的路径。</translation>
    </message>
    <message>
        <source>%1 %2 cannot be read. Check that it is yours to read.</source>
        <translation>无法读取 %1 %2。请确认你有权读取它。</translation>
    </message>
    <message>
        <source>%1 cannot be read from standard input.</source>
        <translation>无法从标准输入读取 %1。</translation>
    </message>
    <message>
        <source>%1 %2 is not a JSON object. Give a file that tfsetup wrote, or correct it.</source>
        <translation>%1 %2 不是 JSON 对象。请提供由 tfsetup 写出的文件，或者修正它。</translation>
    </message>
    <message>
        <source>%1 %2 gives the field &quot;%3&quot; twice, so it is unclear which one counts. Remove one of them, or give a file that tfsetup wrote.</source>
        <translation>%1 %2 中字段“%3”出现了两次，无法确定以哪一个为准。请删除其中一个，或提供由 tfsetup 写出的文件。</translation>
    </message>
</context>
<context>
    <name>Installer</name>
    <message>
        <source>The install was cancelled. Nothing was changed.</source>
        <translation>安装已取消。没有做任何更改。</translation>
    </message>
    <message>
        <source>Cannot write %1. Check the free space and that the install folder is yours.</source>
        <translation>无法写入 %1。请检查剩余空间，并确认安装文件夹属于你自己。</translation>
    </message>
    <message>
        <source>TensorFlow %1 (%2)</source>
        <translation>TensorFlow %1（%2）</translation>
    </message>
</context>
<context>
    <name>JsonShape</name>
    <message>
        <source>must be text</source>
        <translation>必须是文本</translation>
    </message>
    <message>
        <source>is longer than %1 characters</source>
        <translation>长度超过 %1 个字符</translation>
    </message>
    <message>
        <source>must be true or false</source>
        <translation>必须是 true 或 false</translation>
    </message>
    <message>
        <source>must be a number</source>
        <translation>必须是数字</translation>
    </message>
    <message>
        <source>must be a whole number from %1 to %2</source>
        <translation>必须是 %1 到 %2 之间的整数</translation>
    </message>
    <message>
        <source>must be a list</source>
        <translation>必须是列表</translation>
    </message>
    <message>
        <source>has more than %1 entries</source>
        <translation>条目超过 %1 个</translation>
    </message>
    <message>
        <source>must be an object</source>
        <translation>必须是对象</translation>
    </message>
    <message>
        <source>is missing</source>
        <translation>缺失</translation>
    </message>
    <message>
        <source>%1 cannot be used: it %2. %3</source>
        <translation>%1 无法使用：它%2。%3</translation>
    </message>
    <message>
        <source>%1 cannot be used: its field &quot;%2&quot; %3. %4</source>
        <translation>%1 无法使用：其字段“%2”%3。%4</translation>
    </message>
</context>
<context>
    <name>Knowledge</name>
    <message>
        <source>%1 of the catalog update (version %2)</source>
        <translation>知识库更新（版本 %2）中的 %1</translation>
    </message>
    <message>
        <source>The knowledge catalog file %1 cannot be read. Reinstall tfsetup, or check the catalog folder you gave.</source>
        <translation>无法读取知识库文件 %1。请重新安装 tfsetup，或检查你指定的知识库文件夹。</translation>
    </message>
    <message>
        <source>The placement rules are damaged. Reinstall tfsetup.</source>
        <translation>放置规则已损坏。请重新安装 tfsetup。</translation>
    </message>
    <message>
        <source>The library version table %1 cannot be read; the program files are damaged, reinstall tfsetup.</source>
        <translation>无法读取库版本表 %1；程序文件已损坏，请重新安装 tfsetup。</translation>
    </message>
    <message>
        <source>tfsetup&apos;s knowledge catalog was not loaded, so nothing was changed. Start tfsetup again; if this repeats, reinstall it.</source>
        <translation>tfsetup 的知识库没有加载，因此没有做任何更改。请重新启动 tfsetup；如果仍然如此，请重新安装 tfsetup。</translation>
    </message>
</context>
<context>
    <name>LabProfile</name>
    <message>
        <source>The lab profile %1 cannot be read or is not valid JSON. Ask the lab administrator for a working copy.</source>
        <translation>无法读取实验室配置文件 %1，或它不是有效的 JSON。请向实验室管理员索取一份可用的副本。</translation>
    </message>
    <message>
        <source>The lab profile %1 is for another version of tfsetup. Update tfsetup.</source>
        <translation>实验室配置文件 %1 是为另一个版本的 tfsetup 编写的。请更新 tfsetup。</translation>
    </message>
    <message>
        <source>The lab profile %1 needs &quot;environment&quot; (letters, digits, . _ + -), &quot;installFolder&quot;, &quot;plan.route&quot; and &quot;plan.requirements&quot;.</source>
        <translation>实验室配置文件 %1 需要包含 &quot;environment&quot;（字母、数字及 . _ + -）、&quot;installFolder&quot;、&quot;plan.route&quot; 和 &quot;plan.requirements&quot;。</translation>
    </message>
    <message>
        <source>The lab profile names the lock file %1, which cannot be read. Put it beside the profile.</source>
        <translation>实验室配置文件指定了锁定文件 %1，但无法读取该文件。请把它放在配置文件旁边。</translation>
    </message>
    <message>
        <source>No Python %1 was found on PATH. Install it, or name the interpreter in the profile&apos;s &quot;interpreter&quot;.</source>
        <translation>在 PATH 中没有找到 Python %1。请安装它，或在配置文件的 &quot;interpreter&quot; 中指定解释器。</translation>
    </message>
    <message>
        <source>The offline bundle %1 lacks %2. Make the bundle again.</source>
        <translation>离线包 %1 缺少 %2。请重新生成离线包。</translation>
    </message>
    <message>
        <source>must be a plain name (letters, digits, . _ + -, not starting with a dot, no slashes)</source>
        <translation>必须是一个普通名称（字母、数字、. _ + -，不以点开头，不含斜杠）</translation>
    </message>
    <message>
        <source>The lab profile</source>
        <translation>实验室配置文件</translation>
    </message>
    <message>
        <source>The lab profile %1</source>
        <translation>实验室配置文件 %1</translation>
    </message>
    <message>
        <source>Correct the profile, or ask the lab administrator for a working copy.</source>
        <translation>请修正配置文件，或向实验室管理员索取一份可用的副本。</translation>
    </message>
    <message>
        <source>The lab profile %1 asks for the Jupyter front end %2; use one of %3, true or false.</source>
        <translation>实验室配置文件 %1 要求使用 Jupyter 前端 %2；请使用 %3、true 或 false 之一。</translation>
    </message>
    <message>
        <source>The lab profile&apos;s &quot;%1&quot; uses %2, which is not set on this computer. Set it, or change &quot;%1&quot; in the profile.</source>
        <translation>实验室配置文件中的“%1”使用了 %2，而这台计算机上没有设置它。请设置它，或修改配置文件中的“%1”。</translation>
    </message>
    <message>
        <source>The lab profile&apos;s &quot;%1&quot; is %2, which is not a full path. Give a full path (it may start with ${HOME} or ~).</source>
        <translation>实验室配置文件中的“%1”是 %2，这不是完整路径。请给出完整路径（可以以 ${HOME} 或 ~ 开头）。</translation>
    </message>
    <message>
        <source>The install folder %1 is not a full path. Give a full path.</source>
        <translation>安装文件夹 %1 不是完整路径。请给出完整路径。</translation>
    </message>
    <message>
        <source>The lock file</source>
        <translation>锁定文件</translation>
    </message>
    <message>
        <source>must be a folder without control characters (no line break, no NUL)</source>
        <translation>必须是不含控制字符（没有换行、没有 NUL）的文件夹</translation>
    </message>
    <message>
        <source>The lab profile&apos;s &quot;%1&quot; becomes a folder with a control character in it (a line break?), from %2. Correct &quot;%1&quot; in the profile, or the variable it uses.</source>
        <translation>实验室配置文件的“%1”得到的文件夹中含有控制字符（换行？），来自 %2。请更正配置文件中的“%1”或它所用的变量。</translation>
    </message>
    <message>
        <source>must be a name Jupyter lists: lower-case letters a-z, digits, . _ - only</source>
        <translation>必须是 Jupyter 能列出的名称：只能用小写字母 a-z、数字和 . _ -</translation>
    </message>
</context>
<context>
    <name>LauncherWriter</name>
    <message>
        <source>The launcher templates inside tfsetup are damaged. Reinstall tfsetup.</source>
        <translation>tfsetup 内置的启动脚本模板已损坏。请重新安装 tfsetup。</translation>
    </message>
    <message>
        <source>The value of %1 cannot be written into a Windows batch file. Choose a folder whose name has no double quote.</source>
        <translation>%1 的值无法写入 Windows 批处理文件。请选择名称中不含双引号的文件夹。</translation>
    </message>
    <message>
        <source>A shell with this TensorFlow environment&apos;s Python and CUDA libraries first</source>
        <translation>一个优先使用此 TensorFlow 环境中的 Python 和 CUDA 库的命令行窗口</translation>
    </message>
    <message>
        <source>This environment has no Jupyter server (%1). Run tfsetup again with Jupyter chosen, or install JupyterLab into the environment.</source>
        <translation>此环境中没有 Jupyter 服务器（%1）。请再次运行 tfsetup 并选择 Jupyter，或者在该环境中安装 JupyterLab。</translation>
    </message>
    <message>
        <source>a control character (such as a line break)</source>
        <translation>控制字符（例如换行符）</translation>
    </message>
    <message>
        <source>The environment folder %1 has %2 in its path. Windows reads &quot;;&quot; in PATH as the end of one folder, and a batch file cannot hold a double quote, so the environment&apos;s launchers and Jupyter kernel could not find its own libraries. Choose a folder without it.</source>
        <translation>环境文件夹 %1 的路径中含有 %2。Windows 会把 PATH 中的 &quot;;&quot; 当作一个文件夹的结尾，批处理文件也无法容纳双引号，因此环境的启动脚本和 Jupyter 内核将找不到它自己的库。请选择一个路径中不含该字符的文件夹。</translation>
    </message>
    <message>
        <source>The environment folder %1 has %2 in its path. PATH and LD_LIBRARY_PATH read &quot;:&quot; as the end of one folder, so the environment&apos;s launchers and Jupyter kernel could not find its own libraries. Choose a folder without it.</source>
        <translation>环境文件夹 %1 的路径中含有 %2。PATH 和 LD_LIBRARY_PATH 会把 &quot;:&quot; 当作一个文件夹的结尾，因此环境的启动脚本和 Jupyter 内核将找不到它自己的库。请选择一个路径中不含该字符的文件夹。</translation>
    </message>
    <message>
        <source>The Jupyter kernel &quot;%1&quot; belongs to the environment in %2, which keeps it; this environment&apos;s kernel is registered as &quot;%3&quot;.</source>
        <translation>Jupyter 内核“%1”属于 %2 中的环境，仍由它保留；本环境的内核注册为“%3”。</translation>
    </message>
    <message>
        <source>The Jupyter kernels &quot;%1&quot; and &quot;%2&quot; belong to other environments (%3), which keep them; this environment&apos;s kernel was not registered. Install it again with another kernel name.</source>
        <translation>Jupyter 内核“%1”和“%2”属于其他环境（%3），仍由它们保留；本环境的内核未注册。请用另一个内核名称重新安装。</translation>
    </message>
</context>
<context>
    <name>MirrorSet</name>
    <message>
        <source>The mirror &quot;%1&quot; is not a valid address. Give an http(s):// or file:// URL or a folder.</source>
        <translation>镜像“%1”不是有效的地址。请提供 http(s):// 或 file:// URL，或者一个文件夹。</translation>
    </message>
    <message>
        <source>The mirror folder &quot;%1&quot; does not exist. Check the path, or give an http(s):// URL.</source>
        <translation>镜像文件夹“%1”不存在。请检查路径，或提供一个 http(s):// URL。</translation>
    </message>
    <message>
        <source>Unknown mirror kind &quot;%1&quot;: use nvidia=, python=, python-build-standalone= or pypi=.</source>
        <translation>未知的镜像类型“%1”：请使用 nvidia=、python=、python-build-standalone= 或 pypi=。</translation>
    </message>
</context>
<context>
    <name>NetworkError</name>
    <message>
        <source>The server&apos;s name could not be resolved while fetching %1: this computer is offline, or its network reaches the internet only through a proxy. Check the connection, or set the proxy.</source>
        <translation>下载 %1 时无法解析服务器名称：这台计算机没有联网，或者它的网络只能通过代理访问互联网。请检查网络连接，或设置代理。</translation>
    </message>
    <message>
        <source>The server refused the connection or could not be reached for %1. Check the internet connection and the proxy setting, or choose a mirror.</source>
        <translation>服务器拒绝了连接，或者无法访问 %1 所在的服务器。请检查网络连接和代理设置，或选择一个镜像。</translation>
    </message>
    <message>
        <source>The proxy could not be reached while fetching %1. Check the proxy address (host and port), or leave it empty to connect directly.</source>
        <translation>下载 %1 时无法连接到代理。请检查代理地址（主机和端口），或者留空以直接连接。</translation>
    </message>
    <message>
        <source>The server did not answer in time for %1. The network may be slow or the server blocked here: try again, choose a mirror, set a proxy, or use an offline bundle.</source>
        <translation>%1 所在的服务器没有及时响应。网络可能很慢，或者该服务器在这里被屏蔽：请重试、选择镜像、设置代理或使用离线包。</translation>
    </message>
    <message>
        <source>%1 came too slowly from this server (below the speed floor), so it was dropped. Choose a nearer mirror or use an offline bundle.</source>
        <translation>从此服务器下载 %1 的速度太慢（低于速度下限），因此已放弃该服务器。请选择一个更近的镜像或使用离线包。</translation>
    </message>
    <message>
        <source>The server&apos;s certificate for %1 belongs to another name, so nothing was downloaded. Something between you and the server (a proxy or a captive portal) answers in its place; check the address or the network.</source>
        <translation>%1 所在服务器的证书属于另一个名称，因此没有下载任何内容。你与服务器之间的某个东西（代理或网络登录页）在冒充它应答；请检查地址或网络。</translation>
    </message>
    <message>
        <source>The server&apos;s certificate for %1 could not be verified, so nothing was downloaded. A lab or company proxy may need its certificate added (CA bundle setting).</source>
        <translation>无法验证 %1 所在服务器的证书，因此没有下载任何内容。实验室或公司的代理可能需要添加其证书（CA 证书包设置）。</translation>
    </message>
    <message>
        <source>The proxy asks for a user name and password (407) for %1. Give them in the proxy address: http://user:password@host:port.</source>
        <translation>下载 %1 时代理要求提供用户名和密码（407）。请在代理地址中填写它们：http://用户名:密码@主机:端口。</translation>
    </message>
    <message>
        <source>The proxy could not reach the server for %1 (HTTP %2). The server may be blocked from this network: choose a mirror or use an offline bundle.</source>
        <translation>代理无法访问 %1 所在的服务器（HTTP %2）。该服务器可能在此网络中被屏蔽：请选择镜像或使用离线包。</translation>
    </message>
    <message>
        <source>%1 is not on the server (404 Not Found). The mirror may be incomplete; try another mirror.</source>
        <translation>服务器上没有 %1（404 Not Found）。该镜像可能不完整；请换一个镜像。</translation>
    </message>
    <message>
        <source>The server refused %1 (403 Forbidden). The mirror may not serve this file or this network; try another mirror.</source>
        <translation>服务器拒绝提供 %1（403 Forbidden）。该镜像可能不提供此文件，或不为此网络提供服务；请换一个镜像。</translation>
    </message>
    <message>
        <source>The server had an error with %1 (HTTP %2). Try again later or choose another mirror.</source>
        <translation>服务器处理 %1 时出错（HTTP %2）。请稍后重试或选择其他镜像。</translation>
    </message>
    <message>
        <source>The server answered HTTP %2 for %1. Try another mirror.</source>
        <translation>服务器对 %1 返回了 HTTP %2。请换一个镜像。</translation>
    </message>
    <message>
        <source>The server sent a web page instead of %1 (often a login page of the campus, hotel or company network, or an error page). Log in with a web browser and try again, or try another mirror.</source>
        <translation>服务器发来的是一个网页而不是 %1（通常是校园网、酒店或公司网络的登录页，或者错误页面）。请用浏览器登录后重试，或者换一个镜像。</translation>
    </message>
    <message>
        <source>The server tried to send %1 over an unencrypted connection; that was refused.</source>
        <translation>服务器试图通过未加密的连接发送 %1；已被拒绝。</translation>
    </message>
    <message>
        <source>The server for %1 redirects in a loop. Try another mirror.</source>
        <translation>%1 所在的服务器陷入了循环重定向。请换一个镜像。</translation>
    </message>
    <message>
        <source>The connection kept stalling or dropping while fetching %1. What arrived is kept; try again to resume.</source>
        <translation>下载 %1 时连接反复停滞或中断。已收到的部分会保留；请重试以继续下载。</translation>
    </message>
    <message>
        <source>The server&apos;s %1 has a different size than the official one. Try another mirror.</source>
        <translation>服务器上的 %1 大小与官方的不同。请换一个镜像。</translation>
    </message>
    <message>
        <source>The server sent more for %1 than such a document can be. Check the address or the mirror.</source>
        <translation>服务器为 %1 发送的内容超出了此类文档可能的大小。请检查地址或镜像。</translation>
    </message>
    <message>
        <source>%1 does not match its official checksum, so it was not used. Try again later or another mirror; if it keeps happening, something between you and the server changes the file.</source>
        <translation>%1 与其官方校验和不符，因此没有使用。请稍后重试或换一个镜像；如果反复出现，说明你与服务器之间有东西在篡改文件。</translation>
    </message>
    <message>
        <source>The disk is full while saving %1. Free some space or choose another folder, then try again.</source>
        <translation>保存 %1 时磁盘已满。请释放一些空间或选择其他文件夹，然后重试。</translation>
    </message>
    <message>
        <source>You may not write to the folder of %1. Choose a folder in your own user folder.</source>
        <translation>你没有权限写入 %1 所在的文件夹。请选择你自己用户文件夹中的某个文件夹。</translation>
    </message>
    <message>
        <source>Saving %1 failed. Check the disk and the folder&apos;s permissions.</source>
        <translation>保存 %1 失败。请检查磁盘和该文件夹的权限。</translation>
    </message>
    <message>
        <source>Fetching %1 was cancelled.</source>
        <translation>已取消下载 %1。</translation>
    </message>
    <message>
        <source>%1 could not be fetched. Check the internet connection, the proxy and the mirror settings.</source>
        <translation>无法获取 %1。请检查网络连接、代理和镜像设置。</translation>
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
    <name>OriginProbe</name>
    <message>
        <source>NVIDIA&apos;s download server %1</source>
        <translation>NVIDIA 的下载服务器 %1</translation>
    </message>
    <message>
        <source>python.org&apos;s downloads API (%1)</source>
        <translation>python.org 的下载 API（%1）</translation>
    </message>
    <message>
        <source>the Python package index %1</source>
        <translation>Python 包索引 %1</translation>
    </message>
    <message>
        <source>the Python package index %1 (%2)</source>
        <translation>Python 包索引 %1（%2）</translation>
    </message>
    <message>
        <source>The folder %1 does not exist. Check the path of the mirror or the offline bundle.</source>
        <translation>文件夹 %1 不存在。请检查镜像或离线包的路径。</translation>
    </message>
    <message>
        <source>%1 MB/s</source>
        <translation>%1 MB/s</translation>
    </message>
    <message>
        <source>%1 KB/s</source>
        <translation>%1 KB/s</translation>
    </message>
    <message>
        <source>a folder, present</source>
        <translation>文件夹，存在</translation>
    </message>
    <message>
        <source>a folder, missing</source>
        <translation>文件夹，缺失</translation>
    </message>
    <message>
        <source>reachable in %1 ms</source>
        <translation>%1 毫秒内可连通</translation>
    </message>
    <message>
        <source>not reachable (%1)</source>
        <translation>无法连通（%1）</translation>
    </message>
    <message>
        <source>too slow</source>
        <translation>太慢</translation>
    </message>
    <message>
        <source>through the proxy</source>
        <translation>通过代理</translation>
    </message>
    <message>
        <source>not needed for this setup</source>
        <translation>本次安装不需要</translation>
    </message>
    <message>
        <source>PyPI mirrors, fastest first:</source>
        <translation>PyPI 镜像，按速度从快到慢：</translation>
    </message>
    <message>
        <source>Fastest PyPI mirror here: %1 (--mirror pypi=%2).</source>
        <translation>此处最快的 PyPI 镜像：%1（--mirror pypi=%2）。</translation>
    </message>
    <message>
        <source>No PyPI mirror answered.</source>
        <translation>没有 PyPI 镜像响应。</translation>
    </message>
</context>
<context>
    <name>PipFailureReader</name>
    <message>
        <source>Set a &amp;proxy…</source>
        <translation>设置代理(&amp;P)…</translation>
    </message>
    <message>
        <source>Choose a &amp;mirror…</source>
        <translation>选择镜像(&amp;M)…</translation>
    </message>
    <message>
        <source>Use an offline b&amp;undle…</source>
        <translation>使用离线包(&amp;U)…</translation>
    </message>
    <message>
        <source>Choose another &amp;version…</source>
        <translation>选择其他版本(&amp;V)…</translation>
    </message>
    <message>
        <source>Choose another f&amp;older…</source>
        <translation>选择其他文件夹(&amp;O)…</translation>
    </message>
    <message>
        <source>&amp;Try again</source>
        <translation>重试(&amp;T)</translation>
    </message>
    <message>
        <source>Open the &amp;log</source>
        <translation>打开日志(&amp;L)</translation>
    </message>
    <message>
        <source>The list of pip&apos;s failure messages is missing. Reinstall tfsetup.</source>
        <translation>pip 失败信息列表缺失。请重新安装 tfsetup。</translation>
    </message>
    <message>
        <source>The list of pip&apos;s failure messages is damaged. Reinstall tfsetup.</source>
        <translation>pip 失败信息列表已损坏。请重新安装 tfsetup。</translation>
    </message>
    <message>
        <source>the package index</source>
        <translation>软件包索引</translation>
    </message>
    <message>
        <source>The package index</source>
        <translation>软件包索引</translation>
    </message>
    <message>
        <source>pip could not get through the proxy: the proxy refused the connection or could not be reached. Check the proxy address (host and port) on the Options page, or leave it empty if this network needs none.</source>
        <translation>pip 无法通过代理连接：代理拒绝了连接，或无法访问代理。请在“选项”页面检查代理地址（主机和端口）；如果此网络不需要代理，请留空。</translation>
    </message>
    <message>
        <source>The proxy asks for a user name and password (407), so pip was turned away. Give them in the proxy address on the Options page: http://user:password@proxy:port.</source>
        <translation>代理要求提供用户名和密码（407），因此 pip 被拒绝。请在“选项”页面的代理地址中填写：http://user:password@proxy:port。</translation>
    </message>
    <message>
        <source>The name %1 could not be found (no DNS answer): this computer is offline, the address is mistyped, or this network only reaches outside through a proxy. Check the mirror address, or choose another mirror.</source>
        <translation>找不到名称 %1（DNS 没有应答）：这台电脑没有联网、地址输入有误，或者此网络只能通过代理访问外网。请检查镜像地址，或选择其他镜像。</translation>
    </message>
    <message>
        <source>%1 refused the connection or could not be reached. Networks that only let traffic out through a proxy do this: set the proxy your lab or company gives.</source>
        <translation>%1 拒绝了连接，或无法访问。只允许通过代理访问外网的网络会出现这种情况：请设置实验室或公司提供的代理。</translation>
    </message>
    <message>
        <source>%1 did not answer in time. The network is slow or the server is blocked here: choose a nearer mirror.</source>
        <translation>%1 没有及时响应。网络较慢，或该服务器在这里被屏蔽：请选择更近的镜像。</translation>
    </message>
    <message>
        <source>The certificate of %1 could not be verified, so pip refused to use it. A lab or company network that inspects encrypted traffic does this; so does a mirror with a broken certificate. Choose another mirror, or ask for the network&apos;s proxy settings.</source>
        <translation>无法验证 %1 的证书，因此 pip 拒绝使用它。会检查加密流量的实验室或公司网络会导致这种情况，证书有问题的镜像也会。请选择其他镜像，或向网络管理员索取代理设置。</translation>
    </message>
    <message>
        <source>%1 has no page for the package pip asked for (404 Not Found): the mirror address is wrong or the mirror is incomplete. Check the address, or choose another mirror.</source>
        <translation>%1 上没有 pip 所请求软件包的页面（404 Not Found）：镜像地址有误，或镜像不完整。请检查地址，或选择其他镜像。</translation>
    </message>
    <message>
        <source>the package</source>
        <translation>该软件包</translation>
    </message>
    <message>
        <source>this Python</source>
        <translation>当前 Python</translation>
    </message>
    <message>
        <source>Python %1</source>
        <translation>Python %1</translation>
    </message>
    <message>
        <source>this computer</source>
        <translation>这台电脑</translation>
    </message>
    <message>
        <source>%1 offers no wheel of %2 for %3 on %4. That does not mean the release does not exist: it has no file built for this Python version and platform. Choose another TensorFlow or Python version.</source>
        <translation>%1 没有为 %4 上的 %3 提供 %2 的 wheel 包。这并不代表该版本不存在：只是没有为这个 Python 版本和平台构建的文件。请选择其他 TensorFlow 或 Python 版本。</translation>
    </message>
    <message>
        <source>A downloaded file no longer matches the hash it was checked with, so it was refused. The disk or another program changed it; try again to check and fetch it anew.</source>
        <translation>一个已下载的文件与校验时的哈希值不再一致，因此被拒绝。磁盘或其他程序修改了它；请重试，重新校验并下载该文件。</translation>
    </message>
    <message>
        <source>The disk is full (or your disk quota is used up), so the environment could not be written. Free some space, or choose a folder on another disk.</source>
        <translation>磁盘已满（或磁盘配额已用完），无法写入环境。请释放一些空间，或选择其他磁盘上的文件夹。</translation>
    </message>
    <message>
        <source>The environment&apos;s folder may not be written to (permission denied). Choose a folder in your own user folder.</source>
        <translation>没有写入环境文件夹的权限（权限被拒绝）。请选择你自己用户文件夹中的某个文件夹。</translation>
    </message>
    <message>
        <source>pip stopped with an error this wizard does not recognise. The log has pip&apos;s own words.</source>
        <translation>pip 因本向导无法识别的错误而停止。日志中有 pip 的原始输出。</translation>
    </message>
</context>
<context>
    <name>PlacementRules</name>
    <message>
        <source>The placement rules %1 cannot be read. Reinstall tfsetup.</source>
        <translation>无法读取放置规则 %1。请重新安装 tfsetup。</translation>
    </message>
    <message>
        <source>The placement rules %1 are damaged. Reinstall tfsetup.</source>
        <translation>文件放置规则 %1 已损坏。请重新安装 tfsetup。</translation>
    </message>
    <message>
        <source>The placement rules are damaged. Reinstall tfsetup.</source>
        <translation>文件放置规则已损坏。请重新安装 tfsetup。</translation>
    </message>
    <message>
        <source>tfsetup does not know where NVIDIA&apos;s files go for %1 with the &quot;%2&quot; layout. Choose another route or update tfsetup.</source>
        <translation>tfsetup 不知道在“%2”布局下 %1 的 NVIDIA 文件应放在哪里。请选择其他路线，或更新 tfsetup。</translation>
    </message>
    <message>
        <source>Two files from NVIDIA&apos;s archives would land on %1. The downloaded archives do not belong together; plan again.</source>
        <translation>NVIDIA 压缩包中有两个文件会被放到同一位置 %1。下载的这些压缩包不属于同一套组合；请重新制定方案。</translation>
    </message>
    <message>
        <source>The NVIDIA component name &quot;%1&quot; cannot be a folder name. The plan or bundle is damaged; make it again.</source>
        <translation>NVIDIA 组件名“%1”不能用作文件夹名。方案或离线包已损坏；请重新生成。</translation>
    </message>
</context>
<context>
    <name>PlanDownloads</name>
    <message>
        <source>Nothing is looked up without the network.</source>
        <translation>未联网时不查询任何信息。</translation>
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
    <name>Probe</name>
    <message>
        <source>The library version table %1 cannot be read; the program files are damaged, reinstall tfsetup.</source>
        <translation>无法读取库版本表 %1；程序文件已损坏，请重新安装 tfsetup。</translation>
    </message>
    <message>
        <source>The library version table is not valid JSON; reinstall tfsetup.</source>
        <translation>库版本表不是有效的 JSON；请重新安装 tfsetup。</translation>
    </message>
    <message>
        <source>The option %1 needs a value.</source>
        <translation>选项 %1 需要一个值。</translation>
    </message>
    <message>
        <source>--sublibrary takes PARENT&gt;NAME, not &quot;%1&quot;.</source>
        <translation>--sublibrary 的参数格式应为 PARENT&gt;NAME，而不是 &quot;%1&quot;。</translation>
    </message>
    <message>
        <source>Unknown option %1.</source>
        <translation>未知选项 %1。</translation>
    </message>
    <message>
        <source>The library probe answered with something that is not its report; reinstall tfsetup.</source>
        <translation>库探测程序返回的内容不是它的报告；请重新安装 tfsetup。</translation>
    </message>
    <message>
        <source>Name the libraries to load (--library GROUP:NAME) or the versions TensorFlow was built with (--cuda VERSION --cudnn VERSION).</source>
        <translation>请指定要加载的库（--library GROUP:NAME），或构建 TensorFlow 时所用的版本（--cuda VERSION --cudnn VERSION）。</translation>
    </message>
</context>
<context>
    <name>ProbeFinding</name>
    <message>
        <source>%1 is in %2 but could not be loaded: %3. A library it depends on is probably missing, or the file is damaged; run tfsetup repair.</source>
        <translation>%1 位于 %2 中，但无法加载：%3。可能缺少它依赖的某个库，或者该文件已损坏；请运行 tfsetup repair。</translation>
    </message>
    <message>
        <source>%1 could not be loaded: %2. TensorFlow will not use the GPU without it. Run tfsetup repair, or add the folder that holds it to the environment&apos;s library path.</source>
        <translation>无法加载 %1：%2。缺少它，TensorFlow 将不会使用 GPU。请运行 tfsetup repair，或把包含它的文件夹添加到该环境的库路径中。</translation>
    </message>
    <message>
        <source>%1, a part of %2, could not be loaded: %3. cuDNN loads its parts only when it needs them, so TensorFlow starts but convolutions fail. Put the complete cuDNN set in one folder (tfsetup repair does this).</source>
        <translation>%1 是 %2 的一部分，但无法加载：%3。cuDNN 只在需要时才加载其各个部分，所以 TensorFlow 可以启动，但卷积运算会失败。请把完整的 cuDNN 文件放在同一个文件夹中（tfsetup repair 会帮你完成）。</translation>
    </message>
    <message>
        <source>%1 was loaded from %2, not from the environment&apos;s own copy %3. Remove the other folder from the library path (LD_LIBRARY_PATH or PATH), or start TensorFlow through the environment&apos;s launcher.</source>
        <translation>%1 是从 %2 加载的，而不是从环境自带的副本 %3 加载的。请把那个文件夹从库搜索路径（LD_LIBRARY_PATH 或 PATH）中移除，或通过环境的启动脚本启动 TensorFlow。</translation>
    </message>
    <message>
        <source>%1 (%2) is version %3, older than the %4 this TensorFlow was built with. Install version %4 or newer of it (tfsetup repair).</source>
        <translation>%1（%2）的版本是 %3，比构建此 TensorFlow 时使用的 %4 旧。请安装 %4 或更新版本（tfsetup repair）。</translation>
    </message>
    <message>
        <source>%1 at %2 says it is version %3, but its name promises version %4: this file is not what its name says. Delete it and let tfsetup repair put the genuine library back.</source>
        <translation>位于 %2 的 %1 声称自己是 %3 版，但文件名表明它应是 %4 版：这个文件名不副实。请删除它，让 tfsetup repair 放回正版的库文件。</translation>
    </message>
    <message>
        <source>The NVIDIA driver library %1 could not be loaded: %2. Install the NVIDIA driver; without it TensorFlow can only use the processor.</source>
        <translation>无法加载 NVIDIA 驱动程序库 %1：%2。请安装 NVIDIA 驱动程序；没有它，TensorFlow 只能使用处理器。</translation>
    </message>
    <message>
        <source>The NVIDIA driver supports CUDA up to %1, but this TensorFlow needs CUDA %2. Update the NVIDIA driver.</source>
        <translation>NVIDIA 驱动程序最高支持 CUDA %1，但此 TensorFlow 需要 CUDA %2。请更新 NVIDIA 驱动程序。</translation>
    </message>
    <message>
        <source>The NVIDIA driver supports CUDA %1, older than the CUDA %2 this TensorFlow was built with. It usually still works (CUDA minor-version compatibility), but code compiled at run time can fail; update the driver if it does.</source>
        <translation>NVIDIA 驱动程序支持的是 CUDA %1，比构建此 TensorFlow 所用的 CUDA %2 旧。通常仍然可以使用（CUDA 次版本兼容性），但运行时编译的代码可能会失败；如果出现这种情况，请更新驱动程序。</translation>
    </message>
    <message>
        <source>%1 was loaded from %2; other copies exist: %3. Another program&apos;s library path may pick a different one.</source>
        <translation>%1 是从 %2 加载的；还存在其他副本：%3。其他程序的库搜索路径可能会选中另一个副本。</translation>
    </message>
    <message>
        <source>The GPU could not run a small test computation through the NVIDIA driver %1 (%2). TensorFlow cannot compute on this GPU either. Restart the computer; if that does not help, update or reinstall the NVIDIA driver.</source>
        <translation>GPU 无法通过 NVIDIA 驱动程序 %1 运行一个小的测试计算（%2）。TensorFlow 同样无法在这块 GPU 上计算。请重启计算机；如果仍然不行，请更新或重新安装 NVIDIA 驱动程序。</translation>
    </message>
    <message>
        <source>%1 loaded, but a matrix multiplication with it on the GPU failed (%2). TensorFlow&apos;s dense layers will fail the same way. Run tfsetup repair to reinstall it; if that does not help, update the NVIDIA driver.</source>
        <translation>%1 已加载，但用它在 GPU 上做矩阵乘法失败了（%2）。TensorFlow 的全连接层也会同样失败。请运行 tfsetup repair 重新安装它；如果仍然不行，请更新 NVIDIA 驱动程序。</translation>
    </message>
    <message>
        <source>%1 loaded, but a convolution with it on the GPU failed (%2). TensorFlow&apos;s convolution layers will fail the same way. Run tfsetup repair so that all cuDNN parts are one version that suits this CUDA; if that does not help, update the NVIDIA driver.</source>
        <translation>%1 已加载，但用它在 GPU 上做卷积失败了（%2）。TensorFlow 的卷积层也会同样失败。请运行 tfsetup repair，使 cuDNN 的所有部分都是适合此 CUDA 的同一版本；如果仍然不行，请更新 NVIDIA 驱动程序。</translation>
    </message>
    <message>
        <source>The NVIDIA driver %1 loaded but reports no usable GPU (%2), so nothing was computed on a GPU. TensorFlow will use the processor only.</source>
        <translation>NVIDIA 驱动程序 %1 已加载，但报告没有可用的 GPU（%2），因此没有在 GPU 上进行任何计算。TensorFlow 将只使用处理器。</translation>
    </message>
</context>
<context>
    <name>PyLock</name>
    <message>
        <source>text holds the control character U+%1, which must be written as an escape in double quotes</source>
        <translation>文本中含有控制字符 U+%1，它必须在双引号中写成转义序列</translation>
    </message>
    <message>
        <source>must be an http, https or file URL</source>
        <translation>必须是 http、https 或 file 网址</translation>
    </message>
    <message>
        <source>must be a wheel&apos;s file name (NAME.whl, no folder, no &quot;..&quot;)</source>
        <translation>必须是 wheel 的文件名（NAME.whl，不含文件夹，不含“..”）</translation>
    </message>
    <message>
        <source>must be 64 lower-case hexadecimal digits</source>
        <translation>必须是 64 位小写十六进制数字</translation>
    </message>
    <message>
        <source>has neither a &quot;name&quot; nor a &quot;url&quot;</source>
        <translation>既没有“name”也没有“url”</translation>
    </message>
    <message>
        <source>has no &quot;name&quot; and its URL does not end in a wheel&apos;s file name</source>
        <translation>没有“name”，且其网址不以 wheel 文件名结尾</translation>
    </message>
    <message>
        <source>must be a project name (letters, digits, &apos;.&apos;, &apos;_&apos; and &apos;-&apos;)</source>
        <translation>必须是项目名称（字母、数字、“.”、“_”和“-”）</translation>
    </message>
    <message>
        <source>must be a version such as 2.15.1</source>
        <translation>必须是 2.15.1 这样的版本号</translation>
    </message>
    <message>
        <source>must hold exactly one wheel</source>
        <translation>必须恰好包含一个 wheel</translation>
    </message>
    <message>
        <source>it holds more than %1 values</source>
        <translation>其中的值超过 %1 个</translation>
    </message>
    <message>
        <source>a carriage return without a line feed</source>
        <translation>回车符后没有换行符</translation>
    </message>
    <message>
        <source>a control character in a comment</source>
        <translation>注释中含有控制字符</translation>
    </message>
    <message>
        <source>more text after the value (a new line or a # comment must follow)</source>
        <translation>值后面还有其他文本（其后只能是换行或 # 注释）</translation>
    </message>
    <message>
        <source>a key is missing</source>
        <translation>缺少键</translation>
    </message>
    <message>
        <source>multi-line strings are not used in a lock file</source>
        <translation>锁定文件中不使用多行字符串</translation>
    </message>
    <message>
        <source>a key must be letters, digits, &apos;_&apos; and &apos;-&apos;, or text in quotes</source>
        <translation>键必须由字母、数字、“_”和“-”组成，或是引号中的文本</translation>
    </message>
    <message>
        <source>tables are nested more than %1 deep</source>
        <translation>表的嵌套超过 %1 层</translation>
    </message>
    <message>
        <source>the header %1 is not closed</source>
        <translation>表头 %1 没有闭合</translation>
    </message>
    <message>
        <source>[%1] adds to &quot;%2&quot;, which is defined already as a value</source>
        <translation>[%1] 向“%2”添加内容，但它已被定义为一个值</translation>
    </message>
    <message>
        <source>[[%1]] names something defined already</source>
        <translation>[[%1]] 指向已定义的内容</translation>
    </message>
    <message>
        <source>the table [%1] is defined twice</source>
        <translation>表 [%1] 被定义了两次</translation>
    </message>
    <message>
        <source>dotted keys (%1.…) are not used in a lock file</source>
        <translation>锁定文件中不使用带点的键（%1.…）</translation>
    </message>
    <message>
        <source>&quot;=&quot; is missing after the key &quot;%1&quot;</source>
        <translation>键“%1”后缺少“=”</translation>
    </message>
    <message>
        <source>the key &quot;%1&quot; is defined twice</source>
        <translation>键“%1”被定义了两次</translation>
    </message>
    <message>
        <source>a value is missing</source>
        <translation>缺少值</translation>
    </message>
    <message>
        <source>lists and tables are nested more than %1 deep</source>
        <translation>列表和表的嵌套超过 %1 层</translation>
    </message>
    <message>
        <source>text in quotes does not end on its line</source>
        <translation>引号中的文本没有在同一行内结束</translation>
    </message>
    <message>
        <source>\%1 must be followed by %2 hexadecimal digits</source>
        <translation>\%1 后面必须跟 %2 位十六进制数字</translation>
    </message>
    <message>
        <source>\%1%2 is not a Unicode character</source>
        <translation>\%1%2 不是 Unicode 字符</translation>
    </message>
    <message>
        <source>a backslash must start an escape such as \n or \u00e9</source>
        <translation>反斜杠必须开始一个转义序列，例如 \n 或 \u00e9</translation>
    </message>
    <message>
        <source>\%1 is not a valid escape</source>
        <translation>\%1 不是有效的转义序列</translation>
    </message>
    <message>
        <source>a value must be text in quotes, a whole number, true, false, a list [ … ] or a table { … }</source>
        <translation>值必须是引号中的文本、整数、true、false、列表 [ … ] 或表 { … }</translation>
    </message>
    <message>
        <source>floating-point numbers (%1) are not used in a lock file</source>
        <translation>锁定文件中不使用浮点数（%1）</translation>
    </message>
    <message>
        <source>hexadecimal, octal and binary numbers (%1) are not used in a lock file</source>
        <translation>锁定文件中不使用十六进制、八进制和二进制数（%1）</translation>
    </message>
    <message>
        <source>dates and times (%1) are not used in a lock file</source>
        <translation>锁定文件中不使用日期和时间（%1）</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a value: text must be in quotes, numbers whole</source>
        <translation>“%1”不是值：文本必须放在引号中，数字必须是整数</translation>
    </message>
    <message>
        <source>the number %1 is too large</source>
        <translation>数字 %1 太大</translation>
    </message>
    <message>
        <source>the list [ … ] is not closed</source>
        <translation>列表 [ … ] 没有闭合</translation>
    </message>
    <message>
        <source>&quot;,&quot; or &quot;]&quot; is missing in the list</source>
        <translation>列表中缺少“,”或“]”</translation>
    </message>
    <message>
        <source>a table { … } must be on one line</source>
        <translation>表 { … } 必须写在一行内</translation>
    </message>
    <message>
        <source>&quot;,&quot; or &quot;}&quot; is missing in the table { … }</source>
        <translation>表 { … } 中缺少“,”或“}”</translation>
    </message>
    <message>
        <source>a table { … } may not end with &quot;,&quot;</source>
        <translation>表 { … } 不能以“,”结尾</translation>
    </message>
    <message>
        <source>The lock file uses TOML that tfsetup does not read, at line %1: %2. Lock the packages again with tfsetup.</source>
        <translation>锁定文件第 %1 行使用了 tfsetup 不读取的 TOML：%2。请用 tfsetup 重新锁定这些包。</translation>
    </message>
    <message>
        <source>The lock file is not valid TOML at line %1: %2. Write it again with tfsetup.</source>
        <translation>锁定文件第 %1 行不是有效的 TOML：%2。请用 tfsetup 重新生成它。</translation>
    </message>
    <message>
        <source>The lock file is larger than %1 MB, more than a lock ever holds. Check that you gave the right file.</source>
        <translation>锁定文件大于 %1 MB，超出了锁定文件应有的大小。请检查是否给出了正确的文件。</translation>
    </message>
    <message>
        <source>the text is not UTF-8</source>
        <translation>文本不是 UTF-8 编码</translation>
    </message>
    <message>
        <source>The lock file is of version %1, which this tfsetup cannot read. Update tfsetup, or lock the packages again with this one.</source>
        <translation>锁定文件的版本为 %1，此版本的 tfsetup 无法读取。请更新 tfsetup，或用当前的 tfsetup 重新锁定这些包。</translation>
    </message>
    <message>
        <source>The lock file</source>
        <translation>锁定文件</translation>
    </message>
    <message>
        <source>Write it again with tfsetup.</source>
        <translation>请用 tfsetup 重新生成它。</translation>
    </message>
    <message>
        <source>names %1, which is listed before</source>
        <translation>指定了 %1，但它在前面已列出</translation>
    </message>
    <message>
        <source>is a wheel of another project than %1</source>
        <translation>是另一个项目的 wheel，而不是 %1 的</translation>
    </message>
    <message>
        <source>the lock file</source>
        <translation>锁定文件</translation>
    </message>
</context>
<context>
    <name>RedistManifest</name>
    <message>
        <source>The NVIDIA manifest %1</source>
        <translation>NVIDIA 清单 %1</translation>
    </message>
    <message>
        <source>None of its checksums is used. Try again later, or use another mirror.</source>
        <translation>其中的校验和一个都不会使用。请稍后重试，或换用其他镜像。</translation>
    </message>
    <message>
        <source>is larger than %1 bytes</source>
        <translation>大于 %1 字节</translation>
    </message>
    <message>
        <source>is not a JSON object (%1)</source>
        <translation>不是 JSON 对象（%1）</translation>
    </message>
    <message>
        <source>must be text</source>
        <translation>必须是文本</translation>
    </message>
    <message>
        <source>is not a safe relative path (&quot;%1&quot;)</source>
        <translation>不是安全的相对路径（“%1”）</translation>
    </message>
    <message>
        <source>is not 64 hexadecimal digits</source>
        <translation>不是 64 位十六进制数字</translation>
    </message>
    <message>
        <source>is not 32 hexadecimal digits</source>
        <translation>不是 32 位十六进制数字</translation>
    </message>
    <message>
        <source>is missing, not a number, or outside 1 byte to %1 bytes</source>
        <translation>缺失、不是数字，或不在 1 字节到 %1 字节之间</translation>
    </message>
    <message>
        <source>must be text or a component object</source>
        <translation>必须是文本或组件对象</translation>
    </message>
    <message>
        <source>must be text and not empty</source>
        <translation>必须是非空文本</translation>
    </message>
    <message>
        <source>must be an object</source>
        <translation>必须是对象</translation>
    </message>
    <message>
        <source>lists no component</source>
        <translation>没有列出任何组件</translation>
    </message>
</context>
<context>
    <name>RemoveReport</name>
    <message numerus="yes">
        <source>Would remove %n file(s) of %1 (%2).</source>
        <translation>
            <numerusform>将删除 %1 的 %n 个文件（%2）。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Removed %n file(s) of %1 (%2 freed).</source>
        <translation>
            <numerusform>已删除 %1 的 %n 个文件（释放了 %2）。</numerusform>
        </translation>
    </message>
    <message>
        <source>Would remove %1</source>
        <translation>将删除 %1</translation>
    </message>
    <message>
        <source>Removed %1</source>
        <translation>已删除 %1</translation>
    </message>
    <message>
        <source>Kept %1: it was changed after tfsetup wrote it.</source>
        <translation>保留了 %1：它在 tfsetup 写入后被修改过。</translation>
    </message>
    <message numerus="yes">
        <source>Kept %n file(s) tfsetup did not make (or that changed since), so the folder stays:</source>
        <translation>
            <numerusform>保留了 %n 个不是 tfsetup 创建的（或之后被修改过的）文件，因此该文件夹会保留：</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 is not an environment made by tfsetup (it has no valid environment.json), so tfsetup removes nothing from it. Delete it yourself if you are sure.</source>
        <translation>%1 不是 tfsetup 创建的环境（没有有效的 environment.json），因此 tfsetup 不会从中删除任何内容。如果确定，请自行删除。</translation>
    </message>
    <message>
        <source>%1 is a link to another folder. tfsetup removes nothing through links; remove the link yourself, or give the real folder.</source>
        <translation>%1 是指向另一个文件夹的链接。tfsetup 不会通过链接删除任何内容；请自行删除该链接，或指定真实的文件夹。</translation>
    </message>
    <message>
        <source>%1 could not be removed: it is in use. Close every program started from it (Python, Jupyter, shells) and try again.</source>
        <translation>无法删除 %1：它正在被使用。请关闭从它启动的所有程序（Python、Jupyter、终端）后重试。</translation>
    </message>
    <message>
        <source>The Jupyter kernel and menu entry stay: they start %1, so they belong to the environment this folder was copied from.</source>
        <translation>Jupyter 内核和菜单项保留：它们启动的是 %1，属于这个文件夹复制自的那个环境。</translation>
    </message>
    <message>
        <source>%1 cannot be removed while %2 exists: tfsetup needs that name for the removal and does not touch a folder it did not make. Rename or move that folder, then try again.</source>
        <translation>%2 存在时无法删除 %1：删除过程需要用到这个名称，而 tfsetup 不会动不是它创建的文件夹。请先重命名或移走那个文件夹，然后重试。</translation>
    </message>
</context>
<context>
    <name>RepairReport</name>
    <message>
        <source>Every recorded file of %1 is in place and unchanged.</source>
        <translation>%1 中记录的每个文件都在原位且未被改动。</translation>
    </message>
    <message numerus="yes">
        <source>%n recorded file(s) of %1 were not as installed:</source>
        <translation>
            <numerusform>%1 中有 %n 个已记录的文件与安装时不一致：</numerusform>
        </translation>
    </message>
    <message>
        <source>missing</source>
        <translation>缺失</translation>
    </message>
    <message>
        <source>changed</source>
        <translation>已被改动</translation>
    </message>
    <message>
        <source>moved to %1</source>
        <translation>已被移到 %1</translation>
    </message>
    <message>
        <source>would move it back</source>
        <translation>将移回原处</translation>
    </message>
    <message>
        <source>moved back</source>
        <translation>已移回原处</translation>
    </message>
    <message>
        <source>would take it again from %1</source>
        <translation>将从 %1 重新获取</translation>
    </message>
    <message>
        <source>taken again from %1</source>
        <translation>已从 %1 重新提取</translation>
    </message>
    <message>
        <source>would write it again</source>
        <translation>将重新写入</translation>
    </message>
    <message>
        <source>written again</source>
        <translation>已重新写入</translation>
    </message>
    <message>
        <source>would link it again</source>
        <translation>将重新链接</translation>
    </message>
    <message>
        <source>linked again</source>
        <translation>已重新链接</translation>
    </message>
    <message>
        <source>Would download again: %1</source>
        <translation>将重新下载：%1</translation>
    </message>
    <message>
        <source>Downloaded again: %1</source>
        <translation>已重新下载：%1</translation>
    </message>
    <message>
        <source>Still not as recorded: %1</source>
        <translation>仍与记录不符：%1</translation>
    </message>
    <message>
        <source>Nothing was changed (--dry-run).</source>
        <translation>没有做任何更改（--dry-run）。</translation>
    </message>
    <message>
        <source>The environment is repaired.</source>
        <translation>环境已修复。</translation>
    </message>
    <message>
        <source>The Python package %1 %2 is not as pip installed it:</source>
        <translation>Python 包 %1 %2 与 pip 安装时不一致：</translation>
    </message>
    <message>
        <source>its record names a place outside the environment (not read)</source>
        <translation>它的记录指向环境之外的位置（未读取）</translation>
    </message>
    <message>
        <source>would reinstall it from the package index</source>
        <translation>将从软件包索引重新安装它</translation>
    </message>
    <message>
        <source>reinstalled from the package index</source>
        <translation>已从软件包索引重新安装</translation>
    </message>
    <message>
        <source>would reinstall it from %1</source>
        <translation>将从 %1 重新安装它</translation>
    </message>
    <message>
        <source>reinstalled from %1</source>
        <translation>已从 %1 重新安装</translation>
    </message>
</context>
<context>
    <name>Repairer</name>
    <message>
        <source>The repair was cancelled. Nothing was changed.</source>
        <translation>修复已取消。没有做任何更改。</translation>
    </message>
    <message>
        <source>Cannot write %1. Check the free space and that the environment folder is yours, then repair again.</source>
        <translation>无法写入 %1。请检查剩余空间，并确认环境文件夹属于你，然后再次修复。</translation>
    </message>
    <message>
        <source>The environment record names the Jupyter kernel &quot;%1&quot;, which is not a name tfsetup gives a kernel. The record is damaged or was not written by tfsetup, so repair changes nothing. Install the environment again.</source>
        <translation>环境记录中的 Jupyter 内核名为“%1”，这不是 tfsetup 会给内核起的名字。该记录已损坏或不是 tfsetup 写的，所以修复不做任何更改。请重新安装该环境。</translation>
    </message>
    <message>
        <source>The environment record names %1 as the folder of its Jupyter kernel, but tfsetup registers this environment&apos;s kernel only in %2. The record is damaged or belongs to another environment, so repair changes nothing. Install the environment again.</source>
        <translation>环境记录把 %1 写作其 Jupyter 内核的文件夹，但 tfsetup 只在 %2 中注册此环境的内核。该记录已损坏或属于另一个环境，所以修复不做任何更改。请重新安装该环境。</translation>
    </message>
    <message>
        <source>Your Jupyter kernel folder %1 is a link to another folder, so repair does not write there and changes nothing. Remove the link and repair again, or install the environment again.</source>
        <translation>你的 Jupyter 内核文件夹 %1 是指向另一个文件夹的链接，所以修复不会写入那里，也不做任何更改。请删除该链接后再修复，或重新安装该环境。</translation>
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
    <message>
        <source>nvidia-smi, the tool that comes with the NVIDIA driver, is not installed here.</source>
        <translation>这里没有安装 nvidia-smi（NVIDIA 驱动程序附带的工具）。</translation>
    </message>
    <message>
        <source>Microsoft Visual C++ runtime: present (its version is not registered)</source>
        <translation>Microsoft Visual C++ 运行库：已安装（未登记版本）</translation>
    </message>
    <message>
        <source>Microsoft Visual C++ runtime: present, version %1</source>
        <translation>Microsoft Visual C++ 运行库：已安装，版本 %1</translation>
    </message>
    <message>
        <source>The Microsoft Visual C++ runtime %1 is registered, but %2 is missing.</source>
        <translation>Microsoft Visual C++ 运行库 %1 已登记，但缺少 %2。</translation>
    </message>
</context>
<context>
    <name>RouteNames</name>
    <message>
        <source>Processor only (no GPU)</source>
        <translation>仅使用处理器（不使用 GPU）</translation>
    </message>
    <message>
        <source>NVIDIA GPU, CUDA as pip wheels with NVIDIA&apos;s CUDA packages</source>
        <translation>NVIDIA GPU，通过 NVIDIA 的 CUDA 软件包以 pip wheel 包形式安装 CUDA</translation>
    </message>
    <message>
        <source>NVIDIA GPU inside WSL2 (Linux in Windows), CUDA as pip wheels</source>
        <translation>WSL2（Windows 中的 Linux）内的 NVIDIA GPU，以 pip wheel 包形式安装 CUDA</translation>
    </message>
    <message>
        <source>NVIDIA GPU on Windows, CUDA libraries from NVIDIA&apos;s archives</source>
        <translation>Windows 上的 NVIDIA GPU，CUDA 库来自 NVIDIA 的归档文件</translation>
    </message>
    <message>
        <source>NVIDIA GPU, CUDA toolkit libraries from NVIDIA&apos;s archives</source>
        <translation>NVIDIA GPU，CUDA 工具包库来自 NVIDIA 的归档文件</translation>
    </message>
    <message>
        <source>AMD GPU with ROCm (experimental)</source>
        <translation>AMD GPU，使用 ROCm（实验性）</translation>
    </message>
    <message>
        <source>DirectX 12 GPU with DirectML (experimental)</source>
        <translation>DirectX 12 GPU，使用 DirectML（实验性）</translation>
    </message>
    <message>
        <source>Apple GPU with Metal</source>
        <translation>Apple GPU，使用 Metal</translation>
    </message>
    <message>
        <source>Another GPU route (experimental)</source>
        <translation>其他 GPU 安装方式（实验性）</translation>
    </message>
    <message>
        <source>Another GPU route</source>
        <translation>其他 GPU 安装方式</translation>
    </message>
    <message>
        <source>Processor only</source>
        <translation>仅处理器</translation>
    </message>
    <message>
        <source>GPU, CUDA from pip</source>
        <translation>GPU，CUDA 来自 pip</translation>
    </message>
    <message>
        <source>GPU in WSL2</source>
        <translation>WSL2 中的 GPU</translation>
    </message>
    <message>
        <source>GPU on Windows</source>
        <translation>Windows 上的 GPU</translation>
    </message>
    <message>
        <source>GPU, CUDA archives</source>
        <translation>GPU，CUDA 归档文件</translation>
    </message>
    <message>
        <source>AMD GPU (ROCm)</source>
        <translation>AMD GPU（ROCm）</translation>
    </message>
    <message>
        <source>DirectML</source>
        <translation>DirectML</translation>
    </message>
    <message>
        <source>Apple GPU (Metal)</source>
        <translation>Apple GPU（Metal）</translation>
    </message>
</context>
<context>
    <name>SetupFlow</name>
    <message>
        <source>No checksum is published for %1, so tfsetup cannot check the download. Make an offline bundle with tfsetup bundle --trust-on-first-use on a trusted network, or choose another plan.</source>
        <translation>%1 没有发布校验和，因此 tfsetup 无法校验下载的文件。请在可信的网络中用 tfsetup bundle --trust-on-first-use 制作一个离线包，或选择其他方案。</translation>
    </message>
    <message>
        <source>%1 has no web address tfsetup can download from. Check the mirror settings.</source>
        <translation>%1 没有 tfsetup 可以下载的网址。请检查镜像设置。</translation>
    </message>
    <message>
        <source>Python %1 (64-bit) is needed to make the environment, and none was found. Install it, then scan this computer again.</source>
        <translation>创建环境需要 Python %1（64 位），但没有找到。请安装它，然后重新扫描这台计算机。</translation>
    </message>
    <message>
        <source>%1 must be installed by its own installer, which this wizard cannot run yet. Choose the portable route, or install it yourself and scan again.</source>
        <translation>%1 必须用它自己的安装程序安装，而本向导目前还无法运行该安装程序。请选择便携路线，或自行安装后重新扫描。</translation>
    </message>
    <message>
        <source>%1 has no SHA-256 checksum, so the installer cannot check it. Choose another plan.</source>
        <translation>%1 没有 SHA-256 校验和，因此安装程序无法校验它。请选择其他方案。</translation>
    </message>
    <message>
        <source>%1 has not been downloaded yet. Go back to the download step.</source>
        <translation>%1 还没有下载。请返回下载步骤。</translation>
    </message>
    <message>
        <source>Give a full folder path that starts with a drive, like C:\tfsetup-envs.</source>
        <translation>请提供以盘符开头的完整文件夹路径，例如 C:\tfsetup-envs。</translation>
    </message>
    <message>
        <source>Give a full folder path that starts with /, like /home/you/tfsetup-envs.</source>
        <translation>请提供以 / 开头的完整文件夹路径，例如 /home/you/tfsetup-envs。</translation>
    </message>
    <message>
        <source>This folder has characters outside English letters and digits. Some Python packages and NVIDIA tools fail in such folders on Windows; a folder like C:\tfsetup-envs is safer.</source>
        <translation>此文件夹的路径中含有英文字母和数字以外的字符。在 Windows 上，有些 Python 包和 NVIDIA 工具在这样的文件夹中会出错；使用 C:\tfsetup-envs 这样的文件夹更稳妥。</translation>
    </message>
    <message>
        <source>This folder path is long (%1 characters). Windows limits paths to %2 characters unless long paths are enabled, and pip places files deep inside the environment. Choose a shorter folder.</source>
        <translation>这个文件夹路径较长（%1 个字符）。除非启用了长路径支持，否则 Windows 限制路径不超过 %2 个字符，而 pip 会把文件放在环境内很深的位置。请选择一个较短的文件夹。</translation>
    </message>
    <message>
        <source>Trusted on first use: no checksum is published anywhere; this SHA-256 was recorded when the file was downloaded on %1.</source>
        <translation>首次使用时信任：任何地方都没有公布它的校验和；这个 SHA-256 是在 %1 下载该文件时记录的。</translation>
    </message>
    <message>
        <source>The offline bundle %1 does not hold %2, which this plan needs. Make the bundle again with tfsetup bundle on a computer with internet.</source>
        <translation>离线包 %1 中没有此方案所需的 %2。请在能上网的电脑上用 tfsetup bundle 重新制作离线包。</translation>
    </message>
    <message>
        <source>The offline bundle holds no pip wheels, so pip downloads %1 from %2; that needs the network. For an install without network, make the bundle without --no-wheelhouse.</source>
        <translation>离线包中没有 pip 的 wheel 文件，所以 pip 要从 %2 下载 %1，这需要网络。若要在无网络时安装，请制作离线包时不要加 --no-wheelhouse。</translation>
    </message>
    <message>
        <source>The offline bundle %1 does not hold %2, which its lock names. Make the bundle again with tfsetup bundle on a computer with internet.</source>
        <translation>离线包 %1 中没有其锁定文件所列的 %2。请在能上网的电脑上用 tfsetup bundle 重新制作离线包。</translation>
    </message>
</context>
<context>
    <name>SetupSession</name>
    <message>
        <source>The saved setup was written by another version of tfsetup and cannot be continued.</source>
        <translation>保存的安装进度由另一个版本的 tfsetup 写入，无法继续。</translation>
    </message>
    <message>
        <source>The saved setup is incomplete and cannot be continued.</source>
        <translation>保存的安装进度不完整，无法继续。</translation>
    </message>
    <message>
        <source>The setup&apos;s progress could not be saved in %1; it cannot be continued after a restart.</source>
        <translation>安装进度无法保存到 %1；重启后将无法继续这次安装。</translation>
    </message>
</context>
<context>
    <name>SimpleIndex</name>
    <message>
        <source>The package index sent a page for %1 larger than any real project page (more than %2 MB or %3 files). Check the package index address.</source>
        <translation>软件包索引为 %1 发送的页面比任何真实的项目页面都大（超过 %2 MB 或 %3 个文件）。请检查软件包索引的地址。</translation>
    </message>
    <message>
        <source>The package index answered %1 with something that is not a package list. Check the package index address.</source>
        <translation>软件包索引对 %1 的回答不是软件包列表。请检查软件包索引的地址。</translation>
    </message>
</context>
<context>
    <name>SmokeResult</name>
    <message>
        <source>Import TensorFlow</source>
        <translation>导入 TensorFlow</translation>
    </message>
    <message>
        <source>Find the GPU</source>
        <translation>查找 GPU</translation>
    </message>
    <message>
        <source>Run a convolution (cuDNN)</source>
        <translation>运行卷积（cuDNN）</translation>
    </message>
    <message>
        <source>Compute on the GPU</source>
        <translation>在 GPU 上计算</translation>
    </message>
    <message>
        <source>Check the devices</source>
        <translation>检查设备</translation>
    </message>
    <message>
        <source>Run a convolution</source>
        <translation>运行卷积</translation>
    </message>
    <message>
        <source>Compute on the processor</source>
        <translation>在处理器上计算</translation>
    </message>
    <message>
        <source>The environment&apos;s Python could not be started: %1. Run tfsetup repair to rewrite the launchers.</source>
        <translation>无法启动该环境的 Python：%1。请运行 tfsetup repair 重新写入启动脚本。</translation>
    </message>
    <message>
        <source>The check did not finish in time. TensorFlow may be compiling GPU code for this card the first time (this can take many minutes); run tfsetup verify again.</source>
        <translation>检查没有在规定时间内完成。TensorFlow 可能正在首次为这块显卡编译 GPU 代码（这可能需要很多分钟）；请再次运行 tfsetup verify。</translation>
    </message>
    <message>
        <source>Python stopped with &quot;Illegal instruction&quot; while loading TensorFlow. This processor probably lacks an instruction set (AVX) the official TensorFlow packages require; use an older TensorFlow built without it or another computer.</source>
        <translation>加载 TensorFlow 时 Python 因“Illegal instruction”（非法指令）而停止。这个处理器可能缺少官方 TensorFlow 安装包所需的指令集（AVX）；请使用不依赖该指令集构建的旧版 TensorFlow，或换一台计算机。</translation>
    </message>
    <message>
        <source>Python stopped before the check could report (exit code %1). The details below show its last words; run tfsetup doctor with them.</source>
        <translation>检查还没来得及报告结果，Python 就已退出（退出码 %1）。下方的详细信息显示了它最后的输出；请带上这些信息运行 tfsetup doctor。</translation>
    </message>
    <message>
        <source>TensorFlow is not installed in this environment&apos;s Python. Run tfsetup repair, or install the environment again.</source>
        <translation>该环境的 Python 中没有安装 TensorFlow。请运行 tfsetup repair，或重新安装该环境。</translation>
    </message>
    <message>
        <source>TensorFlow could not be imported because the library %1 is missing. Run tfsetup repair, or add the folder that holds it to the environment&apos;s library path.</source>
        <translation>无法导入 TensorFlow，因为缺少库 %1。请运行 tfsetup repair，或把包含它的文件夹添加到该环境的库路径中。</translation>
    </message>
    <message>
        <source>Windows could not load a DLL TensorFlow needs. Install the Microsoft Visual C++ Redistributable (x64); if that does not help, run tfsetup doctor.</source>
        <translation>Windows 无法加载 TensorFlow 需要的某个 DLL。请安装 Microsoft Visual C++ 可再发行程序包（x64）；如果仍然不行，请运行 tfsetup doctor。</translation>
    </message>
    <message>
        <source>TensorFlow was built against an older NumPy than the one installed. Install the NumPy version this TensorFlow release names (tfsetup repair does).</source>
        <translation>TensorFlow 构建时所用的 NumPy 比当前安装的版本旧。请安装此 TensorFlow 版本指定的 NumPy 版本（tfsetup repair 会这样做）。</translation>
    </message>
    <message>
        <source>TensorFlow could not be imported: %1. Run tfsetup doctor with the details below.</source>
        <translation>无法导入 TensorFlow：%1。请根据下面的详细信息运行 tfsetup doctor。</translation>
    </message>
    <message>
        <source>TensorFlow %1 imported in %2 s</source>
        <translation>TensorFlow %1 导入耗时 %2 秒</translation>
    </message>
    <message>
        <source>TensorFlow could not list its devices: %1. Run tfsetup doctor with the details below.</source>
        <translation>TensorFlow 无法列出它的设备：%1。请带上下面的详细信息运行 tfsetup doctor。</translation>
    </message>
    <message>
        <source>This TensorFlow package was built without GPU support (TensorFlow 2.11 and newer on native Windows, or a CPU-only package). Use WSL2 or TensorFlow 2.10 on Windows, or the GPU package on Linux.</source>
        <translation>此 TensorFlow 安装包在构建时没有 GPU 支持（原生 Windows 上的 TensorFlow 2.11 及更新版本，或仅支持 CPU 的安装包）。请在 Windows 上使用 WSL2 或 TensorFlow 2.10，在 Linux 上使用 GPU 版安装包。</translation>
    </message>
    <message>
        <source>TensorFlow could not load %1, so it ignores the GPU. Run tfsetup repair, or add the folder that holds these files to the environment&apos;s library path.</source>
        <translation>TensorFlow 无法加载 %1，因此不会使用 GPU。请运行 tfsetup repair，或把存放这些文件的文件夹添加到环境的库搜索路径中。</translation>
    </message>
    <message>
        <source>The NVIDIA driver did not start (%1). Check that the NVIDIA driver is installed and the GPU is enabled, then restart the computer.</source>
        <translation>NVIDIA 驱动程序没有启动（%1）。请检查 NVIDIA 驱动程序是否已安装、GPU 是否已启用，然后重启计算机。</translation>
    </message>
    <message>
        <source>TensorFlow imported but sees no GPU. Run tfsetup doctor to find out which part is missing.</source>
        <translation>TensorFlow 已导入，但看不到任何 GPU。请运行 tfsetup doctor，找出缺少的是哪一部分。</translation>
    </message>
    <message>
        <source>No GPU, as planned: TensorFlow uses the processor</source>
        <translation>按计划不使用 GPU：TensorFlow 使用处理器（CPU）运行</translation>
    </message>
    <message>
        <source>TensorFlow sees %1</source>
        <translation>TensorFlow 检测到 %1</translation>
    </message>
    <message>
        <source>Memory growth could not be switched on, so TensorFlow may reserve all GPU memory at once: %1</source>
        <translation>无法开启显存按需增长，因此 TensorFlow 可能会一次性占用全部 GPU 显存：%1</translation>
    </message>
    <message>
        <source>The GPU ran out of memory. Close other programs that use the GPU (including other Jupyter notebooks) and run the check again.</source>
        <translation>GPU 显存不足。请关闭其他正在使用 GPU 的程序（包括其他 Jupyter notebook），然后重新运行检查。</translation>
    </message>
    <message>
        <source>This TensorFlow build has no code for this GPU&apos;s architecture. Choose a TensorFlow release that supports the card (tfsetup plan lists them).</source>
        <translation>此 TensorFlow 版本不包含适用于这块 GPU 架构的代码。请选择支持这块显卡的 TensorFlow 版本（tfsetup plan 会列出）。</translation>
    </message>
    <message>
        <source>The convolution did not run; see the details below.</source>
        <translation>卷积没有运行；请查看下面的详细信息。</translation>
    </message>
    <message>
        <source>TensorFlow found cuDNN %1 but was built with cuDNN %2; it needs the same major version and at least that minor version. Install cuDNN %2 or newer of that major version (tfsetup repair).</source>
        <translation>TensorFlow 找到的是 cuDNN %1，但它是用 cuDNN %2 构建的；它需要主版本号相同、次版本号不低于该版本的 cuDNN。请安装同一主版本中 %2 或更新的 cuDNN（tfsetup repair）。</translation>
    </message>
    <message>
        <source>The GPU works but cuDNN could not be used, so convolutions fail. cuDNN is missing, incomplete, or a different version than TensorFlow needs; run tfsetup repair.</source>
        <translation>GPU 可以工作，但无法使用 cuDNN，因此卷积运算会失败。cuDNN 缺失、不完整，或者版本与 TensorFlow 所需的不同；请运行 tfsetup repair。</translation>
    </message>
    <message>
        <source>The convolution failed: %1. Run tfsetup doctor with the details below.</source>
        <translation>卷积失败：%1。请根据下面的详细信息运行 tfsetup doctor。</translation>
    </message>
    <message>
        <source>The convolution ran on %1 instead of the GPU. Run tfsetup doctor.</source>
        <translation>卷积运算在 %1 上运行，而不是在 GPU 上。请运行 tfsetup doctor。</translation>
    </message>
    <message>
        <source>Convolution in %1 s on %2</source>
        <translation>卷积耗时 %1 秒，运行于 %2</translation>
    </message>
    <message>
        <source>The convolution gave a wrong result. The GPU or its driver is unreliable; update the driver and run the check again.</source>
        <translation>卷积结果错误。GPU 或其驱动程序不可靠；请更新驱动程序，然后重新检查。</translation>
    </message>
    <message>
        <source>The matrix product failed: %1. Run tfsetup doctor with the details below.</source>
        <translation>矩阵乘法失败：%1。请带上下方的详细信息运行 tfsetup doctor。</translation>
    </message>
    <message>
        <source>The matrix product ran on %1 instead of the GPU. Run tfsetup doctor.</source>
        <translation>矩阵乘法运行在 %1 上，而不是 GPU 上。请运行 tfsetup doctor。</translation>
    </message>
    <message>
        <source>The matrix product gave a wrong result. The GPU or its driver is unreliable; update the driver and run the check again.</source>
        <translation>矩阵乘法结果错误。GPU 或其驱动程序不可靠；请更新驱动程序，然后重新检查。</translation>
    </message>
    <message>
        <source>%1×%1 matrix product in %2 s (first run %3 s)</source>
        <translation>%1×%1 矩阵乘法耗时 %2 秒（首次运行 %3 秒）</translation>
    </message>
    <message>
        <source>the processor</source>
        <translation>处理器</translation>
    </message>
    <message>
        <source>GPU %1</source>
        <translation>GPU %1</translation>
    </message>
    <message>
        <source>GPU %1: %2</source>
        <translation>GPU %1：%2</translation>
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
        <translation>知识库中没有说明 TensorFlow %1 支持哪些 GPU。</translation>
    </message>
    <message>
        <source>TensorFlow %1 (CUDA %2) runs on compute capability %3 and newer; the %4 has %5.</source>
        <translation>TensorFlow %1（CUDA %2）需要计算能力 %3 或更高；%4 的计算能力是 %5。</translation>
    </message>
    <message>
        <source>TensorFlow %1 is built with CUDA %2, which targets compute capability up to %3; the %4 (%5) is newer than any CUDA the catalog knows.</source>
        <translation>TensorFlow %1 是用 CUDA %2 构建的，它最高支持计算能力 %3；%4（%5）太新，知识库中已知的 CUDA 版本都不支持它。</translation>
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
        <source>WSL1 has no GPU access. Convert this distribution to WSL2 (wsl --set-version &lt;distribution&gt; 2).</source>
        <translation>WSL1 无法使用 GPU。请把这个发行版转换为 WSL2（wsl --set-version &lt;distribution&gt; 2）。</translation>
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
        <source>TensorFlow %1&apos;s tested configuration runs natively on your %2.</source>
        <translation>TensorFlow %1 的官方测试配置可以在你的 %2 上原生运行。</translation>
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
        <translation>TensorFlow %1 版本更新，已列为备选方案，但知识库无法确认它的全部信息。</translation>
    </message>
    <message>
        <source>The hardware report does not name the operating system; the plan assumes Linux. Give --os to choose.</source>
        <translation>硬件报告中没有注明操作系统；本方案假定为 Linux。可以用 --os 指定。</translation>
    </message>
    <message>
        <source>The catalog has no TensorFlow release %1 for this machine&apos;s routes.</source>
        <translation>知识库中没有适用于本机可用路线的 TensorFlow %1 版本。</translation>
    </message>
    <message>
        <source>No TensorFlow release in the catalog can use your %1 here; the rejected combinations say why.</source>
        <translation>知识库中没有哪个 TensorFlow 版本能在这里使用你的 %1；被排除的组合中说明了原因。</translation>
    </message>
    <message>
        <source>Official TensorFlow packages need a processor with AVX. Use a newer computer or a hosted notebook service.</source>
        <translation>官方 TensorFlow 安装包需要支持 AVX 的处理器。请换一台较新的计算机，或使用云端 Notebook 服务。</translation>
    </message>
    <message>
        <source> or </source>
        <comment>joins processor architectures: x86_64 or arm64</comment>
        <translation> 或 </translation>
    </message>
    <message>
        <source>TensorFlow %1 on the processor only: the fallback that works without the GPU, slower but with nothing to install for the graphics card.</source>
        <translation>TensorFlow %1 只使用处理器：这是不使用 GPU 也能工作的备选方案，速度较慢，但无需为显卡安装任何东西。</translation>
    </message>
    <message>
        <source>TensorFlow %1 has no official package for %2 on %3: the last release for it is %4.</source>
        <translation>TensorFlow %1 没有适用于 %3 上 %2 的官方软件包：它的最后一个版本是 %4。</translation>
    </message>
    <message>
        <source>%1 or newer</source>
        <comment>a Python range open at the top</comment>
        <translation>%1 或更新</translation>
    </message>
    <message>
        <source>%1 or older</source>
        <comment>a Python range open at the bottom</comment>
        <translation>%1 或更旧</translation>
    </message>
    <message>
        <source>tfsetup could not read this Windows build number; GPU support in WSL2 needs Windows 10 build %1 or newer (winver shows the build).</source>
        <translation>tfsetup 无法读取这个 Windows 版本号；WSL2 中的 GPU 支持需要 Windows 10 版本 %1 或更新（winver 会显示版本号）。</translation>
    </message>
    <message>
        <source>“%1” runs on %2; this machine runs %3.</source>
        <translation>“%1”运行于 %2；这台机器运行的是 %3。</translation>
    </message>
    <message>
        <source>This is WSL2, where the GPU driver is the Windows one: “%1” does not work here; the GPU inside WSL2 does.</source>
        <translation>这里是 WSL2，GPU 驱动程序由 Windows 提供：“%1”在这里无法使用，而 WSL2 内的 GPU 安装方式可以。</translation>
    </message>
    <message>
        <source>“%1” is for Windows machines and for WSL2 itself; this is plain Linux.</source>
        <translation>“%1”适用于 Windows 机器和 WSL2 本身；这里是普通 Linux。</translation>
    </message>
    <message>
        <source>“%1” runs on Windows and inside WSL2, not on plain Linux.</source>
        <translation>“%1”可在 Windows 上和 WSL2 内运行，不能在普通 Linux 上运行。</translation>
    </message>
    <message>
        <source>“%1” needs a %2 processor; this machine is %3.</source>
        <translation>“%1”需要 %2 处理器；这台机器是 %3。</translation>
    </message>
    <message>
        <source>No NVIDIA GPU was found; “%1” needs one.</source>
        <translation>未找到 NVIDIA GPU；“%1”需要 NVIDIA GPU。</translation>
    </message>
    <message>
        <source>“%1” needs an NVIDIA GPU; this machine has %2.</source>
        <translation>“%1”需要 NVIDIA GPU；这台机器配备的是 %2。</translation>
    </message>
    <message>
        <source>“%1” needs an AMD GPU; none was found.</source>
        <translation>“%1”需要 AMD GPU，但未找到。</translation>
    </message>
    <message>
        <source>“%1” needs a Mac with Apple silicon.</source>
        <translation>“%1”需要配备 Apple 芯片的 Mac。</translation>
    </message>
    <message>
        <source>“%1” needs a DirectX 12 GPU; none was found.</source>
        <translation>“%1”需要支持 DirectX 12 的 GPU，但未找到。</translation>
    </message>
    <message>
        <source>every detail of “%1”</source>
        <translation>“%1”的全部细节</translation>
    </message>
    <message>
        <source>Prepare “%1” (%2).</source>
        <translation>准备“%1”（%2）。</translation>
    </message>
    <message>
        <source>“%1” is offered as an experiment: tfsetup cannot confirm that it supports your GPU.</source>
        <translation>“%1”是实验性的：tfsetup 无法确认它是否支持你的 GPU。</translation>
    </message>
    <message>
        <source>TensorFlow %1 uses your GPU through “%2”.</source>
        <translation>TensorFlow %1 通过“%2”使用你的 GPU。</translation>
    </message>
    <message>
        <source>TensorFlow %1 on “%2”, an experimental route.</source>
        <translation>TensorFlow %1，使用“%2”（实验性安装方式）。</translation>
    </message>
    <message>
        <source>TensorFlow %1 supports Python %4, and “%2” needs Python %3: no Python fits both.</source>
        <translation>TensorFlow %1 支持 Python %4，而“%2”需要 Python %3：没有同时满足两者的 Python 版本。</translation>
    </message>
    <message>
        <source>%1 %2, the plug-in&apos;s last release (%3), has packages for Python %4 only.</source>
        <translation>%1 %2 是该插件的最后一个版本（%3），只提供 Python %4 的安装包。</translation>
    </message>
    <message>
        <source>The %4 (compute capability %5) is newer than TensorFlow %1&apos;s GPU code: its packages are built with CUDA %2, which targets compute capability up to %3, and code for the %4 must be built with CUDA %6 or newer. Installing a newer CUDA yourself does not change TensorFlow&apos;s packages.</source>
        <translation>%4（计算能力 %5）比 TensorFlow %1 的 GPU 代码更新：TensorFlow %1 的安装包用 CUDA %2 构建，最高只面向计算能力 %3，而 %4 的代码必须用 CUDA %6 或更新版本构建。自己安装更新的 CUDA 不会改变 TensorFlow 的安装包。</translation>
    </message>
    <message>
        <source>%1 %2, the plug-in&apos;s last release (%3), does not work with TensorFlow %4: importing TensorFlow fails while it loads the plug-in. The newest TensorFlow it works with is %5.</source>
        <translation>%1 %2 是该插件的最后一个版本（%3），不能与 TensorFlow %4 一起使用：导入 TensorFlow 时加载该插件会失败。它能配合的最新 TensorFlow 是 %5。</translation>
    </message>
    <message>
        <source>%1 %2, the plug-in&apos;s last release (%3), works with TensorFlow up to %5; TensorFlow %4 came later and is not known to work with it.</source>
        <translation>%1 %2 是该插件的最后一个版本（%3），最高可配合 TensorFlow %5；TensorFlow %4 发布在它之后，没有记录表明两者能一起使用。</translation>
    </message>
    <message>
        <source>You asked for Python %1.</source>
        <translation>你指定的是 Python %1。</translation>
    </message>
    <message>
        <source>TensorFlow %1 supports Python %2.</source>
        <translation>TensorFlow %1 支持 Python %2。</translation>
    </message>
    <message>
        <source>No Python fits both.</source>
        <translation>没有同时满足两者的 Python 版本。</translation>
    </message>
    <message>
        <source>%1 (%2; its last driver branch is R%3)</source>
        <translation>%1（%2 架构；最后支持它的驱动分支是 R%3）</translation>
    </message>
    <message>
        <source>Take a driver of the R%1 branch or older: NVIDIA&apos;s later drivers no longer support %2 GPUs such as your %3.</source>
        <translation>请选择 R%1 分支或更早的驱动：NVIDIA 之后的驱动不再支持 %2 架构的 GPU，例如你的 %3。</translation>
    </message>
    <message>
        <source>Driver %1 or newer, which TensorFlow %2 needs, no longer supports your %3: it stops working for every program on this machine, not only for TensorFlow.</source>
        <translation>TensorFlow %2 需要的 %1 或更新版本的驱动不再支持你的 %3：这台机器上的所有程序都将无法使用它，而不只是 TensorFlow。</translation>
    </message>
    <message>
        <source>It installs beside your CUDA %1, which stays as it is for other programs: this environment&apos;s launcher puts CUDA %2 first, for this environment only.</source>
        <translation>它会安装在你现有的 CUDA %1 旁边，CUDA %1 保持不变，其他程序照常使用；只有这个环境的启动脚本会把 CUDA %2 放在最前面。</translation>
    </message>
    <message>
        <source>To keep every GPU working, take the first alternative instead: TensorFlow %1 (%2) runs with the driver you have.</source>
        <translation>要让每块 GPU 都继续可用，请改选第一个备选方案：TensorFlow %1（%2）用你现有的驱动即可运行。</translation>
    </message>
    <message>
        <source>To keep every GPU working, take the first alternative instead: TensorFlow %1 (%2) needs no driver that drops one.</source>
        <translation>要让每块 GPU 都继续可用，请改选第一个备选方案：TensorFlow %1（%2）不需要会放弃任何一块 GPU 的驱动。</translation>
    </message>
    <message>
        <source>The hardware report describes a %1 machine; this plan is for %2, as --os asks. It plans for the report&apos;s processor and GPUs; the report&apos;s Pythons, NVIDIA driver, CUDA and cuDNN belong to %1, so the plan treats them as not installed on %2.</source>
        <translation>硬件报告描述的是一台 %1 机器；按 --os 的要求，这个方案面向 %2。方案按报告中的处理器和 GPU 来制定；报告中的 Python、NVIDIA 驱动、CUDA 和 cuDNN 属于 %1，所以方案把它们视为在 %2 上未安装。</translation>
    </message>
    <message>
        <source>No TensorFlow release on “%2” can use your %1 here; plan without --route to see every way.</source>
        <translation>“%2”上没有哪个 TensorFlow 版本能在这里使用你的 %1；去掉 --route 重新制定方案，可以看到所有路线。</translation>
    </message>
    <message>
        <source>No TensorFlow release in the catalog can use your %1 here.</source>
        <translation>知识库中没有哪个 TensorFlow 版本能在这里使用你的 %1。</translation>
    </message>
</context>
<context>
    <name>SourceCatalog</name>
    <message>
        <source>The sources catalog %1 cannot be read. Reinstall tfsetup.</source>
        <translation>无法读取下载来源表 %1。请重新安装 tfsetup。</translation>
    </message>
    <message>
        <source>The sources catalog is not valid JSON. Reinstall tfsetup.</source>
        <translation>下载来源表不是有效的 JSON。请重新安装 tfsetup。</translation>
    </message>
    <message>
        <source>The sources catalog pins the relocatable Python %1 (python-build-standalone release %2) to the SHA-256 &quot;%3&quot;, which is not 64 lower-case hexadecimal digits. Correct that record in the sources catalog, or reinstall tfsetup.</source>
        <translation>下载来源表把可移植 Python %1（python-build-standalone 发布 %2）固定为 SHA-256“%3”，这不是 64 位小写十六进制数字。请在下载来源表中更正该记录，或重新安装 tfsetup。</translation>
    </message>
    <message>
        <source>is not a list</source>
        <translation>不是列表</translation>
    </message>
    <message>
        <source>is not an object</source>
        <translation>不是对象</translation>
    </message>
    <message>
        <source>must name an origin whose files a mirror copies (nvidia, python, python-build-standalone); PyPI mirrors are chosen in the options</source>
        <translation>必须指定镜像所复制文件的来源（nvidia、python、python-build-standalone）；PyPI 镜像在选项中选择</translation>
    </message>
    <message>
        <source>must be an http://, https:// or file:// address</source>
        <translation>必须是 http://、https:// 或 file:// 地址</translation>
    </message>
    <message>
        <source>must be text</source>
        <translation>必须是文本</translation>
    </message>
    <message>
        <source>The sources catalog&apos;s mirror list is not usable: &quot;%1&quot; %2. Correct the &quot;mirrors&quot; list of the catalog (each entry: an &quot;origin&quot; such as nvidia and an http://, https:// or file:// &quot;url&quot;), or reinstall tfsetup.</source>
        <translation>来源知识库的镜像列表无法使用：&quot;%1&quot; %2。请更正知识库的 &quot;mirrors&quot; 列表（每一项：一个 &quot;origin&quot;，例如 nvidia，以及一个 http://、https:// 或 file:// 的 &quot;url&quot;），或重新安装 tfsetup。</translation>
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
    <name>TextInput</name>
    <message>
        <source>%1 looks like UTF-16 text but is damaged. Save it again as UTF-8 (in PowerShell: Out-File -Encoding utf8) and try again.</source>
        <translation>%1 看起来是 UTF-16 文本，但已损坏。请重新另存为 UTF-8（在 PowerShell 中：Out-File -Encoding utf8）后重试。</translation>
    </message>
    <message>
        <source>%1 is not text tfsetup can read (not UTF-8, UTF-16 or this computer&apos;s code page). Open it in an editor, save it as UTF-8 and try again.</source>
        <translation>%1 不是 tfsetup 能读取的文本（既不是 UTF-8、UTF-16，也不是本机的代码页）。请用编辑器打开，另存为 UTF-8 后重试。</translation>
    </message>
</context>
<context>
    <name>TfLogRules</name>
    <message>
        <source>The list of TensorFlow log messages (%1) cannot be read. Reinstall tfsetup.</source>
        <translation>无法读取 TensorFlow 日志消息列表（%1）。请重新安装 tfsetup。</translation>
    </message>
    <message>
        <source>The list of TensorFlow log messages is damaged. Reinstall tfsetup.</source>
        <translation>TensorFlow 日志消息列表已损坏。请重新安装 tfsetup。</translation>
    </message>
</context>
<context>
    <name>Units</name>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>%1 min</source>
        <translation>%1 分钟</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 小时 %2 分钟</translation>
    </message>
</context>
<context>
    <name>UpgradeOutcome</name>
    <message>
        <source>Upgraded %1 to TensorFlow %2.
</source>
        <translation>已将 %1 升级到 TensorFlow %2。
</translation>
    </message>
</context>
<context>
    <name>UpgradeProposal</name>
    <message>
        <source>Give the environment folder to upgrade, for example %1.</source>
        <translation>请指定要升级的环境文件夹，例如 %1。</translation>
    </message>
    <message>
        <source>There is no environment folder %1. Give the folder that holds environment.json (tfsetup list shows them).</source>
        <translation>没有环境文件夹 %1。请指定包含 environment.json 的文件夹（tfsetup list 会列出它们）。</translation>
    </message>
    <message>
        <source>%1 was not made by tfsetup (it holds no environment.json), so tfsetup does not upgrade it. Make a new environment with the wizard or tfsetup install instead.</source>
        <translation>%1 不是 tfsetup 创建的（其中没有 environment.json），因此 tfsetup 不会升级它。请改用向导或 tfsetup install 创建新环境。</translation>
    </message>
    <message>
        <source>The record of %1 does not say which route and TensorFlow it has, so tfsetup cannot tell what is newer. Run tfsetup repair --env %1 first.</source>
        <translation>%1 的记录没有说明它的路线和 TensorFlow 版本，因此 tfsetup 无法判断什么更新。请先运行 tfsetup repair --env %1。</translation>
    </message>
    <message>
        <source>  TensorFlow %1 → %2 (route %3)
</source>
        <translation>  TensorFlow %1 → %2（路线 %3）
</translation>
    </message>
    <message>
        <source>  Python %1 → %2
</source>
        <translation>  Python %1 → %2
</translation>
    </message>
    <message>
        <source>  Python %1 (kept)
</source>
        <translation>  Python %1（保留）
</translation>
    </message>
    <message>
        <source>  CUDA %1 → %2, cuDNN %3 → %4
</source>
        <translation>  CUDA %1 → %2，cuDNN %3 → %4
</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>  First: %1
</source>
        <translation>  首先：%1
</translation>
    </message>
    <message>
        <source>  Note: %1
</source>
        <translation>  注意：%1
</translation>
    </message>
    <message>
        <source>  Download: not known yet (%1)
</source>
        <translation>  下载：尚不清楚（%1）
</translation>
    </message>
    <message>
        <source>  Your own files in the environment are kept; the current version stays in use until the new one is complete.
</source>
        <translation>  环境中你自己的文件会保留；在新版本完成之前，当前版本照常可用。
</translation>
    </message>
    <message>
        <source>  The %1 route: %2
</source>
        <translation>  %1 路线：%2
</translation>
    </message>
    <message>
        <source>  TensorFlow %1: %2
</source>
        <translation>  TensorFlow %1：%2
</translation>
    </message>
    <message numerus="yes">
        <source>  Download: %n file(s), %1 MB, each checked against its checksum (files already in the cache are not fetched again)
</source>
        <translation>
            <numerusform>  下载：%n 个文件，%1 MB，每个都会核对校验和（缓存中已有的文件不会再次下载）
</numerusform>
        </translation>
    </message>
    <message>
        <source>  Python packages: %1 (locked by pip&apos;s resolver; each wheel is checked against its hash)
</source>
        <translation>  Python 包：%1（由 pip 的解析器锁定；每个 wheel 都会核对其哈希值）
</translation>
    </message>
</context>
<context>
    <name>VerifyReport</name>
    <message>
        <source>The library probe tfsetup-probe is not next to tfsetup (%1). Reinstall tfsetup.</source>
        <translation>库探测程序 tfsetup-probe 不在 tfsetup 旁边（%1）。请重新安装 tfsetup。</translation>
    </message>
    <message>
        <source>tfsetup cannot write to the temporary folder; free some disk space.</source>
        <translation>tfsetup 无法写入临时文件夹；请释放一些磁盘空间。</translation>
    </message>
    <message>
        <source>The environment&apos;s launcher %1 could not be started: %2. Run tfsetup repair to rewrite it.</source>
        <translation>无法启动该环境的启动脚本 %1：%2。请运行 tfsetup repair 重新生成它。</translation>
    </message>
    <message>
        <source>Loading the GPU libraries did not finish in time%1.</source>
        <translation>加载 GPU 库未能在规定时间内完成%1。</translation>
    </message>
    <message>
        <source>Loading %1 crashed the library probe: that file is damaged or not a genuine NVIDIA library. Run tfsetup repair.</source>
        <translation>加载 %1 时库探测程序崩溃了：该文件已损坏，或者不是真正的 NVIDIA 库。请运行 tfsetup repair。</translation>
    </message>
    <message>
        <source>The library probe gave no report (exit code %1).</source>
        <translation>库探测程序没有给出报告（退出码 %1）。</translation>
    </message>
    <message>
        <source>Load the GPU libraries</source>
        <translation>加载 GPU 库</translation>
    </message>
    <message>
        <source>%1 of %2 libraries loaded</source>
        <translation>已加载 %1 / %2 个库</translation>
    </message>
    <message>
        <source>TensorFlow itself found working libraries, so this only matters to other programs that use this library path.</source>
        <translation>TensorFlow 本身找到了可用的库，所以这只会影响使用此库路径的其他程序。</translation>
    </message>
    <message>
        <source>The environment works: TensorFlow ran on the expected device.</source>
        <translation>环境工作正常：TensorFlow 在预期的设备上运行。</translation>
    </message>
    <message>
        <source>Verification failed at &quot;%1&quot;. Details: tfsetup verify --json.</source>
        <translation>验证在“%1”这一步失败。详细信息：tfsetup verify --json。</translation>
    </message>
    <message>
        <source>GPU test kernel through the driver</source>
        <translation>通过驱动程序运行 GPU 测试内核</translation>
    </message>
    <message>
        <source>cuBLAS matrix multiplication on the GPU</source>
        <translation>在 GPU 上进行 cuBLAS 矩阵乘法</translation>
    </message>
    <message>
        <source>cuDNN convolution on the GPU</source>
        <translation>在 GPU 上进行 cuDNN 卷积</translation>
    </message>
    <message>
        <source>no GPU found (%1)</source>
        <translation>未找到 GPU（%1）</translation>
    </message>
    <message>
        <source>the NVIDIA driver library did not load</source>
        <translation>NVIDIA 驱动程序库未能加载</translation>
    </message>
    <message>
        <source>the library did not load</source>
        <translation>该库未能加载</translation>
    </message>
    <message>
        <source>the GPU could not be used</source>
        <translation>无法使用 GPU</translation>
    </message>
    <message>
        <source>an earlier step did not finish in time</source>
        <translation>前面的某一步没有按时完成</translation>
    </message>
    <message>
        <source>%1: correct</source>
        <translation>%1：正确</translation>
    </message>
    <message>
        <source>%1: failed in %2: %3</source>
        <translation>%1：在 %2 中失败：%3</translation>
    </message>
    <message>
        <source>%1: not run, %2</source>
        <translation>%1：未运行，%2</translation>
    </message>
    <message>
        <source>the GPU computed correctly with the driver, cuBLAS and cuDNN</source>
        <translation>GPU 通过驱动程序、cuBLAS 和 cuDNN 计算正确</translation>
    </message>
    <message>
        <source>The GPU, its driver, cuBLAS and cuDNN computed correctly in this environment. If TensorFlow still does not use the GPU, the cause is in TensorFlow&apos;s own setup, not in these libraries.</source>
        <translation>在这个环境中，GPU、其驱动程序、cuBLAS 和 cuDNN 都计算正确。如果 TensorFlow 仍然不使用 GPU，原因在 TensorFlow 自身的设置，而不在这些库。</translation>
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
    <name>WheelCheck</name>
    <message>
        <source>Whether PyPI has a wheel of %1 for Python %2 was not checked: tfsetup reads only &quot;name==version&quot; requirements.</source>
        <translation>未检查 PyPI 上是否有适用于 Python %2 的 %1 wheel：tfsetup 只识别“名称==版本”形式的依赖要求。</translation>
    </message>
    <message>
        <source>Whether PyPI has a wheel of %1 for Python %2 on %3 was not checked (%4); pip will tell when it installs.</source>
        <translation>未检查 PyPI 上是否有适用于 %3 上 Python %2 的 %1 wheel（%4）；pip 安装时会给出结果。</translation>
    </message>
    <message>
        <source>PyPI has no release of %1 matching %2, so pip cannot install it. Choose another TensorFlow version or check the plan.</source>
        <translation>PyPI 上没有与 %2 匹配的 %1 版本，pip 无法安装它。请选择其他 TensorFlow 版本，或检查方案。</translation>
    </message>
    <message>
        <source>%1 %2 has no wheel for %3 at all, so pip cannot install it there. Choose another TensorFlow version or route.</source>
        <translation>%1 %2 完全没有适用于 %3 的 wheel，pip 无法在那里安装它。请选择其他 TensorFlow 版本或安装路线。</translation>
    </message>
    <message>
        <source>%1 %2 has no wheel for Python %3 on %4; its %4 wheels are for Python %5. Choose Python %6.</source>
        <translation>%1 %2 没有适用于 %4 上 Python %3 的 wheel；它的 %4 wheel 只支持 Python %5。请选择 Python %6。</translation>
    </message>
</context>
<context>
    <name>WorkLock</name>
    <message>
        <source>Another install or repair of %1 is running. Wait until it has finished, then try again.</source>
        <translation>%1 的另一个安装或修复正在进行。请等它完成后再试。</translation>
    </message>
    <message>
        <source>Cannot write %1. Check the free space and that the install folder is yours.</source>
        <translation>无法写入 %1。请检查剩余空间，并确认安装文件夹属于你。</translation>
    </message>
    <message>
        <source>Another install or repair of %1 runs on the computer %3 (process %2), or was stopped there. Wait until it has finished. If nothing runs there any more, delete %4, then try again.</source>
        <translation>%1 的另一个安装或修复正在计算机 %3 上运行（进程 %2），或在那里被中断。请等它结束。如果那里已经没有在运行，请删除 %4，然后重试。</translation>
    </message>
    <message>
        <source>Cannot write %1: the install folder is on a disk that is read-only here. Choose another folder (--prefix), or mount that disk writable.</source>
        <translation>无法写入 %1：安装文件夹所在的磁盘在这里是只读的。请选择其他文件夹（--prefix），或以可写方式挂载该磁盘。</translation>
    </message>
    <message>
        <source>Cannot write %1: the disk of the install folder is full. Free some space there or choose a folder on another disk, then try again.</source>
        <translation>无法写入 %1：安装文件夹所在的磁盘已满。请在那里释放一些空间，或选择其他磁盘上的文件夹，然后重试。</translation>
    </message>
    <message>
        <source>%1 is locked by %2, which names no running install or repair (it is damaged or a link to another file). If none is running, delete %2, then try again.</source>
        <translation>%1 被 %2 锁定，但它没有指明任何正在运行的安装或修复（它已损坏，或是指向其他文件的链接）。如果确实没有在运行，请删除 %2，然后重试。</translation>
    </message>
</context>
<context>
    <name>tfsetup::core::Doctor</name>
    <message>
        <source>ERROR</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>WARNING</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>INFO</source>
        <translation>信息</translation>
    </message>
    <message>
        <source>System</source>
        <translation>系统</translation>
    </message>
    <message>
        <source>Processor</source>
        <translation>处理器</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>NVIDIA driver</source>
        <translation>NVIDIA 驱动程序</translation>
    </message>
    <message>
        <source>CUDA toolkits</source>
        <translation>CUDA 工具包</translation>
    </message>
    <message>
        <source>cuDNN</source>
        <translation>cuDNN</translation>
    </message>
    <message>
        <source>Environment</source>
        <translation>环境</translation>
    </message>
    <message>
        <source>Python</source>
        <translation>Python</translation>
    </message>
    <message>
        <source>TensorFlow</source>
        <translation>TensorFlow</translation>
    </message>
    <message>
        <source>No problems found.</source>
        <translation>未发现问题。</translation>
    </message>
    <message>
        <source>This machine</source>
        <translation>本机</translation>
    </message>
    <message>
        <source>Findings: %1 errors, %2 warnings, %3 notes</source>
        <translation>发现的问题：%1 个错误，%2 个警告，%3 条提示</translation>
    </message>
    <message>
        <source>Cannot write the report to %1. Choose a folder you can write to.</source>
        <translation>无法把报告写入 %1。请选择一个你有写入权限的文件夹。</translation>
    </message>
    <message>
        <source>No NVIDIA GPU was found, so TensorFlow will run on the CPU.</source>
        <translation>没有找到 NVIDIA GPU，因此 TensorFlow 将在 CPU 上运行。</translation>
    </message>
    <message>
        <source>Nothing to do for CPU work. For GPU work you need a machine with an NVIDIA GPU (or a cloud notebook).</source>
        <translation>如果只在 CPU 上运行，无需任何操作。要在 GPU 上运行，你需要一台装有 NVIDIA GPU 的计算机（或云端 Notebook）。</translation>
    </message>
    <message>
        <source>The NVIDIA GPU %1 was found, but no working NVIDIA driver.</source>
        <translation>找到了 NVIDIA GPU %1，但没有找到可用的 NVIDIA 驱动程序。</translation>
    </message>
    <message>
        <source>NVIDIA driver %1 is older than %2, the oldest that runs CUDA %3, which TensorFlow %4 uses.</source>
        <translation>NVIDIA 驱动程序 %1 版本过旧：TensorFlow %4 使用的 CUDA %3 至少需要 %2 版驱动程序。</translation>
    </message>
    <message>
        <source>TensorFlow %1 never uses the GPU on native Windows: GPU support ended with TensorFlow %2. Installing CUDA or cuDNN will not change that.</source>
        <translation>TensorFlow %1 在原生 Windows 上从不使用 GPU：GPU 支持止于 TensorFlow %2。安装 CUDA 或 cuDNN 也不会改变这一点。</translation>
    </message>
    <message>
        <source>Use TensorFlow %1 with Python up to the version it supports, or run a newer TensorFlow inside WSL2 (tfsetup plan --route wsl2).</source>
        <translation>请使用 TensorFlow %1 并搭配它所支持的 Python 版本（不要更高），或在 WSL2 中运行更新的 TensorFlow（tfsetup plan --route wsl2）。</translation>
    </message>
    <message>
        <source>The environment&apos;s Python %1 is outside the range TensorFlow %2 supports (%3).</source>
        <translation>该环境的 Python %1 不在 TensorFlow %2 支持的范围内（%3）。</translation>
    </message>
    <message>
        <source>TensorFlow %1 is built with CUDA %2, but the CUDA toolkits here are %3.</source>
        <translation>TensorFlow %1 是用 CUDA %2 构建的，但这里的 CUDA 工具包是 %3。</translation>
    </message>
    <message>
        <source>%1 CUDA toolkits are installed (%2); the order of their folders on the search path decides which libraries load.</source>
        <translation>已安装 %1 个 CUDA 工具包（%2）；它们的文件夹在搜索路径中的顺序决定了会加载哪些库。</translation>
    </message>
    <message>
        <source>Nothing to do unless another finding names a library from the wrong toolkit. tfsetup&apos;s launchers put the right folder first.</source>
        <translation>无需处理，除非其他发现的问题指出某个库来自错误的工具包。tfsetup 的启动脚本会把正确的文件夹放在最前面。</translation>
    </message>
    <message>
        <source>TensorFlow %1 needs CUDA %2 (%3), but only another CUDA&apos;s runtime is on the search path (%4).</source>
        <translation>TensorFlow %1 需要 CUDA %2（%3），但搜索路径中只有其他版本 CUDA 的运行库（%4）。</translation>
    </message>
    <message>
        <source>TensorFlow %1 cannot load %2 of the CUDA %3 libraries it needs (%4), so it will run on the CPU.</source>
        <translation>TensorFlow %1 无法加载它所需的 CUDA %3 库中的 %2 个（%4），因此将在 CPU 上运行。</translation>
    </message>
    <message>
        <source>Install CUDA %1 (tfsetup can fetch the official files) or let tfsetup repair the environment.</source>
        <translation>安装 CUDA %1（tfsetup 可以获取官方文件），或让 tfsetup 修复该环境。</translation>
    </message>
    <message>
        <source>The files exist but their folder is not searched: put it on %1 before other CUDA folders, or start Python through tfsetup&apos;s launcher, which does that.</source>
        <translation>这些文件存在，但它们所在的文件夹不在搜索范围内：请把它加到 %1 中，并放在其他 CUDA 文件夹之前；或者通过 tfsetup 的启动脚本启动 Python，它会自动完成这一步。</translation>
    </message>
    <message>
        <source>cuDNN (%1) is installed at %2, but that folder is not on the search path, so TensorFlow cannot load it.</source>
        <translation>cuDNN（%1）安装在 %2，但该文件夹不在搜索路径中，因此 TensorFlow 无法加载它。</translation>
    </message>
    <message>
        <source>Put %1 on %2, or start Python through tfsetup&apos;s launcher.</source>
        <translation>把 %1 添加到 %2 中，或通过 tfsetup 的启动脚本启动 Python。</translation>
    </message>
    <message>
        <source>TensorFlow %1 needs cuDNN %2 (%3), but only another cuDNN major version is on the search path (%4).</source>
        <translation>TensorFlow %1 需要 cuDNN %2（%3），但搜索路径中只有其他主版本的 cuDNN（%4）。</translation>
    </message>
    <message>
        <source>cuDNN %1 (%2) is not installed, so TensorFlow %3 will run on the CPU.</source>
        <translation>没有安装 cuDNN %1（%2），因此 TensorFlow %3 将在 CPU 上运行。</translation>
    </message>
    <message>
        <source>Install cuDNN %1 for CUDA %2 (tfsetup can fetch the official archive) or let tfsetup repair the environment.</source>
        <translation>安装适用于 CUDA %2 的 cuDNN %1（tfsetup 可以获取官方压缩包），或让 tfsetup 修复该环境。</translation>
    </message>
    <message>
        <source>The cuDNN at %1 is incomplete: %2 of its parts are missing (%3), so convolutions fail even though cuDNN loads.</source>
        <translation>%1 处的 cuDNN 不完整：缺少 %2 个组件（%3），因此即使 cuDNN 能够加载，卷积运算也会失败。</translation>
    </message>
    <message>
        <source>Copy every file of the cuDNN archive&apos;s %1 folder next to %2, not only %3, or let tfsetup repair the environment.</source>
        <translation>请把 cuDNN 压缩包中 %1 文件夹里的所有文件都复制到 %2 旁边，而不只是 %3；或者让 tfsetup 修复该环境。</translation>
    </message>
    <message>
        <source>%1 copies of %2 are on the search path; only the first, %3, is ever loaded.</source>
        <translation>搜索路径上有 %1 份 %2；只有第一份（%3）会被加载。</translation>
    </message>
    <message>
        <source>Keep one copy: delete copies you put into System32 or other folders by hand, and order %1 so the toolkit TensorFlow needs comes first.</source>
        <translation>只保留一份副本：删除你手动放到 System32 或其他文件夹中的副本，并调整 %1 的顺序，让 TensorFlow 需要的工具包排在最前面。</translation>
    </message>
    <message>
        <source>The path %1 contains non-ASCII characters; some Python packages and CUDA tools fail on such paths.</source>
        <translation>路径 %1 含有非 ASCII 字符；某些 Python 包和 CUDA 工具在这类路径上会出错。</translation>
    </message>
    <message>
        <source>Create the environment in a folder whose path has only English letters, digits and no spaces, e.g. C:\tf or ~/tf.</source>
        <translation>请在路径中只含英文字母和数字、且没有空格的文件夹中创建环境，例如 C:\tf 或 ~/tf。</translation>
    </message>
    <message>
        <source>The environment&apos;s path is %1 characters long and Windows long paths are off: files deep inside TensorFlow may exceed Windows&apos; %2-character limit and fail to install or load.</source>
        <translation>该环境的路径长度为 %1 个字符，而 Windows 长路径支持未开启：TensorFlow 内部很深的文件可能超过 Windows 的 %2 个字符限制，导致安装或加载失败。</translation>
    </message>
    <message>
        <source>Use a short folder such as C:\tf, or enable long paths (LongPathsEnabled = 1) as an administrator.</source>
        <translation>请使用较短的文件夹，例如 C:\tf，或以管理员身份启用长路径（LongPathsEnabled = 1）。</translation>
    </message>
    <message>
        <source>The Jupyter kernel &quot;%1&quot; starts %2, which no longer exists; notebooks with this kernel do not start.</source>
        <translation>Jupyter 内核“%1”启动的是 %2，但它已不存在；使用此内核的 notebook 无法启动。</translation>
    </message>
    <message>
        <source>Remove the kernel (jupyter kernelspec remove %1) or let tfsetup rewrite it for your environment.</source>
        <translation>请删除该内核（jupyter kernelspec remove %1），或让 tfsetup 为你的环境重写它。</translation>
    </message>
    <message>
        <source>The Jupyter kernel &quot;%1&quot; runs a different environment than the terminal: a package or library that works in one may be missing in the other.</source>
        <translation>Jupyter 内核“%1”运行的环境与终端中的不同：在一边能用的包或库，在另一边可能缺失。</translation>
    </message>
    <message>
        <source>Pick the kernel of the environment you installed TensorFlow in (Kernel &gt; Change kernel), and run the doctor with --env on it.</source>
        <translation>选择你安装了 TensorFlow 的那个环境的内核（Kernel &gt; Change kernel），并对该环境加上 --env 运行 doctor。</translation>
    </message>
    <message>
        <source>Jupyter kernels exist, but none runs the environment %1: notebooks will not see its TensorFlow.</source>
        <translation>已有 Jupyter 内核，但没有一个运行的是环境 %1：Notebook 将看不到其中的 TensorFlow。</translation>
    </message>
    <message>
        <source>Let tfsetup write a kernel for this environment, or run &quot;python -m ipykernel install --user&quot; with the environment&apos;s Python.</source>
        <translation>让 tfsetup 为此环境写入一个内核，或用该环境的 Python 运行 &quot;python -m ipykernel install --user&quot;。</translation>
    </message>
    <message>
        <source>Nothing to do.</source>
        <translation>无需处理。</translation>
    </message>
    <message>
        <source>TensorFlow could not load some CUDA libraries, so it runs on the CPU.</source>
        <translation>TensorFlow 无法加载部分 CUDA 库，因此它在 CPU 上运行。</translation>
    </message>
    <message>
        <source>TensorFlow could not load the CUDA library %1, so it runs on the CPU.</source>
        <translation>TensorFlow 无法加载 CUDA 库 %1，因此在 CPU 上运行。</translation>
    </message>
    <message>
        <source>TensorFlow could not load the cuDNN library %1, so it runs on the CPU.</source>
        <translation>TensorFlow 无法加载 cuDNN 库 %1，因此在 CPU 上运行。</translation>
    </message>
    <message>
        <source>TensorFlow loaded cuDNN %1 but was built with cuDNN %2; it needs the same major version and an equal or newer minor version.</source>
        <translation>TensorFlow 加载了 cuDNN %1，但它是用 cuDNN %2 构建的；它需要相同的主版本号，以及相同或更高的次版本号。</translation>
    </message>
    <message>
        <source>The cuDNN found is not the version this TensorFlow was built with.</source>
        <translation>找到的 cuDNN 不是构建此 TensorFlow 时使用的版本。</translation>
    </message>
    <message>
        <source>The CUDA installed is not the version this TensorFlow was built with.</source>
        <translation>已安装的 CUDA 不是构建此 TensorFlow 时所用的版本。</translation>
    </message>
    <message>
        <source>The NVIDIA driver is too old for the CUDA version TensorFlow uses.</source>
        <translation>NVIDIA 驱动程序版本过旧，不支持 TensorFlow 所用的 CUDA 版本。</translation>
    </message>
    <message>
        <source>TensorFlow found no usable NVIDIA GPU: the driver is missing or not running, or there is no NVIDIA GPU.</source>
        <translation>TensorFlow 没有找到可用的 NVIDIA GPU：驱动程序缺失或没有运行，或者没有 NVIDIA GPU。</translation>
    </message>
    <message>
        <source>pip found no TensorFlow for this Python version (%1).</source>
        <translation>pip 没有找到适用于此 Python 版本（%1）的 TensorFlow。</translation>
    </message>
    <message>
        <source>This TensorFlow has no ready-made GPU code for compute capability %1; the driver compiles it on first use, which can take 30 minutes or more.</source>
        <translation>此 TensorFlow 没有为计算能力 %1 预先编译好的 GPU 代码；驱动程序会在首次使用时编译，这可能需要 30 分钟或更久。</translation>
    </message>
    <message>
        <source>TensorFlow ignores this GPU: its compute capability %1 is below the %2 this TensorFlow needs.</source>
        <translation>TensorFlow 忽略了这块 GPU：它的计算能力 %1 低于此 TensorFlow 所需的 %2。</translation>
    </message>
    <message>
        <source>This processor lacks the %1 instructions the official TensorFlow builds use, so TensorFlow stops as soon as it is imported.</source>
        <translation>此处理器不支持官方 TensorFlow 版本所用的 %1 指令，因此 TensorFlow 一导入就会退出。</translation>
    </message>
    <message>
        <source>Windows could not load TensorFlow&apos;s native module: the Microsoft Visual C++ runtime (%1) is missing.</source>
        <translation>Windows 无法加载 TensorFlow 的原生模块：缺少 Microsoft Visual C++ 运行库（%1）。</translation>
    </message>
    <message>
        <source>The GPU ran out of memory.</source>
        <translation>GPU 显存不足。</translation>
    </message>
    <message>
        <source>TensorFlow created a GPU device: the GPU is in use.</source>
        <translation>TensorFlow 已创建 GPU 设备：GPU 正在使用中。</translation>
    </message>
    <message>
        <source>TensorFlow reported a problem (%1).</source>
        <translation>TensorFlow 报告了一个问题（%1）。</translation>
    </message>
    <message>
        <source>Run &quot;tfsetup doctor --env DIR&quot; on the environment to see where %1 is expected and which copies exist, then let tfsetup repair it. Do not download single DLL files from websites.</source>
        <translation>请对该环境运行 &quot;tfsetup doctor --env DIR&quot;，查看 %1 应该位于何处以及现有哪些副本，然后让 tfsetup 修复它。不要从网站下载单个 DLL 文件。</translation>
    </message>
    <message>
        <source>Install the cuDNN version listed for this TensorFlow (tfsetup plan shows it) and remove older cuDNN copies that come first on the search path.</source>
        <translation>安装此 TensorFlow 对应的 cuDNN 版本（tfsetup plan 会显示），并删除搜索路径上排在前面的旧版 cuDNN 副本。</translation>
    </message>
    <message>
        <source>Install the CUDA version this TensorFlow was built with, or choose a TensorFlow that matches the CUDA you have (tfsetup plan).</source>
        <translation>请安装构建此 TensorFlow 时所用的 CUDA 版本，或选择与你现有 CUDA 匹配的 TensorFlow（tfsetup plan）。</translation>
    </message>
    <message>
        <source>Install or update the NVIDIA driver from nvidia.com (or your Linux distribution&apos;s driver package), restart, and check that nvidia-smi lists the GPU.</source>
        <translation>请从 nvidia.com（或你的 Linux 发行版的驱动程序包）安装或更新 NVIDIA 驱动程序，重启后检查 nvidia-smi 是否列出了该 GPU。</translation>
    </message>
    <message>
        <source>Create the environment with a Python version this TensorFlow supports (tfsetup plan lists them).</source>
        <translation>使用此 TensorFlow 支持的 Python 版本创建环境（tfsetup plan 会列出）。</translation>
    </message>
    <message>
        <source>Wait for the first run to finish once: later runs reuse the compiled code. Or choose a TensorFlow built for this GPU (tfsetup plan).</source>
        <translation>请耐心等第一次运行完成：之后的运行会重用已编译的代码。或者选择为这块 GPU 构建的 TensorFlow（tfsetup plan）。</translation>
    </message>
    <message>
        <source>Run &quot;tfsetup plan&quot; to choose a TensorFlow and route that work on this machine.</source>
        <translation>请运行 &quot;tfsetup plan&quot;，选择能在本机上运行的 TensorFlow 版本和路线。</translation>
    </message>
    <message>
        <source>Install the latest Microsoft Visual C++ Redistributable for Visual Studio 2015-2022 (x64) from microsoft.com, then start a new terminal.</source>
        <translation>从 microsoft.com 安装最新的 Microsoft Visual C++ 可再发行程序包（Visual Studio 2015-2022，x64），然后打开一个新的终端。</translation>
    </message>
    <message>
        <source>Use a smaller batch size, close other programs using the GPU (nvidia-smi lists them), or set TF_FORCE_GPU_ALLOW_GROWTH=true so TensorFlow takes memory only as needed.</source>
        <translation>请减小批大小（batch size），关闭其他正在使用 GPU 的程序（nvidia-smi 会列出它们），或设置 TF_FORCE_GPU_ALLOW_GROWTH=true，让 TensorFlow 按需占用显存。</translation>
    </message>
    <message>
        <source>TensorRT is an optional NVIDIA inference library; TensorFlow works on the GPU without it. This message is harmless.</source>
        <translation>TensorRT 是 NVIDIA 的一个可选推理库；没有它，TensorFlow 也能在 GPU 上运行。此消息无害。</translation>
    </message>
    <message>
        <source>TensorFlow&apos;s own note that a missing CUDA runtime does not matter on a machine without a GPU. Harmless by itself.</source>
        <translation>这是 TensorFlow 自己的提示：在没有 GPU 的计算机上，缺少 CUDA 运行库并不要紧。本身无害。</translation>
    </message>
    <message>
        <source>A notice about optional CPU instructions (AVX2, FMA, …) TensorFlow could use with a custom build. Harmless.</source>
        <translation>这是一条关于可选 CPU 指令（AVX2、FMA 等）的提示，TensorFlow 在自行编译的版本中可以使用这些指令。无需理会。</translation>
    </message>
    <message>
        <source>A notice that oneDNN speed-ups are on; results may differ in the last digits. Harmless.</source>
        <translation>这是 oneDNN 加速已开启的提示；计算结果的最后几位数字可能略有不同。无害。</translation>
    </message>
    <message>
        <source>The firmware or kernel does not say which NUMA node the GPU sits on, so TensorFlow assumes node 0. Harmless on a desktop or laptop.</source>
        <translation>固件或内核没有说明 GPU 位于哪个 NUMA 节点，因此 TensorFlow 假定为节点 0。在台式机或笔记本电脑上无害。</translation>
    </message>
    <message>
        <source>Two parts of TensorFlow registered the same CUDA plugin; the second is ignored. Harmless, the GPU still works.</source>
        <translation>TensorFlow 的两个部分注册了同一个 CUDA 插件；第二个会被忽略。无需理会，GPU 仍然可以正常工作。</translation>
    </message>
    <message>
        <source>TensorFlow looked for a GPU and CUDA libraries; this environment is meant to run on the CPU, so these messages are expected and harmless.</source>
        <translation>TensorFlow 查找了 GPU 和 CUDA 库；此环境本来就是在 CPU 上运行的，因此出现这些消息是正常的，无害。</translation>
    </message>
    <message>
        <source>A harmless notice.</source>
        <translation>无害的提示。</translation>
    </message>
    <message>
        <source>The cuDNN that loads (%1, version %2) needs zlibwapi.dll, but no folder of the search path has it, so cuDNN fails the first time TensorFlow uses it.</source>
        <translation>会被加载的 cuDNN（%1，版本 %2）需要 zlibwapi.dll，但搜索路径中的文件夹都没有它，因此 TensorFlow 第一次使用 cuDNN 时就会失败。</translation>
    </message>
    <message>
        <source>Use the cuDNN your TensorFlow was tested with (tfsetup&apos;s repair puts back the one it installed), or place a zlibwapi.dll you trust next to %1. NVIDIA does not ship zlibwapi.dll, and tfsetup does not download it from unofficial sites.</source>
        <translation>请使用你的 TensorFlow 经过测试的 cuDNN（tfsetup 的修复功能会放回它安装过的那一份），或者把一个你信任的 zlibwapi.dll 放到 %1 旁边。NVIDIA 不提供 zlibwapi.dll，tfsetup 也不会从非官方网站下载它。</translation>
    </message>
    <message>
        <source>Use cuDNN %1, which TensorFlow %2 was tested with and which does not need zlibwapi.dll: let tfsetup repair the environment or install cuDNN %1. Or place a zlibwapi.dll you trust next to %3. NVIDIA does not ship zlibwapi.dll, and tfsetup does not download it from unofficial sites.</source>
        <translation>请使用 cuDNN %1：TensorFlow %2 用它测试过，而且它不需要 zlibwapi.dll。可以让 tfsetup 修复环境，或安装 cuDNN %1。也可以把一个你信任的 zlibwapi.dll 放到 %3 旁边。NVIDIA 不提供 zlibwapi.dll，tfsetup 也不会从非官方网站下载它。</translation>
    </message>
    <message>
        <source>cuDNN could not find zlibwapi.dll, which cuDNN 8.3 and newer need on Windows, so the first GPU computation that uses cuDNN stops the program.</source>
        <translation>cuDNN 找不到 zlibwapi.dll；在 Windows 上，cuDNN 8.3 及更新版本需要它，因此第一次用到 cuDNN 的 GPU 计算就会让程序停止。</translation>
    </message>
    <message>
        <source>Run &quot;tfsetup doctor --env DIR&quot; to see which cuDNN loads, then use the cuDNN your TensorFlow was tested with (8.1 for TensorFlow 2.5 to 2.10 on Windows), which needs no zlibwapi.dll; tfsetup repair puts it back. Or place a zlibwapi.dll you trust next to cudnn64_8.dll. NVIDIA does not ship it; do not download it from random websites.</source>
        <translation>运行“tfsetup doctor --env DIR”查看加载的是哪个 cuDNN，然后改用你的 TensorFlow 经过测试的 cuDNN（Windows 上 TensorFlow 2.5 到 2.10 对应 8.1），它不需要 zlibwapi.dll；tfsetup 的修复功能会把它放回去。也可以把一个你信任的 zlibwapi.dll 放到 cudnn64_8.dll 旁边。NVIDIA 不提供这个文件；不要从来历不明的网站下载。</translation>
    </message>
    <message>
        <source>Run &quot;tfsetup doctor --env DIR&quot; on the environment to see which CUDA libraries are expected where and which copies exist, then let tfsetup repair it. Do not download single DLL files from websites.</source>
        <translation>对该环境运行“tfsetup doctor --env 目录”，查看哪些 CUDA 库应在何处以及现有哪些副本，然后让 tfsetup 修复。不要从网站下载单个 DLL 文件。</translation>
    </message>
    <message>
        <source>TensorFlow looks for the CUDA %1 library %2, but the CUDA installed here is %3.</source>
        <translation>TensorFlow 在找 CUDA %1 的库 %2，但这里安装的 CUDA 是 %3。</translation>
    </message>
    <message>
        <source>Install CUDA %1 beside the one you have (tfsetup can fetch the official files), or use a TensorFlow built for CUDA %2: %3.</source>
        <translation>在现有 CUDA 之外再安装 CUDA %1（tfsetup 可以获取官方文件），或使用为 CUDA %2 构建的 TensorFlow：%3。</translation>
    </message>
    <message>
        <source>Install CUDA %1 beside the one you have (tfsetup can fetch the official files); no TensorFlow release was tested with CUDA %2.</source>
        <translation>在现有 CUDA 之外再安装 CUDA %1（tfsetup 可以获取官方文件）；没有任何 TensorFlow 版本用 CUDA %2 测试过。</translation>
    </message>
    <message>
        <source>TensorFlow looks for the CUDA %1 library %2 and does not find it: CUDA %1 is not installed, or only another CUDA version is.</source>
        <translation>TensorFlow 在找 CUDA %1 的库 %2，但没有找到：CUDA %1 未安装，或者只安装了其他版本的 CUDA。</translation>
    </message>
    <message>
        <source>This TensorFlow needs exactly CUDA %1: install it beside any other CUDA (tfsetup can fetch the official files), or choose the TensorFlow built for the CUDA you have (tfsetup plan).</source>
        <translation>这个 TensorFlow 需要的正是 CUDA %1：在其他 CUDA 之外另行安装它（tfsetup 可以获取官方文件），或选择为你已有的 CUDA 构建的 TensorFlow（tfsetup plan）。</translation>
    </message>
    <message>
        <source>TensorFlow could not load cuDNN, so it runs on the CPU.</source>
        <translation>TensorFlow 无法加载 cuDNN，所以在 CPU 上运行。</translation>
    </message>
    <message>
        <source>Run &quot;tfsetup doctor --env DIR&quot; on the environment to see where cuDNN is expected and which copies exist, then let tfsetup repair it. Do not download single DLL files from websites.</source>
        <translation>对该环境运行“tfsetup doctor --env 目录”，查看 cuDNN 应在何处以及现有哪些副本，然后让 tfsetup 修复。不要从网站下载单个 DLL 文件。</translation>
    </message>
    <message>
        <source>cuDNN loaded, but its part %1 could not be loaded (%2), so the first convolution fails.</source>
        <translation>cuDNN 已加载，但它的组成部分 %1 无法加载（%2），所以第一次卷积就会失败。</translation>
    </message>
    <message>
        <source>Copy every file of the cuDNN archive&apos;s bin (Windows) or lib (Linux) folder next to the cuDNN that loads, not only the main file, or let tfsetup repair the environment. On Windows, error 126 also means a DLL that part needs (zlibwapi.dll, the Visual C++ runtime) is missing.</source>
        <translation>把 cuDNN 压缩包中 bin（Windows）或 lib（Linux）文件夹里的所有文件都复制到已加载的 cuDNN 旁边，而不只是主文件，或让 tfsetup 修复该环境。在 Windows 上，错误 126 也可能表示该部分依赖的 DLL（zlibwapi.dll、Visual C++ 运行库）缺失。</translation>
    </message>
    <message>
        <source>The GPU code in this TensorFlow (PTX) was made by a newer CUDA compiler than the NVIDIA driver understands, so the driver cannot compile it for the GPU.</source>
        <translation>这个 TensorFlow 中的 GPU 代码（PTX）由比 NVIDIA 驱动所能理解的更新的 CUDA 编译器生成，所以驱动无法为 GPU 编译它。</translation>
    </message>
    <message>
        <source>This TensorFlow has no GPU code this GPU can run (&quot;no kernel image&quot; / invalid PTX): the GPU is newer than the CUDA the wheel was built with, or older than its lowest architecture.</source>
        <translation>这个 TensorFlow 没有这块 GPU 能运行的 GPU 代码（“no kernel image” / 无效 PTX）：GPU 比构建该 wheel 所用的 CUDA 更新，或比它支持的最低架构更旧。</translation>
    </message>
    <message>
        <source>Use a TensorFlow release built with a CUDA that knows this GPU (tfsetup plan picks one from the GPU&apos;s compute capability); for GPUs newer than every release, run a nightly or NVIDIA&apos;s TensorFlow container.</source>
        <translation>使用用认识这块 GPU 的 CUDA 构建的 TensorFlow 版本（tfsetup plan 会根据 GPU 的计算能力选择）；对于比所有发布版都新的 GPU，请使用 nightly 版本或 NVIDIA 的 TensorFlow 容器。</translation>
    </message>
    <message>
        <source>TensorFlow stopped with an illegal instruction as soon as it was imported: the processor lacks the AVX instructions the official builds use (older or low-power CPUs, some virtual machines).</source>
        <translation>TensorFlow 一导入就因非法指令而停止：处理器缺少官方版本使用的 AVX 指令（较旧或低功耗的 CPU、某些虚拟机）。</translation>
    </message>
    <message>
        <source>Check the processor (tfsetup detect shows AVX). Without AVX, use TensorFlow 1.5 or a community build without AVX, or a machine or cloud notebook with a newer CPU; in a virtual machine, pass the host CPU&apos;s features through.</source>
        <translation>检查处理器（tfsetup detect 会显示是否有 AVX）。没有 AVX 时，请使用 TensorFlow 1.5 或不含 AVX 的社区版本，或换用 CPU 更新的电脑或云端笔记本；在虚拟机中，请把宿主 CPU 的特性透传给虚拟机。</translation>
    </message>
    <message>
        <source>Windows could not initialise TensorFlow&apos;s native module (&quot;A dynamic link library (DLL) initialization routine failed&quot;); with the Visual C++ runtime present, this means the processor lacks the AVX instructions TensorFlow needs.</source>
        <translation>Windows 无法初始化 TensorFlow 的原生模块（“动态链接库(DLL)初始化例程失败”）；在已有 Visual C++ 运行库的情况下，这表示处理器缺少 TensorFlow 所需的 AVX 指令。</translation>
    </message>
    <message>
        <source>Check the processor (tfsetup detect shows AVX). Without AVX, use a machine or cloud notebook with a newer CPU; reinstalling TensorFlow or the Visual C++ runtime does not help.</source>
        <translation>检查处理器（tfsetup detect 会显示是否有 AVX）。没有 AVX 时，请换用 CPU 更新的电脑或云端笔记本；重新安装 TensorFlow 或 Visual C++ 运行库都没有用。</translation>
    </message>
    <message>
        <source>Windows could not load TensorFlow&apos;s native module (DLL load failed): usually the Microsoft Visual C++ runtime is missing, or the processor lacks AVX.</source>
        <translation>Windows 无法加载 TensorFlow 的原生模块（DLL load failed）：通常是缺少 Microsoft Visual C++ 运行库，或者处理器缺少 AVX。</translation>
    </message>
    <message>
        <source>Install the latest Microsoft Visual C++ Redistributable for Visual Studio 2015-2022 (x64) from microsoft.com and start a new terminal; if that does not help, check that the processor has AVX (tfsetup detect).</source>
        <translation>从 microsoft.com 安装最新的 Microsoft Visual C++ Redistributable for Visual Studio 2015-2022（x64），然后打开新的终端；如果仍然不行，请检查处理器是否有 AVX（tfsetup detect）。</translation>
    </message>
    <message>
        <source>cuBLAS or cuDNN could not get GPU memory for its work space: another process (or an earlier TensorFlow in the same notebook) holds the GPU&apos;s memory.</source>
        <translation>cuBLAS 或 cuDNN 无法为其工作区获得 GPU 内存：另一个进程（或同一笔记本中先前的 TensorFlow）占用着 GPU 内存。</translation>
    </message>
    <message>
        <source>Let TensorFlow take memory as needed: set TF_FORCE_GPU_ALLOW_GROWTH=true (or call tf.config.experimental.set_memory_growth) before the first GPU operation, close other programs or notebook kernels using the GPU (nvidia-smi lists them), and use a smaller batch.</source>
        <translation>让 TensorFlow 按需占用内存：在第一次 GPU 操作之前设置 TF_FORCE_GPU_ALLOW_GROWTH=true（或调用 tf.config.experimental.set_memory_growth），关闭其他使用 GPU 的程序或笔记本内核（nvidia-smi 会列出它们），并减小批大小。</translation>
    </message>
    <message>
        <source>XLA could not find CUDA&apos;s libdevice (nvvm/libdevice/libdevice.10.bc), so compiled (jit_compile / XLA) GPU code cannot be built.</source>
        <translation>XLA 找不到 CUDA 的 libdevice（nvvm/libdevice/libdevice.10.bc），因此无法构建编译型（jit_compile / XLA）GPU 代码。</translation>
    </message>
    <message>
        <source>Install the CUDA toolkit&apos;s nvvm part (pip: nvidia-cuda-nvcc-cu11/cu12 in the environment) and point XLA at its folder: set XLA_FLAGS=--xla_gpu_cuda_data_dir=&lt;CUDA folder that holds nvvm/libdevice&gt;. tfsetup&apos;s launcher sets it for its environments.</source>
        <translation>安装 CUDA 工具包的 nvvm 部分（pip：在环境中安装 nvidia-cuda-nvcc-cu11/cu12），并让 XLA 指向它的文件夹：设置 XLA_FLAGS=--xla_gpu_cuda_data_dir=&lt;包含 nvvm/libdevice 的 CUDA 文件夹&gt;。tfsetup 的启动器会为它的环境设置好。</translation>
    </message>
    <message>
        <source>XLA could not run CUDA&apos;s ptxas (missing, or older than the CUDA TensorFlow was built with), so it falls back to the driver or fails to compile GPU code.</source>
        <translation>XLA 无法运行 CUDA 的 ptxas（缺失，或比构建 TensorFlow 所用的 CUDA 更旧），所以会退回由驱动编译，或无法编译 GPU 代码。</translation>
    </message>
    <message>
        <source>Install a ptxas of the CUDA version TensorFlow was built with (pip: nvidia-cuda-nvcc-cu11/cu12 in the environment, or the CUDA toolkit) and put its bin folder first on PATH; tfsetup&apos;s launcher does that for its environments.</source>
        <translation>安装与构建 TensorFlow 所用 CUDA 版本相同的 ptxas（pip：在环境中安装 nvidia-cuda-nvcc-cu11/cu12，或安装 CUDA 工具包），并把它的 bin 文件夹放在 PATH 最前面；tfsetup 的启动器会为它的环境这样做。</translation>
    </message>
    <message>
        <source>A module compiled for NumPy 1.x is imported with NumPy 2 installed, so TensorFlow (or a package it uses) fails to import.</source>
        <translation>一个为 NumPy 1.x 编译的模块在装有 NumPy 2 的环境中被导入，所以 TensorFlow（或它使用的包）导入失败。</translation>
    </message>
    <message>
        <source>Install a NumPy 1.x in the environment (pip install &quot;numpy&lt;2&quot;), or upgrade TensorFlow and the module the traceback names to releases built for NumPy 2.</source>
        <translation>在环境中安装 NumPy 1.x（pip install &quot;numpy&lt;2&quot;），或把 TensorFlow 以及回溯信息中提到的模块升级到为 NumPy 2 构建的版本。</translation>
    </message>
    <message>
        <source>The installed protobuf is newer than the code TensorFlow (or a package it uses) was generated for (&quot;Descriptors cannot be created directly&quot;).</source>
        <translation>已安装的 protobuf 比 TensorFlow（或它使用的包）生成代码时所用的版本更新（“Descriptors cannot be created directly”）。</translation>
    </message>
    <message>
        <source>Install a protobuf of the 3.20 series or older in the environment (pip install &quot;protobuf&lt;3.21&quot;), or a TensorFlow patch release that pins protobuf; setting PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python also works, but slowly.</source>
        <translation>在环境中安装 3.20 系列或更早的 protobuf（pip install &quot;protobuf&lt;3.21&quot;），或安装固定了 protobuf 版本的 TensorFlow 补丁版本；设置 PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python 也可以，但会很慢。</translation>
    </message>
    <message>
        <source>A path with non-ASCII characters (often a Chinese user or folder name) was read in the wrong encoding (UnicodeDecodeError), so a tool failed on it.</source>
        <translation>含有非 ASCII 字符的路径（常见的是中文用户名或文件夹名）被用错误的编码读取（UnicodeDecodeError），导致某个工具出错。</translation>
    </message>
    <message>
        <source>pip could not write a file of TensorFlow because its path is longer than Windows allows without long paths.</source>
        <translation>pip 无法写入 TensorFlow 的某个文件，因为它的路径超过了 Windows 在未开启长路径时允许的长度。</translation>
    </message>
    <message>
        <source>This log comes from another machine than this one, so it is read on its own terms: its findings are about that machine, not this one.</source>
        <translation>这份日志来自另一台机器，而不是这台，所以按它自身的情况来读：其中的结论针对那台机器，而不是这台。</translation>
    </message>
    <message>
        <source>To check that machine itself, run tfsetup doctor there, or give its tfsetup detect --json with --hardware.</source>
        <translation>要检查那台机器本身，请在那里运行 tfsetup doctor，或用 --hardware 提供它的 tfsetup detect --json 输出。</translation>
    </message>
    <message>
        <source>The log was said to come from this computer, but it does not match it: check which computer it comes from. Both the machine&apos;s findings and the log&apos;s are shown.</source>
        <translation>你说这份日志来自这台电脑，但它与这台电脑不符：请确认它来自哪台电脑。机器检查的结论和日志的结论都会列出。</translation>
    </message>
    <message>
        <source>If the log comes from another computer, read it with --log-from other (or answer so on the Repair page); to check that computer, run tfsetup doctor there.</source>
        <translation>如果日志来自另一台电脑，请用 --log-from other 来读（或在“修复”页面上这样回答）；要检查那台电脑，请在那里运行 tfsetup doctor。</translation>
    </message>
    <message>
        <source>This machine was not checked: the log comes from another machine.</source>
        <translation>没有检查这台机器：日志来自另一台机器。</translation>
    </message>
    <message>
        <source>The machine of the hardware file</source>
        <translation>硬件文件所描述的机器</translation>
    </message>
    <message>
        <source>The log&apos;s machine</source>
        <translation>日志所在的机器</translation>
    </message>
    <message>
        <source>Windows could not load a DLL that TensorFlow&apos;s native module needs. The Visual C++ runtime and AVX are both present here, so it is most likely a CUDA or cuDNN DLL of the version this TensorFlow was built with.</source>
        <translation>Windows 无法加载 TensorFlow 原生模块所需的某个 DLL。这里的 Visual C++ 运行库和 AVX 都有，所以最可能缺的是与构建这个 TensorFlow 所用版本相同的 CUDA 或 cuDNN DLL。</translation>
    </message>
    <message>
        <source>The log</source>
        <translation>日志</translation>
    </message>
    <message>
        <source>Cannot read the log %1. Check the path, or paste the log into a text file first.</source>
        <translation>无法读取日志 %1。请检查路径，或先把日志粘贴到一个文本文件中。</translation>
    </message>
    <message>
        <source>cuDNN could not start (CUDNN_STATUS_NOT_INITIALIZED). With no memory error in the log, this is most often a cuDNN or CUDA that does not fit this TensorFlow, or a driver too old for them.</source>
        <translation>cuDNN 无法启动（CUDNN_STATUS_NOT_INITIALIZED）。日志中没有显存错误时，最常见的原因是 cuDNN 或 CUDA 与这个 TensorFlow 不匹配，或者驱动程序对它们来说太旧。</translation>
    </message>
    <message>
        <source>Install the CUDA and cuDNN versions listed for this TensorFlow (tfsetup plan shows them), remove other cuDNN copies that come first on the search path, and update the NVIDIA driver. If another program holds the GPU&apos;s memory, close it or set TF_FORCE_GPU_ALLOW_GROWTH=true.</source>
        <translation>请安装这个 TensorFlow 所列的 CUDA 和 cuDNN 版本（tfsetup plan 会显示），删除在搜索路径上排在前面的其他 cuDNN 副本，并更新 NVIDIA 驱动程序。如果有其他程序占用了 GPU 显存，请关闭它或设置 TF_FORCE_GPU_ALLOW_GROWTH=true。</translation>
    </message>
    <message>
        <source>TensorFlow says the NVIDIA driver %1 is probably too old for the CUDA version it uses.</source>
        <translation>TensorFlow 表示 NVIDIA 驱动程序 %1 对它使用的 CUDA 版本来说可能太旧。</translation>
    </message>
    <message>
        <source>The environment is set to use GPU %1, but this machine has %2 NVIDIA GPU(s) (numbered from 0): TensorFlow started through its launchers will not see GPU %1.</source>
        <translation>该环境设定为使用 GPU %1，但本机只有 %2 块 NVIDIA GPU（从 0 开始编号）：通过其启动脚本启动的 TensorFlow 将看不到 GPU %1。</translation>
    </message>
    <message>
        <source>Install the environment again and choose the GPUs this machine has (tfsetup install --gpus), or run &quot;tfsetup doctor --env %1&quot; on the computer it was made for.</source>
        <translation>请重新安装该环境并选择本机拥有的 GPU（tfsetup install --gpus），或在为其创建该环境的那台计算机上运行“tfsetup doctor --env %1”。</translation>
    </message>
    <message>
        <source>Windows could not load a DLL that TensorFlow&apos;s native module needs (DLL load failed). The Visual C++ runtime is present, so it is not that, and the log does not say which DLL failed.</source>
        <translation>Windows 无法加载 TensorFlow 原生模块所需的某个 DLL（DLL load failed）。Visual C++ 运行库已安装，所以原因不在它，而日志没有说明是哪个 DLL 加载失败。</translation>
    </message>
    <message>
        <source>Run &quot;tfsetup verify&quot; in the environment: it loads TensorFlow&apos;s native module and names the DLL that fails (a CUDA or cuDNN DLL for a GPU build, or a processor without AVX).</source>
        <translation>请在该环境中运行“tfsetup verify”：它会加载 TensorFlow 的原生模块，并指出失败的 DLL（GPU 版本的 CUDA 或 cuDNN DLL，或者处理器不支持 AVX）。</translation>
    </message>
    <message>
        <source>TensorFlow lists no GPU and printed nothing about CUDA. That is what every TensorFlow after %1 does on native Windows, where GPU support ended with TensorFlow %1.</source>
        <translation>TensorFlow 没有列出任何 GPU，也没有输出任何有关 CUDA 的信息。在原生 Windows 上，%1 之后的每个 TensorFlow 都是这样：原生 Windows 的 GPU 支持止于 TensorFlow %1。</translation>
    </message>
    <message>
        <source>On native Windows, use TensorFlow %1 (with a Python it supports) or run a newer TensorFlow inside WSL2 (tfsetup plan --route wsl2). Elsewhere, run &quot;tfsetup doctor --env DIR&quot; on the environment to see why TensorFlow finds no GPU.</source>
        <translation>在原生 Windows 上，请使用 TensorFlow %1（配合它支持的 Python），或在 WSL2 中运行更新的 TensorFlow（tfsetup plan --route wsl2）。在其他系统上，请对该环境运行“tfsetup doctor --env DIR”，查看 TensorFlow 为何找不到 GPU。</translation>
    </message>
    <message>
        <source>The installed Keras does not fit this TensorFlow or this code: Keras 3 (the default from TensorFlow 2.16) cannot run code or load models made for Keras 2 (tf.keras), and a separately installed Keras must match the TensorFlow release.</source>
        <translation>已安装的 Keras 与这个 TensorFlow 或这段代码不匹配：Keras 3（TensorFlow 2.16 起的默认版本）无法运行为 Keras 2（tf.keras）编写的代码或加载其模型，而单独安装的 Keras 必须与 TensorFlow 的版本一致。</translation>
    </message>
    <message>
        <source>For Keras 2 code with TensorFlow 2.16 or newer: pip install tf-keras (the release matching TensorFlow) and set TF_USE_LEGACY_KERAS=1. With an older TensorFlow: install the Keras of the same release (pip install &quot;keras&lt;3&quot;, the same minor version as TensorFlow). Or move the code to Keras 3.</source>
        <translation>在 TensorFlow 2.16 或更新版本上运行 Keras 2 代码：pip install tf-keras（与 TensorFlow 对应的版本）并设置 TF_USE_LEGACY_KERAS=1。较旧的 TensorFlow：安装同一版本的 Keras（pip install &quot;keras&lt;3&quot;，与 TensorFlow 的次版本号相同）。或者把代码迁移到 Keras 3。</translation>
    </message>
    <message>
        <source>A file whose path has non-ASCII characters could not be opened: %1. TensorFlow and h5py on Windows often cannot open such paths.</source>
        <translation>无法打开一个路径中含有非 ASCII 字符（如中文）的文件：%1。Windows 上的 TensorFlow 和 h5py 常常无法打开这样的路径。</translation>
    </message>
    <message>
        <source>Move the model, checkpoint or data to a folder whose path has only English letters, digits and no spaces (e.g. C:\tf\models), or rename the folders on the way, then load it from there.</source>
        <translation>请把模型、检查点或数据移到路径中只有英文字母和数字、没有空格的文件夹（例如 C:\tf\models），或者重命名路径上的文件夹，然后从那里加载。</translation>
    </message>
    <message>
        <source>%1 of the files tfsetup installed in %2 are missing or changed: %3.</source>
        <translation>tfsetup 安装在 %2 中的文件有 %1 个缺失或被改动：%3。</translation>
    </message>
    <message>
        <source>Run &quot;tfsetup repair --env %1&quot;: it puts back exactly these files from their verified sources.</source>
        <translation>请运行“tfsetup repair --env %1”：它会从经过校验的来源准确恢复这些文件。</translation>
    </message>
    <message>
        <source>Files of the NVIDIA packages pip installed in %1 are missing or changed (%2): %3.</source>
        <translation>pip 安装在 %1 中的 NVIDIA 包有文件缺失或被改动（%2）：%3。</translation>
    </message>
    <message>
        <source>The environment&apos;s record %1 cannot be read, so the doctor checked the folder without knowing what was installed in it.</source>
        <translation>无法读取该环境的记录 %1，因此医生在不知道其中安装了什么的情况下检查了该文件夹。</translation>
    </message>
    <message>
        <source>Install the environment again (tfsetup install into %1 or a new folder): repair works from the record and cannot check this environment.</source>
        <translation>请重新安装该环境（用 tfsetup install 安装到 %1 或一个新文件夹）：修复依据的是环境记录，无法检查这个环境。</translation>
    </message>
    <message>
        <source>Loading the environment&apos;s GPU libraries through its launcher found a problem: %1</source>
        <translation>通过启动脚本加载该环境的 GPU 库时发现了问题：%1</translation>
    </message>
    <message>
        <source>Run &quot;tfsetup verify --env %1&quot; for every step, and &quot;tfsetup repair --env %1&quot; to put the environment&apos;s files back.</source>
        <translation>请运行“tfsetup verify --env %1”查看每一步，并运行“tfsetup repair --env %1”恢复该环境的文件。</translation>
    </message>
    <message>
        <source>The libraries were looked for on disk but not loaded: the library probe did not run (%1).</source>
        <translation>只在磁盘上查找了这些库，没有加载它们：库探测程序没有运行（%1）。</translation>
    </message>
    <message>
        <source>Run &quot;tfsetup verify --env %1&quot; to load them as TensorFlow does.</source>
        <translation>请运行“tfsetup verify --env %1”，像 TensorFlow 那样加载它们。</translation>
    </message>
    <message>
        <source>The log&apos;s machine shows no NVIDIA GPU and no working NVIDIA driver, so TensorFlow runs on the CPU. On a machine without a GPU this message is expected and harmless.</source>
        <translation>写出该日志的机器上没有 NVIDIA GPU，也没有可用的 NVIDIA 驱动程序，因此 TensorFlow 在 CPU 上运行。在没有 GPU 的机器上，这条消息是正常且无害的。</translation>
    </message>
    <message>
        <source>Nothing to do on a machine meant for the CPU. If that machine should have an NVIDIA GPU, check there that nvidia-smi lists it.</source>
        <translation>对于本来就用 CPU 的机器，无需任何操作。如果那台机器应该有 NVIDIA GPU，请在那台机器上检查 nvidia-smi 是否列出了它。</translation>
    </message>
    <message>
        <source>This log</source>
        <translation>此日志</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>结论</translation>
    </message>
    <message>
        <source>The log shows what went wrong (%1).</source>
        <translation>日志显示了出错的原因（%1）。</translation>
    </message>
    <message>
        <source>Nothing is wrong in this log: its messages are harmless notices or show the GPU at work.</source>
        <translation>此日志中没有问题：其中的消息是无害的提示，或者表明 GPU 正在工作。</translation>
    </message>
    <message>
        <source>The log holds no message the doctor knows, so it cannot say what went wrong. Run &quot;tfsetup doctor --env DIR&quot; on the machine that wrote it.</source>
        <translation>日志中没有医生认识的消息，所以无法判断出了什么问题。请在写出该日志的机器上运行“tfsetup doctor --env DIR”。</translation>
    </message>
    <message>
        <source>present</source>
        <translation>已安装</translation>
    </message>
    <message>
        <source>missing</source>
        <translation>缺失</translation>
    </message>
    <message>
        <source>Visual C++ runtime</source>
        <translation>Visual C++ 运行库</translation>
    </message>
    <message>
        <source>Route</source>
        <translation>路线</translation>
    </message>
    <message>
        <source>Its CUDA / cuDNN</source>
        <translation>环境的 CUDA / cuDNN</translation>
    </message>
    <message>
        <source>Its GPUs</source>
        <translation>环境使用的 GPU</translation>
    </message>
    <message>
        <source>all</source>
        <translation>全部</translation>
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
        <source>%1 could not be downloaded from any mirror.</source>
        <translation>无法从任何镜像下载 %1。</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a speed floor. Give the lowest acceptable speed in bytes per second, optionally with k or M and a number of seconds: 10k:60 drops a mirror that stays below 10 KiB/s for a minute; 0 turns the floor off.</source>
        <translation>“%1”不是有效的速度下限。请给出以字节每秒计的最低可接受速度，可加 k 或 M 以及秒数：10k:60 表示一分钟内一直低于 10 KiB/s 就放弃该镜像；0 表示关闭下限。</translation>
    </message>
    <message>
        <source>%1 comes too slowly from %2 (below %3/s for %4 s), and no other source is left: it goes on from there, keeping the %5 already downloaded.</source>
        <translation>%1 从 %2 下载得太慢（%4 秒内低于 %3/s），而且没有其他来源可用：将从那里继续下载，保留已下载的 %5。</translation>
    </message>
    <message>
        <source>%1 came too slowly from %2 (below %3/s for %4 s), so that mirror was dropped; the download continues from %5, keeping the %6 already downloaded.</source>
        <translation>%1 从 %2 下载得太慢（%4 秒内低于 %3/s），所以放弃了该镜像；下载从 %5 继续，保留已下载的 %6。</translation>
    </message>
    <message>
        <source>The download of %1 has no full path to be saved at (&quot;%2&quot;). Give the whole path of the file, starting from the top of the disk.</source>
        <translation>%1 的下载没有可保存到的完整路径（“%2”）。请给出文件的完整路径，从磁盘的根开始。</translation>
    </message>
</context>
<context>
    <name>tfsetup::core::IndexBridge</name>
    <message>
        <source>tfsetup could not open a local port for pip (%1). A firewall or security program may block programs from listening on 127.0.0.1; allow tfsetup, then try again.</source>
        <translation>tfsetup 无法为 pip 打开本地端口（%1）。防火墙或安全软件可能阻止程序在 127.0.0.1 上监听；请允许 tfsetup，然后重试。</translation>
    </message>
    <message>
        <source>No package index lists %1.</source>
        <translation>没有任何软件包索引列出 %1。</translation>
    </message>
    <message>
        <source>The package index served metadata for %1 that does not match the checksum it lists. The index or a proxy on the way changes files; try another mirror.</source>
        <translation>软件包索引为 %1 提供的元数据与其列出的校验和不符。该索引或途中的代理修改了文件；请换一个镜像。</translation>
    </message>
    <message>
        <source>The package index gives no dependency list for %1, so tfsetup reads it from the wheel itself (fetched once and kept in the download folder).</source>
        <translation>软件包索引没有提供 %1 的依赖列表，所以 tfsetup 从 wheel 文件本身读取（只下载一次并保存在下载文件夹中）。</translation>
    </message>
</context>
<context>
    <name>tfsetup::core::Installer</name>
    <message>
        <source>Checking the downloaded files</source>
        <translation>正在检查已下载的文件</translation>
    </message>
    <message>
        <source>Unpacking CUDA and cuDNN</source>
        <translation>正在解压 CUDA 和 cuDNN</translation>
    </message>
    <message>
        <source>Putting the libraries in place</source>
        <translation>正在放置库文件</translation>
    </message>
    <message>
        <source>Creating the Python environment</source>
        <translation>正在创建 Python 环境</translation>
    </message>
    <message>
        <source>Installing TensorFlow with pip</source>
        <translation>正在用 pip 安装 TensorFlow</translation>
    </message>
    <message>
        <source>Writing the launchers</source>
        <translation>正在写入启动脚本</translation>
    </message>
    <message>
        <source>Writing the environment record</source>
        <translation>正在写入环境记录</translation>
    </message>
    <message>
        <source>Verifying every file</source>
        <translation>正在验证每个文件</translation>
    </message>
    <message>
        <source>Switching to the new environment</source>
        <translation>正在切换到新环境</translation>
    </message>
    <message>
        <source>Registering the Jupyter kernel and shortcut</source>
        <translation>正在注册 Jupyter 内核和快捷方式</translation>
    </message>
    <message>
        <source>Choose a folder and an environment name without slashes, not starting with a dot.</source>
        <translation>请选择一个文件夹，以及不含斜杠、不以点开头的环境名称。</translation>
    </message>
    <message>
        <source>The install folder %1 cannot be used.</source>
        <translation>无法使用安装文件夹 %1。</translation>
    </message>
    <message>
        <source>TensorFlow %1 (%2)</source>
        <translation>TensorFlow %1（%2）</translation>
    </message>
    <message>
        <source>The folder %1 already exists and was not made by tfsetup. Choose another environment name, or move that folder away.</source>
        <translation>文件夹 %1 已存在，且不是由 tfsetup 创建的。请换一个环境名称，或把该文件夹移走。</translation>
    </message>
    <message>
        <source>The downloaded file %1 is missing or no longer matches its checksum. Download it again.</source>
        <translation>下载的文件 %1 缺失，或已与其校验和不符。请重新下载。</translation>
    </message>
    <message>
        <source>Two of NVIDIA&apos;s archives contain %1. The downloaded archives do not belong together; plan again.</source>
        <translation>NVIDIA 的两个压缩包中都包含 %1。下载的压缩包不属于同一套；请重新制定方案。</translation>
    </message>
    <message>
        <source>The cuDNN archive %1 lacks files that must be installed together (%2). Download the complete archive from NVIDIA again.</source>
        <translation>cuDNN 压缩包 %1 缺少必须一起安装的文件（%2）。请重新从 NVIDIA 下载完整的压缩包。</translation>
    </message>
    <message>
        <source>Python could not create the environment. On Debian and Ubuntu install the package python3-venv; on Windows repair the Python installation.</source>
        <translation>Python 无法创建环境。在 Debian 和 Ubuntu 上请安装 python3-venv 软件包；在 Windows 上请修复 Python 安装。</translation>
    </message>
    <message>
        <source>A file changed between unpacking and checking. The disk may be failing or another program (an antivirus) altered it; try again.</source>
        <translation>有文件在解压后、校验前发生了变化。可能是磁盘出现故障，或有其他程序（如杀毒软件）修改了它；请重试。</translation>
    </message>
    <message>
        <source>The environment %1 is in use. Close every program started from it (Python, Jupyter, shells) and install again.</source>
        <translation>环境 %1 正在使用中。请关闭从该环境启动的所有程序（Python、Jupyter、命令行窗口），然后重新安装。</translation>
    </message>
    <message>
        <source>The Jupyter kernel could not be registered in %1. Start Jupyter with start-jupyter instead.</source>
        <translation>无法在 %1 中注册 Jupyter 内核。请改用 start-jupyter 启动 Jupyter。</translation>
    </message>
    <message>
        <source>The menu entry could not be written to %1.</source>
        <translation>无法将菜单项写入 %1。</translation>
    </message>
    <message>
        <source>The Python archive %1 is not laid out as a relocatable Python (everything in one folder named python). Download it again from the official release.</source>
        <translation>Python 压缩包 %1 的结构不是可迁移的 Python（所有内容都在一个名为 python 的文件夹中）。请从官方发布页面重新下载。</translation>
    </message>
    <message>
        <source>The Python archive %1 has no %2. Download it again from the official release.</source>
        <translation>Python 压缩包 %1 中没有 %2。请从官方发布页面重新下载。</translation>
    </message>
    <message>
        <source>The Python %1 installer did not finish (%2). Start %3 yourself to see why, or install Python %1 from python.org, then scan this computer again.</source>
        <translation>Python %1 安装程序没有完成（%2）。请自己运行 %3 查看原因，或者从 python.org 安装 Python %1，然后重新扫描这台电脑。</translation>
    </message>
    <message>
        <source>exit code %1</source>
        <translation>退出码 %1</translation>
    </message>
    <message>
        <source>The hash-locked requirements file does not pin %1, which the environment&apos;s Jupyter kernel needs. Add %1 with its hashes to the lock file (or make the offline bundle again), then install again.</source>
        <translation>哈希锁定的依赖文件没有固定 %1，而该环境的 Jupyter 内核需要它。请把 %1 连同其哈希值加入锁定文件（或重新生成离线包），然后重新安装。</translation>
    </message>
    <message>
        <source>The disk holding %1 is full (or your disk quota is used up), so %2 could not be written. Free some space or choose a folder on another disk, then install again.</source>
        <translation>%1 所在的磁盘已满（或你的磁盘配额已用完），因此无法写入%2。请释放一些空间或选择另一个磁盘上的文件夹，然后重新安装。</translation>
    </message>
    <message>
        <source>%1 is a link to another folder. tfsetup does not install through links, so that folder&apos;s files are not touched. Remove the link, or give the real folder with --prefix.</source>
        <translation>%1 是指向另一个文件夹的链接。tfsetup 不会通过链接进行安装，因此那个文件夹中的文件不会被改动。请删除该链接，或者用 --prefix 指定真实的文件夹。</translation>
    </message>
    <message>
        <source>the unpacked libraries</source>
        <translation>解压后的库</translation>
    </message>
    <message>
        <source>the Python environment</source>
        <translation>Python 环境</translation>
    </message>
    <message>
        <source>the Python packages</source>
        <translation>Python 包</translation>
    </message>
    <message>
        <source>The Python %1 could not be started (%2), so no environment was made. Choose a Python that is installed (in a lab profile: &quot;interpreter&quot;), or install it, then try again.</source>
        <translation>无法启动 Python %1（%2），所以没有创建环境。请选择已安装的 Python（在实验室配置文件中为“interpreter”），或先安装它，然后重试。</translation>
    </message>
    <message>
        <source>No package list was made for this environment, so pip has nothing verified to install. Start the setup again from the Options page (tfsetup install: run it again).</source>
        <translation>没有为此环境生成软件包列表，所以 pip 没有经过验证的内容可安装。请从“选项”页重新开始设置（tfsetup install：重新运行）。</translation>
    </message>
    <message>
        <source>%1 has not been downloaded yet. Go back to the download step.</source>
        <translation>%1 尚未下载。请回到下载步骤。</translation>
    </message>
    <message>
        <source>A downloaded package no longer matches the hash it was verified with. The disk or another program changed it; run the install again.</source>
        <translation>一个已下载的软件包与验证时的哈希值不再相符。磁盘或其他程序修改了它；请重新运行安装。</translation>
    </message>
    <message>
        <source>pip could not install the verified packages. The log shows pip&apos;s own words.</source>
        <translation>pip 无法安装经过验证的软件包。日志中有 pip 自己的说明。</translation>
    </message>
    <message>
        <source>The Jupyter kernel name &quot;%1&quot; is not one Jupyter lists as it is: use lower-case letters a-z, digits, . _ and - only.</source>
        <translation>Jupyter 内核名称“%1”无法被 Jupyter 原样列出：只能使用小写字母 a-z、数字以及 . _ -。</translation>
    </message>
</context>
<context>
    <name>tfsetup::core::LabSetup</name>
    <message>
        <source>The lab profile asks for the route &quot;%1&quot;, which this tfsetup does not know. Update tfsetup or ask the lab administrator.</source>
        <translation>实验室配置文件要求使用安装路线“%1”，这个版本的 tfsetup 不认识它。请更新 tfsetup 或询问实验室管理员。</translation>
    </message>
    <message>
        <source>The lab profile&apos;s cache folder %1 is not on this computer. Fix &quot;cache&quot; in the profile.</source>
        <translation>实验室配置文件中的缓存文件夹 %1 不在这台电脑上。请修改配置文件中的“cache”。</translation>
    </message>
    <message>
        <source>The installation was cancelled.</source>
        <translation>安装已取消。</translation>
    </message>
    <message>
        <source>note: %1</source>
        <translation>注意：%1</translation>
    </message>
    <message>
        <source>The lab profile&apos;s route &quot;%1&quot; puts NVIDIA&apos;s CUDA libraries into the environment, but &quot;plan.cuda&quot; names no CUDA version. Add the CUDA version to the profile.</source>
        <translation>实验室配置文件的路线“%1”会把 NVIDIA 的 CUDA 库放进环境中，但“plan.cuda”没有指定 CUDA 版本。请在配置文件中加上 CUDA 版本。</translation>
    </message>
    <message>
        <source>The lab profile asks for CUDA %1, which this tfsetup cannot install: it knows no NVIDIA libraries for that version. Correct &quot;plan.cuda&quot; or update tfsetup.</source>
        <translation>实验室配置文件要求 CUDA %1，而此版本的 tfsetup 无法安装它：它不知道该版本对应的 NVIDIA 库。请修正“plan.cuda”或更新 tfsetup。</translation>
    </message>
    <message>
        <source>The environment would lack %1, which CUDA %2 needs, so TensorFlow could not use the GPU. Nothing was installed. Check the NVIDIA mirror or the offline bundle (it must hold NVIDIA&apos;s archives for CUDA %2), or correct the profile&apos;s plan.</source>
        <translation>该环境将缺少 CUDA %2 所需的 %1，TensorFlow 因此无法使用 GPU。没有安装任何内容。请检查 NVIDIA 镜像或离线包（其中必须包含 CUDA %2 的 NVIDIA 压缩包），或修正配置文件中的方案。</translation>
    </message>
    <message>
        <source>The lab profile&apos;s route &quot;%1&quot; puts NVIDIA&apos;s CUDA libraries into the environment, but &quot;plan.cudnn&quot; names no cuDNN version, without which TensorFlow cannot use the GPU. Add the cuDNN version to the profile.</source>
        <translation>实验室配置文件的路线“%1”会把 NVIDIA 的 CUDA 库放进环境，但“plan.cudnn”没有指定 cuDNN 版本，没有它 TensorFlow 无法使用 GPU。请在配置文件中加上 cuDNN 版本。</translation>
    </message>
</context>
<context>
    <name>tfsetup::core::Locker</name>
    <message>
        <source>pip&apos;s answer could not be read. Update pip in this Python, or report this to the tfsetup developers with the log.</source>
        <translation>无法读取 pip 的回答。请更新此 Python 中的 pip，或把日志报告给 tfsetup 的开发者。</translation>
    </message>
    <message>
        <source>pip chose %1, which is not a wheel of the package index tfsetup gave it. tfsetup installs wheels only; choose another release.</source>
        <translation>pip 选择了 %1，它不是 tfsetup 所给软件包索引中的 wheel。tfsetup 只安装 wheel；请选择其他版本。</translation>
    </message>
    <message>
        <source>The Python %1 could not be started (%2), so the packages could not be chosen. Choose a Python that is installed (in a lab profile: &quot;interpreter&quot;), or install it, then try again.</source>
        <translation>无法启动 Python %1（%2），因此无法选择软件包。请选择一个已安装的 Python（在实验室配置文件中：&quot;interpreter&quot;），或先安装它，然后重试。</translation>
    </message>
    <message>
        <source>The Python %1 has no pip new enough to choose the packages (%2.%3 or newer is needed), and without the network none can be fetched. Install pip for it (on Debian and Ubuntu: the package python3-pip), then try again.</source>
        <translation>Python %1 没有足够新的 pip 来选择软件包（需要 %2.%3 或更新版本），而没有网络就无法获取。请为它安装 pip（在 Debian 和 Ubuntu 上：软件包 python3-pip），然后重试。</translation>
    </message>
    <message>
        <source>This Python has no pip new enough to choose the packages; fetching pip from the package index.</source>
        <translation>此 Python 没有足够新的 pip 来选择软件包；正在从软件包索引获取 pip。</translation>
    </message>
    <message>
        <source>The Python %1 has no pip new enough to choose the packages, and the package index offers none for it. Install pip for it (on Debian and Ubuntu: the package python3-pip), then try again.</source>
        <translation>Python %1 没有足够新的 pip 来选择软件包，而软件包索引也没有适合它的 pip。请为它安装 pip（在 Debian 和 Ubuntu 上：软件包 python3-pip），然后重试。</translation>
    </message>
    <message>
        <source>The packages could not be chosen because the package index could not be read: %1</source>
        <translation>无法选择软件包，因为无法读取软件包索引：%1</translation>
    </message>
    <message>
        <source>The offline bundle does not hold %1, which this environment needs. Make the bundle again with tfsetup bundle --profile on a computer with internet.</source>
        <translation>离线包中没有此环境所需的 %1。请在能上网的电脑上用 tfsetup bundle --profile 重新制作离线包。</translation>
    </message>
    <message>
        <source>The package index has no %1 for this Python on this computer. Choose another TensorFlow or Python release, or another package index.</source>
        <translation>软件包索引中没有适用于此电脑上此 Python 的 %1。请选择其他 TensorFlow 或 Python 版本，或换一个软件包索引。</translation>
    </message>
    <message>
        <source>pip found no set of package versions that fit together for these requirements (%1). Remove the extra package that conflicts, or choose another TensorFlow release.</source>
        <translation>pip 找不到一组能相互兼容且满足这些要求的软件包版本（%1）。请移除造成冲突的额外软件包，或选择其他 TensorFlow 版本。</translation>
    </message>
    <message>
        <source>The lab&apos;s lock file does not pin every package with its hash. Ask the lab administrator for a complete lock file (pip-compile --generate-hashes).</source>
        <translation>实验室的锁定文件没有用哈希值固定每个软件包。请向实验室管理员索取完整的锁定文件（pip-compile --generate-hashes）。</translation>
    </message>
    <message>
        <source>pip could not choose the packages. The log shows pip&apos;s own words.</source>
        <translation>pip 无法选择软件包。日志中有 pip 自己的说明。</translation>
    </message>
    <message>
        <source>Choosing the packages was cancelled.</source>
        <translation>已取消选择软件包。</translation>
    </message>
    <message>
        <source>tfsetup cannot write into %1. Choose a download folder that is yours.</source>
        <translation>tfsetup 无法写入 %1。请选择一个属于你的下载文件夹。</translation>
    </message>
    <message>
        <source>The Python %1 could not be started (%2).</source>
        <translation>无法启动 Python %1（%2）。</translation>
    </message>
    <message>
        <source>pip&apos;s report</source>
        <translation>pip 的报告</translation>
    </message>
    <message>
        <source>%1: the package index publishes no checksum; SHA-256 %2 was recorded at its first download.</source>
        <translation>%1：软件包索引没有公布校验和；首次下载时记录的 SHA-256 为 %2。</translation>
    </message>
    <message>
        <source>The lab&apos;s lock file does not pin %1, which the packages it names need. Ask the lab administrator for a complete lock file (pip-compile --generate-hashes).</source>
        <translation>实验室的锁定文件没有固定 %1，而它所列的软件包需要它。请向实验室管理员索取完整的锁定文件（pip-compile --generate-hashes）。</translation>
    </message>
    <message>
        <source>A package from the mirror does not match the hash in the lab&apos;s lock file (%1). The mirror serves different files: ask the lab administrator.</source>
        <translation>镜像中的一个软件包与实验室锁定文件中的哈希值不符（%1）。该镜像提供的是不同的文件：请询问实验室管理员。</translation>
    </message>
</context>
<context>
    <name>tfsetup::core::Repairer</name>
    <message>
        <source>Checking every installed file</source>
        <translation>正在检查每个已安装的文件</translation>
    </message>
    <message>
        <source>Getting the damaged files&apos; archives</source>
        <translation>正在获取损坏文件所在的压缩包</translation>
    </message>
    <message>
        <source>Preparing the replacements</source>
        <translation>正在准备替换文件</translation>
    </message>
    <message>
        <source>Putting the repaired files in place</source>
        <translation>正在放置修复后的文件</translation>
    </message>
    <message>
        <source>Checking the Jupyter kernel</source>
        <translation>正在检查 Jupyter 内核</translation>
    </message>
    <message>
        <source>Verifying the environment</source>
        <translation>正在验证环境</translation>
    </message>
    <message>
        <source>%1 is not an environment made by tfsetup (it has no environment.json). Choose the environment&apos;s folder, or install a new one.</source>
        <translation>%1 不是由 tfsetup 创建的环境（其中没有 environment.json）。请选择环境所在的文件夹，或安装一个新环境。</translation>
    </message>
    <message>
        <source>it came from the lab profile: install the profile again</source>
        <translation>它来自实验室配置文件：请重新安装该配置文件</translation>
    </message>
    <message>
        <source>tfsetup does not know where it came from: install the environment again</source>
        <translation>tfsetup 不知道它的来源：请重新安装该环境</translation>
    </message>
    <message>
        <source>%1 is needed to repair the environment, but it is not among the earlier downloads and tfsetup does not know where to download it. Put the file in the download folder, or install the environment again.</source>
        <translation>修复该环境需要 %1，但它不在之前下载的文件中，tfsetup 也不知道从哪里下载它。请把该文件放到下载文件夹中，或重新安装该环境。</translation>
    </message>
    <message>
        <source>The archive %1 does not hold the file %2 as it was installed. The environment was made from other files; install it again.</source>
        <translation>压缩包 %1 中的文件 %2 与安装时的不一样。该环境是用其他文件创建的；请重新安装它。</translation>
    </message>
    <message>
        <source>tfsetup cannot write %1 again for this environment. Install the environment again.</source>
        <translation>tfsetup 无法为此环境重新写入 %1。请重新安装该环境。</translation>
    </message>
    <message>
        <source>A replacement changed between unpacking and checking. The disk may be failing or another program (an antivirus) altered it; repair again.</source>
        <translation>某个替换文件在解压和校验之间发生了变化。可能是磁盘出现故障，或是其他程序（如杀毒软件）修改了它；请再次修复。</translation>
    </message>
    <message>
        <source>%1 is in use. Close every program started from the environment (Python, Jupyter, shells) and repair again.</source>
        <translation>%1 正在使用中。请关闭从该环境启动的所有程序（Python、Jupyter、命令行窗口），然后再次修复。</translation>
    </message>
    <message>
        <source>Would register the Jupyter kernel again in %1 (your user&apos;s Jupyter folder).</source>
        <translation>将在 %1（你的用户 Jupyter 文件夹）中重新注册 Jupyter 内核。</translation>
    </message>
    <message>
        <source>Registered the Jupyter kernel again in %1 (your user&apos;s Jupyter folder).</source>
        <translation>已在 %1（你的用户 Jupyter 文件夹）中重新注册 Jupyter 内核。</translation>
    </message>
    <message>
        <source>The Jupyter kernel could not be registered in %1. Start Jupyter with start-jupyter instead.</source>
        <translation>无法在 %1 中注册 Jupyter 内核。请改用 start-jupyter 启动 Jupyter。</translation>
    </message>
    <message>
        <source>The environment&apos;s Jupyter kernel is registered as installed.</source>
        <translation>该环境的 Jupyter 内核已按安装时的样子注册。</translation>
    </message>
    <message>
        <source>The environment&apos;s launchers put its own libraries first. Start Python and Jupyter with start-python and start-jupyter.</source>
        <translation>环境的启动脚本会优先使用环境自带的库。请用 start-python 和 start-jupyter 启动 Python 和 Jupyter。</translation>
    </message>
    <message>
        <source>%1 was restored from NVIDIA&apos;s archive.</source>
        <translation>%1 已从 NVIDIA 的压缩包中恢复。</translation>
    </message>
    <message>
        <source>The environment&apos;s own %1 is in place and unchanged.</source>
        <translation>该环境自身的 %1 在原位且未被改动。</translation>
    </message>
    <message>
        <source>%1 is outside the environment; tfsetup does not change system folders. %2</source>
        <translation>%1 位于环境之外；tfsetup 不会更改系统文件夹。%2</translation>
    </message>
    <message>
        <source>Verified after the repair.</source>
        <translation>修复后已验证。</translation>
    </message>
    <message>
        <source>%1 in the environment lies behind a link to another folder, so repair does not write there. Remove the link (or install the environment again).</source>
        <translation>环境中的 %1 位于一个指向其他文件夹的链接之后，因此修复不会写入那里。请删除该链接（或重新安装该环境）。</translation>
    </message>
    <message>
        <source>The Jupyter kernel</source>
        <translation>Jupyter 内核</translation>
    </message>
    <message>
        <source>Would register the Jupyter kernel again in %1 (your user&apos;s Jupyter folder), keeping the kernel.json there as %2.</source>
        <translation>将在 %1（你用户的 Jupyter 文件夹）中重新注册 Jupyter 内核，原有的 kernel.json 保留为 %2。</translation>
    </message>
    <message>
        <source>Registered the Jupyter kernel again in %1 (your user&apos;s Jupyter folder); the kernel.json that was there is kept as %2.</source>
        <translation>已在 %1（你用户的 Jupyter 文件夹）中重新注册 Jupyter 内核；原来在那里的 kernel.json 保留为 %2。</translation>
    </message>
    <message>
        <source>Reinstalling the damaged Python packages</source>
        <translation>正在重新安装损坏的 Python 包</translation>
    </message>
    <message>
        <source>No wheel of %1 %2 that matches what pip installed was found in the download folder, the offline bundle or the package index. Install the environment again.</source>
        <translation>在下载文件夹、离线包或软件包索引中都没有找到与 pip 安装的 %1 %2 相符的 wheel。请重新安装该环境。</translation>
    </message>
    <message>
        <source>pip could not reinstall %1 %2 (its own words are in the log). Install the environment again.</source>
        <translation>pip 无法重新安装 %1 %2（它的原始输出在日志中）。请重新安装该环境。</translation>
    </message>
    <message>
        <source>%1 %2 could not be put back whole (the log says which files and why). Install the environment again.</source>
        <translation>%1 %2 无法完整恢复（日志中写明了是哪些文件以及原因）。请重新安装该环境。</translation>
    </message>
    <message>
        <source>The Jupyter kernel in %1 is not this environment&apos;s, so repair leaves it as it is. Start Jupyter with start-jupyter, or install the environment again to register a kernel of its own.</source>
        <translation>%1 中的 Jupyter 内核不属于本环境，修复不会改动它。请用 start-jupyter 启动 Jupyter，或重新安装本环境以注册它自己的内核。</translation>
    </message>
</context>
<context>
    <name>tfsetup::core::SetupPipeline</name>
    <message>
        <source>The setup was cancelled; nothing was changed.</source>
        <translation>设置已取消；没有做任何更改。</translation>
    </message>
    <message>
        <source>Python %1 (64-bit) is needed to choose the packages and make the environment, and none was found. Install it, then scan this computer again.</source>
        <translation>需要 Python %1（64 位）来选择软件包并创建环境，但没有找到。请先安装它，然后重新扫描此电脑。</translation>
    </message>
    <message>
        <source>Fetching Python %1 to choose the packages with its pip…</source>
        <translation>正在获取 Python %1，以便用它的 pip 选择软件包…</translation>
    </message>
    <message>
        <source>Looking up the official files for TensorFlow %1…</source>
        <translation>正在查找 TensorFlow %1 的官方文件…</translation>
    </message>
    <message>
        <source>tfsetup cannot write into the download folder %1. Choose a folder that is yours.</source>
        <translation>tfsetup 无法写入下载文件夹 %1。请选择一个属于你的文件夹。</translation>
    </message>
    <message>
        <source>Checking that the offline bundle holds every package this environment needs…</source>
        <translation>正在检查离线包是否包含此环境所需的每个软件包…</translation>
    </message>
    <message>
        <source>Without the network the packages can only come from an offline bundle. Give one with --from (or on the Options page).</source>
        <translation>没有网络时，软件包只能来自离线包。请用 --from（或在“选项”页）指定一个离线包。</translation>
    </message>
    <message>
        <source>The offline bundle %1 holds no Python packages, and without the network none can be fetched. Make the bundle again with tfsetup bundle on a computer with internet (without --no-wheelhouse).</source>
        <translation>离线包 %1 中没有 Python 包，而没有网络就无法获取。请在能上网的电脑上用 tfsetup bundle 重新制作离线包（不要加 --no-wheelhouse）。</translation>
    </message>
    <message>
        <source>Choosing the Python packages with pip (from %1)…</source>
        <translation>正在用 pip 选择 Python 包（来自 %1）…</translation>
    </message>
    <message>
        <source>No checksum could be found or recorded for %1, so it cannot be checked. Try another package index.</source>
        <translation>找不到也无法记录 %1 的校验和，因此无法检查它。请换一个软件包索引。</translation>
    </message>
    <message>
        <source>The offline bundle %1 does not list %2. Make the bundle again.</source>
        <translation>离线包 %1 中没有列出 %2。请重新制作离线包。</translation>
    </message>
    <message numerus="yes">
        <source>pip chose %n package(s), %1 in all.</source>
        <translation>
            <numerusform>pip 选择了 %n 个软件包，共 %1。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n file(s) to fetch, %1 in all; files already in the download folder are only checked.</source>
        <translation>
            <numerusform>需要获取 %n 个文件，共 %1；下载文件夹中已有的文件只做检查。</numerusform>
        </translation>
    </message>
    <message>
        <source>Fetching %1 (%2)…</source>
        <translation>正在获取 %1（%2）…</translation>
    </message>
    <message>
        <source>Fetching %1…</source>
        <translation>正在获取 %1…</translation>
    </message>
    <message>
        <source>%1 (%2): already in the download folder, checksum verified.</source>
        <translation>%1（%2）：已在下载文件夹中，校验和已验证。</translation>
    </message>
    <message>
        <source>%1 (%2): downloaded from %3, checksum verified.</source>
        <translation>%1（%2）：已从 %3 下载，校验和已验证。</translation>
    </message>
    <message>
        <source>note: %1</source>
        <translation>注意：%1</translation>
    </message>
</context>
<context>
    <name>tfsetup::core::Upgrader</name>
    <message>
        <source>The upgrade was cancelled; the environment is as it was.</source>
        <translation>升级已取消；环境保持原样。</translation>
    </message>
    <message>
        <source>%1 was installed on the route &quot;%2&quot;, which this tfsetup does not know. Update tfsetup.</source>
        <translation>%1 是用路线 &quot;%2&quot; 安装的，这个版本的 tfsetup 不认识该路线。请更新 tfsetup。</translation>
    </message>
    <message>
        <source>%1 was installed from a hash-locked requirements file (a lab profile), which pins its TensorFlow. Upgrade it with the lab&apos;s new profile: tfsetup install --profile FILE --yes.</source>
        <translation>%1 是用一个锁定哈希的依赖文件（实验室配置文件）安装的，它固定了 TensorFlow 版本。请用实验室新的配置文件升级：tfsetup install --profile FILE --yes。</translation>
    </message>
    <message>
        <source>TensorFlow %1 is not newer than the environment&apos;s %2. An upgrade only goes to a newer release; for another one, make a new environment.</source>
        <translation>TensorFlow %1 并不比环境中的 %2 新。升级只能升到更新的版本；如需其他版本，请创建新环境。</translation>
    </message>
    <message>
        <source>%1 was made for %2, and this machine runs %3. Upgrade it on the system it was made for.</source>
        <translation>%1 是为 %2 创建的，而本机运行的是 %3。请在创建它的系统上升级。</translation>
    </message>
    <message>
        <source>TensorFlow %1 does not support Python %2, which the environment has; the upgraded environment gets Python %3.</source>
        <translation>TensorFlow %1 不支持环境中的 Python %2；升级后的环境将使用 Python %3。</translation>
    </message>
    <message>
        <source>%1 has TensorFlow %2, which the solver ranks above the newer releases that would run here (%3); give --tf to upgrade to one of them anyway.</source>
        <translation>%1 的 TensorFlow %2 在求解器的排序中高于可在本机运行的更新版本（%3）；如仍要升级到其中之一，请使用 --tf 指定。</translation>
    </message>
    <message>
        <source>TensorFlow %1: %2</source>
        <translation>TensorFlow %1：%2</translation>
    </message>
    <message>
        <source>%1 has TensorFlow %2, the newest release tfsetup knows for the %3 route; there is nothing to upgrade.</source>
        <translation>%1 的 TensorFlow %2 已是 tfsetup 所知的 %3 路线上的最新版本；没有可升级的内容。</translation>
    </message>
    <message>
        <source>No TensorFlow newer than %1 runs on this machine on the %2 route; %3 stays as it is.</source>
        <translation>在 %2 路线上，本机无法运行比 %1 更新的 TensorFlow；%3 保持原样。</translation>
    </message>
    <message>
        <source>TensorFlow %1 cannot run on this machine on the %2 route; %3 stays as it is.</source>
        <translation>在 %2 路线上，TensorFlow %1 无法在本机运行；%3 保持原样。</translation>
    </message>
    <message>
        <source>%1 can be upgraded from TensorFlow %2 to %3.</source>
        <translation>%1 可以从 TensorFlow %2 升级到 %3。</translation>
    </message>
    <message>
        <source>There is nothing to upgrade.</source>
        <translation>没有可升级的内容。</translation>
    </message>
    <message>
        <source>%1 changed since the upgrade was proposed. Ask for the proposal again.</source>
        <translation>%1 在提出升级方案之后发生了变化。请重新获取升级方案。</translation>
    </message>
    <message>
        <source>Finding the files TensorFlow %1 needs…</source>
        <translation>正在查找 TensorFlow %1 需要的文件…</translation>
    </message>
    <message>
        <source>Verifying %1: loading its GPU libraries, then running TensorFlow…</source>
        <translation>正在验证 %1：先加载它的 GPU 库，再运行 TensorFlow…</translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::CatalogNotice</name>
    <message>
        <source>Checking for a catalog update…</source>
        <translation>正在检查知识库更新…</translation>
    </message>
    <message>
        <source>Catalog update version %1 of %2 is installed; tfsetup uses it from now on.</source>
        <translation>已安装知识库更新，版本 %1，日期 %2；tfsetup 从现在起使用它。</translation>
    </message>
    <message>
        <source>The knowledge catalog is up to date (version %1).</source>
        <translation>知识库已是最新（版本 %1）。</translation>
    </message>
    <message>
        <source>Chec&amp;k for catalog updates</source>
        <translation>检查知识库更新(&amp;K)</translation>
    </message>
    <message>
        <source>Fetch the signed update of tfsetup&apos;s knowledge (TensorFlow&apos;s tested versions, NVIDIA&apos;s tables, GPUs) through the proxy above.</source>
        <translation>通过上面的代理获取 tfsetup 知识（TensorFlow 测试过的版本、NVIDIA 的对照表、GPU）的签名更新。</translation>
    </message>
    <message>
        <source>The knowledge catalog is updated: version %1 of %2.</source>
        <translation>知识库已更新：版本 %1，日期 %2。</translation>
    </message>
    <message>
        <source>The installed catalog update was refused, so tfsetup uses its built-in catalog: %1</source>
        <translation>已安装的知识库更新被拒绝，所以 tfsetup 使用内置知识库：%1</translation>
    </message>
    <message>
        <source>tfsetup&apos;s release page has not published a catalog update yet; the built-in catalog (version %1) stays in use.</source>
        <translation>tfsetup 的发布页面还没有发布知识库更新；继续使用内置知识库（版本 %1）。</translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::ChoosePage</name>
    <message>
        <source>tfsetup has not looked at your computer yet. Go back one page and let it scan.</source>
        <translation>tfsetup 还没有检查你的计算机。请返回上一页，让它进行扫描。</translation>
    </message>
    <message>
        <source>TensorFlow %1</source>
        <translation>TensorFlow %1</translation>
    </message>
    <message>
        <source>Python %1</source>
        <translation>Python %1</translation>
    </message>
    <message>
        <source>driver update</source>
        <translation>更新驱动程序</translation>
    </message>
    <message>
        <source>NVIDIA driver</source>
        <translation>NVIDIA 驱动程序</translation>
    </message>
    <message>
        <source>WSL2</source>
        <translation>WSL2</translation>
    </message>
    <message>
        <source>CUDA %1</source>
        <translation>CUDA %1</translation>
    </message>
    <message>
        <source>cuDNN %1</source>
        <translation>cuDNN %1</translation>
    </message>
    <message>
        <source>Visual C++ runtime</source>
        <translation>Visual C++ 运行库</translation>
    </message>
    <message>
        <source>%1 (recommended)</source>
        <translation>%1（推荐）</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>nothing</source>
        <translation>无</translation>
    </message>
    <message>
        <source>any</source>
        <translation>任意</translation>
    </message>
    <message>
        <source>graphics card</source>
        <translation>显卡</translation>
    </message>
    <message>
        <source>TensorFlow %1 inside WSL2, using your %2, with Python %3.</source>
        <translation>在 WSL2 中运行 TensorFlow %1，使用你的 %2，Python 版本为 %3。</translation>
    </message>
    <message>
        <source>TensorFlow %1 using your %2, with Python %3.</source>
        <translation>使用你的 %2 运行 TensorFlow %1，搭配 Python %3。</translation>
    </message>
    <message>
        <source>TensorFlow %1 on the processor only (no GPU), with Python %2.</source>
        <translation>TensorFlow %1，仅使用处理器（不使用 GPU），Python %2。</translation>
    </message>
    <message>
        <source>Recommended: %1</source>
        <translation>推荐：%1</translation>
    </message>
    <message>
        <source>Your choice: %1</source>
        <translation>你的选择：%1</translation>
    </message>
    <message>
        <source>The driver lets programs use your graphics card. Get it for your card from NVIDIA&apos;s driver download page (on Linux, from your distribution&apos;s driver tool), restart the computer, then run tfsetup again. Your files and programs stay as they are.</source>
        <translation>驱动程序让程序能够使用你的显卡。请从 NVIDIA 的驱动程序下载页面获取适用于你显卡的驱动程序（Linux 上请使用发行版自带的驱动程序工具），重启计算机，然后再次运行 tfsetup。你的文件和程序都会保持原样。</translation>
    </message>
    <message>
        <source>WSL2 runs Linux inside Windows; newer TensorFlow releases use the GPU only there. Open PowerShell as administrator, run &quot;wsl --install&quot;, restart, then run tfsetup inside the Linux window.</source>
        <translation>WSL2 可以在 Windows 中运行 Linux；较新的 TensorFlow 版本只能在其中使用 GPU。请以管理员身份打开 PowerShell，运行 &quot;wsl --install&quot;，重启计算机，然后在 Linux 窗口中运行 tfsetup。</translation>
    </message>
    <message>
        <source>These are Microsoft system files that many Windows programs share; installing them changes nothing else.</source>
        <translation>这些是许多 Windows 程序共用的 Microsoft 系统文件；安装它们不会改变其他任何内容。</translation>
    </message>
    <message>
        <source>A lab computer or a hosted notebook service with a GPU works without installing anything here.</source>
        <translation>使用带 GPU 的实验室计算机或云端 Notebook 服务，无需在这里安装任何东西。</translation>
    </message>
    <message>
        <source>No TensorFlow combination fits this computer as it is.</source>
        <translation>没有适合这台计算机当前状况的 TensorFlow 组合。</translation>
    </message>
    <message>
        <source>&quot;Not possible here&quot; below says why for each one.</source>
        <translation>下方的“在本机上不可行”中说明了每种组合不可行的原因。</translation>
    </message>
    <message>
        <source>Good to know:</source>
        <translation>须知：</translation>
    </message>
    <message>
        <source>The log file has the details: %1</source>
        <translation>日志文件中有详细信息：%1</translation>
    </message>
    <message>
        <source>Your TensorFlow setup</source>
        <translation>你的 TensorFlow 安装方案</translation>
    </message>
    <message>
        <source>tfsetup chose the combination that fits your computer best. You can pick another one below.</source>
        <translation>tfsetup 已选出最适合你计算机的组合。你也可以在下面选择其他组合。</translation>
    </message>
    <message>
        <source>Working out what fits your computer…</source>
        <translation>正在找出适合你计算机的组合……</translation>
    </message>
    <message>
        <source>Do this first:</source>
        <translation>请先完成：</translation>
    </message>
    <message>
        <source>Possible combinations (%1)</source>
        <translation>可选的组合（%1）</translation>
    </message>
    <message>
        <source>Not possible here (%1)</source>
        <translation>在本机上不可行（%1）</translation>
    </message>
    <message>
        <source>Advanced</source>
        <translation>高级</translation>
    </message>
    <message>
        <source>TensorFlow</source>
        <translation>TensorFlow</translation>
    </message>
    <message>
        <source>Runs on</source>
        <translation>运行于</translation>
    </message>
    <message>
        <source>Python</source>
        <translation>Python</translation>
    </message>
    <message>
        <source>CUDA</source>
        <translation>CUDA</translation>
    </message>
    <message>
        <source>cuDNN</source>
        <translation>cuDNN</translation>
    </message>
    <message>
        <source>Needs first</source>
        <translation>需先准备</translation>
    </message>
    <message>
        <source>Possible combinations</source>
        <translation>可选的组合</translation>
    </message>
    <message>
        <source>Why not</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Combinations that do not fit this computer</source>
        <translation>不适合这台计算机的组合</translation>
    </message>
    <message>
        <source>&amp;TensorFlow version:</source>
        <translation>TensorFlow 版本(&amp;T)：</translation>
    </message>
    <message>
        <source>&amp;Python version:</source>
        <translation>Python 版本(&amp;P)：</translation>
    </message>
    <message>
        <source>TensorFlow version</source>
        <translation>TensorFlow 版本</translation>
    </message>
    <message>
        <source>Python version</source>
        <translation>Python 版本</translation>
    </message>
    <message>
        <source>Best for this computer</source>
        <translation>最适合这台计算机</translation>
    </message>
    <message>
        <source>&amp;Keep the NVIDIA driver as it is (for computers where you cannot install drivers)</source>
        <translation>保持 NVIDIA 驱动程序不变（适用于无法安装驱动程序的计算机）(&amp;K)</translation>
    </message>
    <message>
        <source>A course may ask for a particular version. Combinations that do not fit it are listed under &quot;Not possible here&quot; with the reason.</source>
        <translation>课程可能要求使用特定版本。与之不兼容的组合会列在“在本机上不可行”下，并附有原因。</translation>
    </message>
    <message>
        <source>Other combinations</source>
        <translation>其他组合</translation>
    </message>
    <message>
        <source>The chosen combination</source>
        <translation>选定的组合</translation>
    </message>
    <message>
        <source>Every TensorFlow release on %1:</source>
        <translation>%1 上的所有 TensorFlow 版本：</translation>
    </message>
    <message>
        <source>TensorFlow %1 on %2:</source>
        <translation>%2 上的 TensorFlow %1：</translation>
    </message>
    <message>
        <source>Show &amp;all</source>
        <translation>显示全部(&amp;A)</translation>
    </message>
    <message>
        <source>Also lists older TensorFlow releases and every Python version of each combination.</source>
        <translation>同时列出较旧的 TensorFlow 版本，以及每种组合的所有 Python 版本。</translation>
    </message>
    <message>
        <source>Why this combination does not fit</source>
        <translation>为什么此组合不适用</translation>
    </message>
    <message>
        <source>Shown now: %1 of %2 possible combinations, %3 of %4 that are not possible.</source>
        <translation>当前显示：%2 个可行组合中的 %1 个，%4 个不可行组合中的 %3 个。</translation>
    </message>
    <message>
        <source>At a glance</source>
        <translation>概览</translation>
    </message>
    <message>
        <source>Every TensorFlow release against every way to install it on this computer.</source>
        <translation>每个 TensorFlow 版本与这台电脑上每种安装方式的对照。</translation>
    </message>
    <message>
        <source>Use the processor &amp;only, not the GPU</source>
        <translation>仅使用处理器，不使用 GPU(&amp;O)</translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::CompatView</name>
    <message>
        <source>TensorFlow %1, %2</source>
        <translation>TensorFlow %1，%2</translation>
    </message>
    <message>
        <source>Recommended</source>
        <translation>推荐</translation>
    </message>
    <message>
        <source>Works</source>
        <translation>可用</translation>
    </message>
    <message>
        <source>After a step</source>
        <translation>需额外步骤</translation>
    </message>
    <message>
        <source>Experimental</source>
        <translation>实验性</translation>
    </message>
    <message>
        <source>%1: works with Python %2 once this is done:</source>
        <translation>%1：完成以下步骤后可配合 Python %2 使用：</translation>
    </message>
    <message>
        <source>%1: works on this computer, with Python %2.</source>
        <translation>%1：可在这台电脑上配合 Python %2 使用。</translation>
    </message>
    <message>
        <source>Recommended.</source>
        <translation>推荐。</translation>
    </message>
    <message>
        <source>Not possible</source>
        <translation>不可行</translation>
    </message>
    <message>
        <source>%1: not possible on this computer:</source>
        <translation>%1：在这台电脑上不可行：</translation>
    </message>
    <message>
        <source>%1: tfsetup does not offer this combination.</source>
        <translation>%1：tfsetup 不提供此组合。</translation>
    </message>
    <message>
        <source>Select a cell to see why.</source>
        <translation>选择一个单元格以查看原因。</translation>
    </message>
    <message>
        <source>Which TensorFlow releases work on this computer, on each route</source>
        <translation>在这台电脑上，每种安装方式可用的 TensorFlow 版本</translation>
    </message>
    <message>
        <source>Rows are TensorFlow releases, columns are ways to install it. Each cell says whether it works as it is, after a step, or not at all.</source>
        <translation>行是 TensorFlow 版本，列是安装方式。每个单元格说明该组合是直接可用、完成某个步骤后可用，还是完全不可用。</translation>
    </message>
    <message>
        <source>Why</source>
        <translation>原因</translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::ConnectionTest</name>
    <message>
        <source>%1/s</source>
        <translation>%1/s</translation>
    </message>
    <message>
        <source>name not found</source>
        <translation>找不到域名</translation>
    </message>
    <message>
        <source>connection refused</source>
        <translation>连接被拒绝</translation>
    </message>
    <message>
        <source>proxy not reachable</source>
        <translation>无法连接代理</translation>
    </message>
    <message>
        <source>no answer in time</source>
        <translation>超时无响应</translation>
    </message>
    <message>
        <source>too slow</source>
        <translation>太慢</translation>
    </message>
    <message>
        <source>certificate not trusted</source>
        <translation>证书不受信任</translation>
    </message>
    <message>
        <source>proxy asks for a password</source>
        <translation>代理要求密码</translation>
    </message>
    <message>
        <source>the proxy could not reach it</source>
        <translation>代理无法连到它</translation>
    </message>
    <message>
        <source>the server refused the request</source>
        <translation>服务器拒绝了请求</translation>
    </message>
    <message>
        <source>a web page instead (log in?)</source>
        <translation>返回的是网页（需要登录？）</translation>
    </message>
    <message>
        <source>folder missing</source>
        <translation>文件夹缺失</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>not needed for this plan</source>
        <translation>此方案不需要</translation>
    </message>
    <message>
        <source>%1 (not needed for this plan)</source>
        <translation>%1（此方案不需要）</translation>
    </message>
    <message>
        <source>NVIDIA</source>
        <translation>NVIDIA</translation>
    </message>
    <message>
        <source>NVIDIA mirror</source>
        <translation>NVIDIA 镜像</translation>
    </message>
    <message>
        <source>python.org</source>
        <translation>python.org</translation>
    </message>
    <message>
        <source>PyPI</source>
        <translation>PyPI</translation>
    </message>
    <message>
        <source>PyPI mirror %1</source>
        <translation>PyPI 镜像 %1</translation>
    </message>
    <message>
        <source>%1 not reachable</source>
        <translation>%1 无法连通</translation>
    </message>
    <message>
        <source>%1 %2 (slow)</source>
        <translation>%1 %2（慢）</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <translation>%1 %2</translation>
    </message>
    <message>
        <source>%1 answered in %2 ms</source>
        <translation>%1 在 %2 毫秒内响应</translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <source>yes, slowly</source>
        <translation>是，但很慢</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 毫秒</translation>
    </message>
    <message>
        <source>Test &amp;connection</source>
        <translation>测试连接(&amp;C)</translation>
    </message>
    <message>
        <source>Checks whether PyPI (or the mirror above), NVIDIA and python.org answer through the proxy above, and how fast.</source>
        <translation>检查 PyPI（或上面的镜像）、NVIDIA 和 python.org 通过上面的代理能否响应，以及速度如何。</translation>
    </message>
    <message>
        <source>Origin</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <source>Reachable</source>
        <translation>可连通</translation>
    </message>
    <message>
        <source>Latency</source>
        <translation>延迟</translation>
    </message>
    <message>
        <source>Speed</source>
        <translation>速度</translation>
    </message>
    <message>
        <source>Why not</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Connection test results</source>
        <translation>连接测试结果</translation>
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
    <name>tfsetup::ui::DownloadPage</name>
    <message>
        <source>pending</source>
        <comment>checksum status</comment>
        <translation>待校验</translation>
    </message>
    <message>
        <source>Waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>Checking</source>
        <translation>正在校验</translation>
    </message>
    <message>
        <source>%1/s</source>
        <translation>%1/s</translation>
    </message>
    <message>
        <source>Paused at %p%</source>
        <translation>已暂停（%p%）</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>verified (MD5 only)</source>
        <comment>checksum status</comment>
        <translation>已验证（仅 MD5）</translation>
    </message>
    <message>
        <source>verified</source>
        <comment>checksum status</comment>
        <translation>已校验</translation>
    </message>
    <message>
        <source>Rejected</source>
        <translation>已拒绝</translation>
    </message>
    <message>
        <source>mismatch</source>
        <comment>checksum status</comment>
        <translation>不匹配</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>already downloaded</source>
        <translation>已下载</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <translation>%1 %2</translation>
    </message>
    <message numerus="yes">
        <source>All %n file(s) are downloaded and their checksums verified.</source>
        <translation>
            <numerusform>全部 %n 个文件均已下载，校验和验证通过。</numerusform>
        </translation>
    </message>
    <message>
        <source>Downloads stopped. What arrived is kept: Resume continues where they stopped.</source>
        <translation>下载已停止。已下载的部分会保留：点击“继续”会从停止处接着下载。</translation>
    </message>
    <message>
        <source>Paused. Resume continues where the downloads stopped.</source>
        <translation>已暂停。点击“继续”可从中断处继续下载。</translation>
    </message>
    <message>
        <source>%1 of %2 downloaded</source>
        <translation>已下载 %1 / %2</translation>
    </message>
    <message>
        <source>%1 downloaded</source>
        <translation>已下载 %1</translation>
    </message>
    <message>
        <source>The log file has the details: %1</source>
        <translation>日志文件中有详细信息：%1</translation>
    </message>
    <message>
        <source>Downloading</source>
        <translation>正在下载</translation>
    </message>
    <message>
        <source>tfsetup downloads the official files and checks each one against its published checksum. You can go back meanwhile; the downloads keep going.</source>
        <translation>tfsetup 只下载官方文件，并逐一核对校验和。下载时可以返回上一步，下载不会中断。</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Progress</source>
        <translation>进度</translation>
    </message>
    <message>
        <source>Speed</source>
        <translation>速度</translation>
    </message>
    <message>
        <source>Time left</source>
        <translation>剩余时间</translation>
    </message>
    <message>
        <source>From</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Checksum</source>
        <translation>校验和</translation>
    </message>
    <message>
        <source>Downloads</source>
        <translation>下载</translation>
    </message>
    <message>
        <source>There is nothing to download for this choice.</source>
        <translation>这个选择没有需要下载的内容。</translation>
    </message>
    <message>
        <source>&amp;Pause</source>
        <translation>暂停(&amp;P)</translation>
    </message>
    <message>
        <source>Pause downloads</source>
        <translation>暂停下载</translation>
    </message>
    <message>
        <source>&amp;Resume</source>
        <translation>继续(&amp;R)</translation>
    </message>
    <message>
        <source>Resume downloads</source>
        <translation>继续下载</translation>
    </message>
    <message>
        <source>Continues paused or stopped downloads where they stopped, and tries failed ones again.</source>
        <translation>从中断处继续已暂停或已停止的下载，并重试失败的下载。</translation>
    </message>
    <message>
        <source>&amp;Stop downloads</source>
        <translation>停止下载(&amp;S)</translation>
    </message>
    <message>
        <source>Stop downloads</source>
        <translation>停止下载</translation>
    </message>
    <message>
        <source>Stops every download. What arrived is kept, so Resume does not start over.</source>
        <translation>停止所有下载。已下载的部分会保留，因此继续下载时不会从头开始。</translation>
    </message>
    <message>
        <source>Please note before the downloads:</source>
        <translation>下载前请注意：</translation>
    </message>
    <message>
        <source>Notes about the files</source>
        <translation>关于这些文件的提示</translation>
    </message>
    <message>
        <source>The CUDA libraries below are CUDA %1&apos;s, standing in for CUDA %2, the version TensorFlow %3 was tested with.</source>
        <translation>下面的 CUDA 库是 CUDA %1 的，用来代替 CUDA %2，即 TensorFlow %3 测试时所用的版本。</translation>
    </message>
    <message>
        <source>Why: %1</source>
        <translation>原因：%1</translation>
    </message>
    <message>
        <source>CUDA libraries of another release</source>
        <translation>另一个版本的 CUDA 库</translation>
    </message>
    <message>
        <source>What comes down:</source>
        <translation>将要下载的内容：</translation>
    </message>
    <message numerus="yes">
        <source>NVIDIA&apos;s libraries: %n archive(s), %1</source>
        <translation>
            <numerusform>NVIDIA 的库：%n 个压缩包，%1</numerusform>
        </translation>
    </message>
    <message>
        <source>Python %1: %2</source>
        <translation>Python %1：%2</translation>
    </message>
    <message numerus="yes">
        <source>Other files: %n file(s), %1</source>
        <translation>
            <numerusform>其他文件：%n 个文件，%1</numerusform>
        </translation>
    </message>
    <message>
        <source>During the install, pip fetches %1: about %2 for the TensorFlow wheel (an estimate, from PyPI&apos;s listing; the packages TensorFlow needs come on top).</source>
        <translation>安装过程中，pip 会下载 %1：TensorFlow 的 wheel 约 %2（根据 PyPI 的列表估算；TensorFlow 所需的其他包另计）。</translation>
    </message>
    <message>
        <source>During the install, pip fetches %1 and the packages it needs; their size is known only then.</source>
        <translation>安装过程中，pip 会下载 %1 及其所需的包；它们的大小要到那时才知道。</translation>
    </message>
    <message>
        <source>In all about %1</source>
        <translation>总计约 %1</translation>
    </message>
    <message>
        <source>In all %1, plus pip&apos;s packages</source>
        <translation>总计 %1，另加 pip 的包</translation>
    </message>
    <message>
        <source>In all %1</source>
        <translation>总计 %1</translation>
    </message>
    <message>
        <source>In all at least %1</source>
        <translation>总计至少 %1</translation>
    </message>
    <message>
        <source>(about %1 at the current %2/s).</source>
        <translation>（按当前 %2/s 计算约需 %1）。</translation>
    </message>
    <message>
        <source>(about %1 at %2/s; the real time shows once the downloads run).</source>
        <translation>（按 %2/s 计算约需 %1；开始下载后会显示实际时间）。</translation>
    </message>
    <message>
        <source>What will be downloaded</source>
        <translation>将要下载的内容</translation>
    </message>
    <message numerus="yes">
        <source>Python packages (TensorFlow and what it needs, as pip&apos;s resolver chose them): %n wheel(s), %1</source>
        <translation>
            <numerusform>Python 包（TensorFlow 及其依赖，由 pip 的依赖解析器选定）：%n 个 wheel，%1</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 (about %2)</source>
        <translation>%1（约 %2）</translation>
    </message>
    <message>
        <source>checked at install</source>
        <comment>checksum status</comment>
        <translation>安装时校验</translation>
    </message>
    <message>
        <source>Nothing to download: every file comes from the offline bundle %1.</source>
        <translation>无需下载：所有文件都来自离线包 %1。</translation>
    </message>
    <message>
        <source>Nothing to download before the install: pip fetches the packages below during the install.</source>
        <translation>安装前无需下载：pip 会在安装过程中获取下列软件包。</translation>
    </message>
    <message>
        <source>offline bundle</source>
        <translation>离线包</translation>
    </message>
    <message>
        <source>In the bundle</source>
        <translation>在离线包中</translation>
    </message>
    <message>
        <source>PyPI</source>
        <translation>PyPI</translation>
    </message>
    <message>
        <source>%1 and the packages it needs</source>
        <translation>%1 及其依赖的软件包</translation>
    </message>
    <message>
        <source>With the install</source>
        <translation>安装时获取</translation>
    </message>
    <message>
        <source>(%1/s, about %2 left)</source>
        <translation>（%1/s，约剩 %2）</translation>
    </message>
    <message>
        <source>(%1/s)</source>
        <translation>（%1/s）</translation>
    </message>
    <message>
        <source>Set a proxy or &amp;mirror…</source>
        <translation>设置代理或镜像(&amp;M)…</translation>
    </message>
    <message>
        <source>Download a&amp;gain</source>
        <translation>重新下载(&amp;G)</translation>
    </message>
    <message>
        <source>Open the &amp;log</source>
        <translation>打开日志(&amp;L)</translation>
    </message>
    <message numerus="yes">
        <source>From the offline bundle: %n file(s), %1, nothing to download.</source>
        <translation>
            <numerusform>来自离线包：%n 个文件，%1，无需下载。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>From the offline bundle: %n file(s), at least %1, nothing to download.</source>
        <translation>
            <numerusform>来自离线包：%n 个文件，至少 %1，无需下载。</numerusform>
        </translation>
    </message>
    <message>
        <source>From: %1</source>
        <translation>来源：%1</translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
    <message>
        <source>About the downloads</source>
        <translation>关于下载</translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::DownloadPreview</name>
    <message>
        <source>the offline bundle cannot serve this combination</source>
        <translation>离线包无法提供此组合</translation>
    </message>
    <message>
        <source>NVIDIA could not be reached; a proxy or mirror can be set on the next page</source>
        <translation>无法连接到 NVIDIA；可在下一页设置代理或镜像</translation>
    </message>
    <message>
        <source>the lookup failed; the log has why</source>
        <translation>查询失败；原因见日志</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>%1 (%2&apos;s files)</source>
        <comment>CUDA tested with (CUDA whose files are downloaded)</comment>
        <translation>%1（使用 %2 的文件）</translation>
    </message>
    <message>
        <source>Total download: %1.</source>
        <translation>总下载量：%1。</translation>
    </message>
    <message numerus="yes">
        <source>Total download: at least %1; %n more file(s) of unknown size, plus the TensorFlow wheels, sized on the next page.</source>
        <translation>
            <numerusform>总下载量：至少 %1；另有 %n 个大小未知的文件，以及 TensorFlow wheel 包（大小在下一页显示）。</numerusform>
        </translation>
    </message>
    <message>
        <source>Total download: %1, plus the TensorFlow wheels, sized on the next page.</source>
        <translation>总下载量：%1，另加 TensorFlow wheel 包（大小在下一页显示）。</translation>
    </message>
    <message>
        <source>Total download: the TensorFlow wheels, sized on the next page.</source>
        <translation>总下载量：TensorFlow wheel 包（大小在下一页显示）。</translation>
    </message>
    <message numerus="yes">
        <source>Total download: at least %1; %n more file(s) of unknown size.</source>
        <translation>
            <numerusform>总下载量：至少 %1；另有 %n 个大小未知的文件。</numerusform>
        </translation>
    </message>
    <message>
        <source>Total download: looking up the size of each file…</source>
        <translation>总下载量：正在查询每个文件的大小…</translation>
    </message>
    <message>
        <source>Total download: not known yet (%1). tfsetup looks up each file and its size on the next page, before anything is downloaded.</source>
        <translation>总下载量：暂未知（%1）。tfsetup 会在下一页查询每个文件及其大小，然后才开始下载。</translation>
    </message>
    <message>
        <source>Total download: not known yet. tfsetup looks up each file and its size on the next page, before anything is downloaded.</source>
        <translation>总下载量：暂未知。tfsetup 会在下一页查询每个文件及其大小，然后才开始下载。</translation>
    </message>
    <message>
        <source>What will be downloaded:</source>
        <translation>将要下载的内容：</translation>
    </message>
    <message>
        <source>TensorFlow %1 with CUDA %2 and cuDNN %3, as pip packages (%4)</source>
        <translation>TensorFlow %1，使用 CUDA %2 和 cuDNN %3，以 pip 包形式提供（%4）</translation>
    </message>
    <message>
        <source>TensorFlow %1, as a pip package (%2)</source>
        <translation>TensorFlow %1，以 pip 包形式安装（%2）</translation>
    </message>
    <message>
        <source>%1, as a pip package</source>
        <translation>%1，以 pip 包形式安装</translation>
    </message>
    <message>
        <source>CUDA %1 libraries from NVIDIA</source>
        <translation>来自 NVIDIA 的 CUDA %1 库</translation>
    </message>
    <message>
        <source>CUDA %1 libraries from NVIDIA, standing in for CUDA %2 (NVIDIA publishes no portable archives of %2; the library names are the same)</source>
        <translation>来自 NVIDIA 的 CUDA %1 库，用来代替 CUDA %2（NVIDIA 没有发布 %2 的便携归档文件；两者的库名称相同）</translation>
    </message>
    <message>
        <source>CUDA %1 libraries from NVIDIA, standing in for CUDA %2: NVIDIA is not known to publish portable archives of %2 (if it does, those come instead)</source>
        <translation>来自 NVIDIA 的 CUDA %1 库，用来代替 CUDA %2：目前不知道 NVIDIA 是否发布了 %2 的便携归档文件（如果有，则改用它们）</translation>
    </message>
    <message>
        <source>cuDNN %1 libraries from NVIDIA</source>
        <translation>来自 NVIDIA 的 cuDNN %1 库</translation>
    </message>
    <message>
        <source>Python %1</source>
        <translation>Python %1</translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::FinishPage</name>
    <message>
        <source>This environment has no such launcher. Run tfsetup again to repair it.</source>
        <translation>此环境没有这个启动脚本。请再次运行 tfsetup 进行修复。</translation>
    </message>
    <message>
        <source>No terminal program was found. Open a terminal yourself and run:
%1</source>
        <translation>没有找到终端程序。请自己打开一个终端并运行：
%1</translation>
    </message>
    <message>
        <source>%1 could not be started. Open a terminal yourself and run:
%2</source>
        <translation>无法启动 %1。请自己打开一个终端并运行：
%2</translation>
    </message>
    <message>
        <source>The environment summary is on the clipboard. Paste it into a help request or a lab report.</source>
        <translation>环境摘要已复制到剪贴板。可以把它粘贴到求助信息或实验报告中。</translation>
    </message>
    <message>
        <source>No environment was made.</source>
        <translation>没有创建任何环境。</translation>
    </message>
    <message>
        <source>Done: TensorFlow works in your new environment.</source>
        <translation>完成：TensorFlow 已在你的新环境中正常工作。</translation>
    </message>
    <message>
        <source>Folder: %1</source>
        <translation>文件夹：%1</translation>
    </message>
    <message>
        <source>Launchers:</source>
        <translation>启动脚本：</translation>
    </message>
    <message>
        <source>To use it, start Python with %1, open a terminal with the environment below, or pick &quot;%2&quot; as the kernel in Jupyter.</source>
        <translation>要使用它，请用 %1 启动 Python，或通过下方的环境打开一个终端，或在 Jupyter 中选择“%2”作为内核。</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>准备就绪</translation>
    </message>
    <message>
        <source>How to start working with TensorFlow.</source>
        <translation>如何开始使用 TensorFlow。</translation>
    </message>
    <message>
        <source>Open a &amp;terminal</source>
        <translation>打开终端(&amp;T)</translation>
    </message>
    <message>
        <source>A terminal window where python and pip are the environment&apos;s own.</source>
        <translation>打开一个终端窗口，其中的 python 和 pip 都是该环境自带的。</translation>
    </message>
    <message>
        <source>Start &amp;Jupyter</source>
        <translation>启动 Jupyter(&amp;J)</translation>
    </message>
    <message>
        <source>&amp;Copy summary</source>
        <translation>复制摘要(&amp;C)</translation>
    </message>
    <message>
        <source>Copies ENVIRONMENT.md: versions, folders and launchers, for help requests.</source>
        <translation>复制 ENVIRONMENT.md：包括版本、文件夹和启动脚本，便于求助。</translation>
    </message>
    <message>
        <source>Starts JupyterLab (or the Jupyter Notebook the environment has) in a terminal window; close that window to stop it.</source>
        <translation>在终端窗口中启动 JupyterLab（或该环境中已有的 Jupyter Notebook）；关闭该窗口即可停止它。</translation>
    </message>
    <message>
        <source>Jupyter was not chosen on the Options page. The environment&apos;s kernel still works in a Jupyter started elsewhere.</source>
        <translation>没有在“选项”页中选择 Jupyter。该环境的内核仍可以在别处启动的 Jupyter 中使用。</translation>
    </message>
    <message>
        <source>The environment is installed, but the check failed: %1 Repair now finds the cause and puts back what it can.</source>
        <translation>环境已安装，但检查未通过：%1“立即修复”会查找原因，并尽可能恢复。</translation>
    </message>
    <message>
        <source>The environment is installed, but the check failed. Repair now finds the cause and puts back what it can.</source>
        <translation>环境已安装，但检查未通过。“立即修复”会查找原因，并尽可能恢复。</translation>
    </message>
    <message>
        <source>The environment is installed. It was not checked.</source>
        <translation>环境已安装，但尚未检查。</translation>
    </message>
    <message>
        <source>Nothing was installed</source>
        <translation>未安装任何内容</translation>
    </message>
    <message>
        <source>Go back to choose what to install, or close the wizard.</source>
        <translation>返回上一步选择要安装的内容，或关闭向导。</translation>
    </message>
    <message>
        <source>TensorFlow works. How to start working with it:</source>
        <translation>TensorFlow 可以正常使用。开始使用的方法：</translation>
    </message>
    <message>
        <source>Installed, but the check failed</source>
        <translation>已安装，但检查未通过</translation>
    </message>
    <message>
        <source>TensorFlow does not work in the new environment yet. Repair it now, or start it anyway to see for yourself.</source>
        <translation>TensorFlow 在新环境中还不能正常工作。请立即修复，或者仍然启动它，自己看看情况。</translation>
    </message>
    <message>
        <source>Installed</source>
        <translation>已安装</translation>
    </message>
    <message>
        <source>The environment&apos;s folder and launchers</source>
        <translation>环境的文件夹和启动器</translation>
    </message>
    <message>
        <source>&amp;Repair now</source>
        <translation>立即修复(&amp;R)</translation>
    </message>
    <message>
        <source>Opens the Repair page on this environment: it finds the cause and puts back what it can.</source>
        <translation>为此环境打开“修复”页面：它会查找原因，并尽可能恢复。</translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::GpuChooser</name>
    <message>
        <source>TensorFlow %1 cannot use this GPU: %2</source>
        <translation>TensorFlow %1 无法使用这块 GPU：%2</translation>
    </message>
    <message>
        <source>Slow first start: TensorFlow %1 has no ready-made code for this GPU, so the NVIDIA driver compiles it each time a program starts, which can take several minutes.</source>
        <translation>首次启动较慢：TensorFlow %1 没有为这块 GPU 预先编译的代码，因此每次程序启动时 NVIDIA 驱动程序都要编译它，可能需要几分钟。</translation>
    </message>
    <message>
        <source>GPUs this environment uses (TensorFlow numbers the ticked ones from 0, in this order):</source>
        <translation>此环境使用的 GPU（TensorFlow 按此顺序从 0 开始为勾选的 GPU 编号）：</translation>
    </message>
    <message>
        <source>Tick at least one GPU, or use the processor only (Advanced).</source>
        <translation>请至少勾选一块 GPU，或只使用处理器（高级）。</translation>
    </message>
    <message>
        <source>GPUs this environment uses</source>
        <translation>此环境使用的 GPU</translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::InstallPage</name>
    <message>
        <source>Check the downloaded files</source>
        <translation>校验下载的文件</translation>
    </message>
    <message>
        <source>Unpack the archives</source>
        <translation>解压压缩包</translation>
    </message>
    <message>
        <source>Put each library where TensorFlow looks for it</source>
        <translation>把每个库放到 TensorFlow 查找它的位置</translation>
    </message>
    <message>
        <source>Create the Python environment</source>
        <translation>创建 Python 环境</translation>
    </message>
    <message>
        <source>Install TensorFlow with pip</source>
        <translation>用 pip 安装 TensorFlow</translation>
    </message>
    <message>
        <source>Write the launchers</source>
        <translation>写入启动脚本</translation>
    </message>
    <message>
        <source>Record what was installed</source>
        <translation>记录安装内容</translation>
    </message>
    <message>
        <source>Check the new environment</source>
        <translation>检查新环境</translation>
    </message>
    <message>
        <source>Move the environment into place</source>
        <translation>把环境移动到最终位置</translation>
    </message>
    <message>
        <source>Register the Jupyter kernel</source>
        <translation>注册 Jupyter 内核</translation>
    </message>
    <message>
        <source>Choose a plan and its options first: go back to those steps.</source>
        <translation>请先选择方案及其选项：返回前面的步骤。</translation>
    </message>
    <message>
        <source>Creating %1 with TensorFlow %2.</source>
        <translation>正在创建 %1，使用 TensorFlow %2。</translation>
    </message>
    <message>
        <source>Stopping… the install undoes what it did so far.</source>
        <translation>正在停止……安装程序会撤销到目前为止所做的操作。</translation>
    </message>
    <message>
        <source>This environment was already complete; nothing needed to change.</source>
        <translation>此环境已经是完整的，无需任何更改。</translation>
    </message>
    <message>
        <source>The environment is ready. Next checks that TensorFlow works in it.</source>
        <translation>环境已就绪。下一步将检查 TensorFlow 能否在其中正常工作。</translation>
    </message>
    <message>
        <source>The install was stopped. Nothing was left behind; an environment that was there before is unchanged. Try again starts over.</source>
        <translation>安装已停止。没有留下任何文件；之前已有的环境保持不变。点击“重试”会从头开始。</translation>
    </message>
    <message>
        <source>Installing</source>
        <translation>正在安装</translation>
    </message>
    <message>
        <source>tfsetup builds the environment in a separate folder and moves it into place only when everything worked.</source>
        <translation>tfsetup 会在一个单独的文件夹中构建环境，只有在一切顺利完成后才会把它移到目标位置。</translation>
    </message>
    <message>
        <source>Install steps</source>
        <translation>安装步骤</translation>
    </message>
    <message>
        <source>Install log</source>
        <translation>安装日志</translation>
    </message>
    <message>
        <source>&amp;Stop install</source>
        <translation>停止安装(&amp;S)</translation>
    </message>
    <message>
        <source>Stops the install and removes what it made so far.</source>
        <translation>停止安装，并删除目前已创建的内容。</translation>
    </message>
    <message>
        <source>&amp;Try again</source>
        <translation>重试(&amp;T)</translation>
    </message>
    <message>
        <source>Install progress</source>
        <translation>安装进度</translation>
    </message>
    <message>
        <source>Now: %1…</source>
        <translation>正在进行：%1…</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation>%1%</translation>
    </message>
    <message>
        <source>%1 done</source>
        <translation>已完成 %1</translation>
    </message>
    <message>
        <source>%1 done, %2</source>
        <translation>已完成 %1，%2</translation>
    </message>
    <message>
        <source>%1 (%2 done)</source>
        <translation>%1（已完成 %2）</translation>
    </message>
    <message>
        <source>Windows</source>
        <translation>Windows</translation>
    </message>
    <message>
        <source>Linux</source>
        <translation>Linux</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <comment>operating system, processor</comment>
        <translation>%1 %2</translation>
    </message>
    <message>
        <source>What failed</source>
        <translation>失败项</translation>
    </message>
    <message>
        <source>The log file: %1</source>
        <translation>日志文件：%1</translation>
    </message>
    <message>
        <source>Installing. This takes a few minutes; Details shows pip&apos;s output as it comes.</source>
        <translation>正在安装。这需要几分钟；“详细信息”会实时显示 pip 的输出。</translation>
    </message>
    <message>
        <source>&amp;Details</source>
        <translation>详细信息(&amp;D)</translation>
    </message>
    <message>
        <source>Shows what the install and pip printed.</source>
        <translation>显示安装程序和 pip 的输出内容。</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Install</source>
        <translation>安装</translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::LabProfilePage</name>
    <message>
        <source>Lab profiles (*.json)</source>
        <translation>实验室配置文件 (*.json)</translation>
    </message>
    <message>
        <source>Save the lab profile</source>
        <translation>保存实验室配置文件</translation>
    </message>
    <message>
        <source>Open a lab profile</source>
        <translation>打开实验室配置文件</translation>
    </message>
    <message>
        <source>Folder for the offline bundle</source>
        <translation>离线包所在文件夹</translation>
    </message>
    <message>
        <source>Lab profile</source>
        <translation>实验室配置文件</translation>
    </message>
    <message>
        <source>Install exactly what your lab prepared, the same on every machine.</source>
        <translation>完全按照实验室准备的内容安装，每台计算机都一样。</translation>
    </message>
    <message>
        <source>Open the profile your lab gave you: a file, or its address on the lab&apos;s server (http:// or https://).</source>
        <translation>打开实验室给你的配置文件：可以是一个文件，也可以是它在实验室服务器上的地址（http:// 或 https://）。</translation>
    </message>
    <message>
        <source>lab.json or https://lab.example.edu/tfsetup/lab.json</source>
        <translation>lab.json 或 https://lab.example.edu/tfsetup/lab.json</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>&amp;Open</source>
        <translation>打开(&amp;O)</translation>
    </message>
    <message>
        <source>Install now without further questions</source>
        <translation>立即安装，不再询问</translation>
    </message>
    <message>
        <source>For the lab&apos;s administrator: save the choices made in this wizard as a profile, or write an offline bundle of the files for machines without internet.</source>
        <translation>供实验室管理员使用：将在此向导中所做的选择保存为配置文件，或为没有网络的计算机生成包含所需文件的离线包。</translation>
    </message>
    <message>
        <source>Prepare a profile…</source>
        <translation>准备配置文件…</translation>
    </message>
    <message>
        <source>Prepare an offline bundle…</source>
        <translation>准备离线包…</translation>
    </message>
    <message>
        <source>Choose a plan in a new setup first.</source>
        <translation>请先在新的安装流程中选择方案。</translation>
    </message>
    <message>
        <source>Choose a plan and its options in a new setup first.</source>
        <translation>请先在新的安装流程中选择方案及其选项。</translation>
    </message>
    <message>
        <source>Downloading the profile…</source>
        <translation>正在下载配置文件……</translation>
    </message>
    <message>
        <source>The profile could not be downloaded from %1. Check the address with your lab, or open the file instead.</source>
        <translation>无法从 %1 下载配置文件。请向实验室核实地址，或改为直接打开文件。</translation>
    </message>
    <message>
        <source>%1 is not a lab profile (it is not JSON). Check the address with your lab.</source>
        <translation>%1 不是实验室配置文件（它不是 JSON 格式）。请向实验室核实地址。</translation>
    </message>
    <message>
        <source>Check what the profile will do, then press Next.</source>
        <translation>请查看该配置文件将执行的操作，然后点击“下一步”。</translation>
    </message>
    <message>
        <source>TensorFlow&apos;s own CUDA packages or the processor</source>
        <translation>TensorFlow 自带的 CUDA 包或处理器</translation>
    </message>
    <message>
        <source>CUDA %1, cuDNN %2</source>
        <translation>CUDA %1，cuDNN %2</translation>
    </message>
    <message>
        <source>Profile</source>
        <translation>配置文件</translation>
    </message>
    <message>
        <source>Plan</source>
        <translation>方案</translation>
    </message>
    <message>
        <source>TensorFlow %1 (%2), Python %3, %4</source>
        <translation>TensorFlow %1（%2），Python %3，%4</translation>
    </message>
    <message>
        <source>any</source>
        <translation>任意</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>Mirrors</source>
        <translation>镜像</translation>
    </message>
    <message>
        <source>PyPI</source>
        <translation>PyPI</translation>
    </message>
    <message>
        <source>Proxy</source>
        <translation>代理</translation>
    </message>
    <message>
        <source>Jupyter kernel</source>
        <translation>Jupyter 内核</translation>
    </message>
    <message>
        <source>not registered</source>
        <translation>未注册</translation>
    </message>
    <message>
        <source>Packages</source>
        <translation>软件包</translation>
    </message>
    <message>
        <source>pinned by the lab&apos;s hash lock %1</source>
        <translation>已由实验室的哈希锁定文件 %1 固定</translation>
    </message>
    <message>
        <source>The environment was already installed as the profile says.</source>
        <translation>该环境已按配置文件的要求安装好了。</translation>
    </message>
    <message>
        <source>Installed. Next verifies the environment.</source>
        <translation>已安装。下一步将验证环境。</translation>
    </message>
    <message>
        <source>TensorFlow %1 for the lab</source>
        <translation>实验室用 TensorFlow %1</translation>
    </message>
    <message>
        <source>Cannot write %1. Choose a folder that is yours.</source>
        <translation>无法写入 %1。请选择一个属于你自己的文件夹。</translation>
    </message>
    <message>
        <source>Saved the profile as %1. Students open it here, or a script runs &quot;tfsetup install --profile&quot; with it.</source>
        <translation>配置文件已保存为 %1。学生可以在这里打开它，也可以由脚本用它运行 &quot;tfsetup install --profile&quot;。</translation>
    </message>
    <message>
        <source>Writing the offline bundle…</source>
        <translation>正在生成离线包……</translation>
    </message>
    <message>
        <source>The offline bundle is in %1. Install from it with the Options page&apos;s offline bundle field, or &quot;tfsetup install --offline --from&quot;.</source>
        <translation>离线包位于 %1。可以在“选项”页的离线包一栏中指定它进行安装，或者使用 &quot;tfsetup install --offline --from&quot;。</translation>
    </message>
    <message>
        <source>Profile file or address</source>
        <translation>配置文件路径或地址</translation>
    </message>
    <message>
        <source>Downloading: %1 of %2</source>
        <translation>正在下载：%1 / %2</translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::OptionsPage</name>
    <message>
        <source>Folder for environments</source>
        <translation>环境所在文件夹</translation>
    </message>
    <message>
        <source>Offline bundle folder</source>
        <translation>离线包文件夹</translation>
    </message>
    <message>
        <source>Looking up the official files for this plan…</source>
        <translation>正在查找此方案的官方文件……</translation>
    </message>
    <message>
        <source>The folder where tfsetup creates your environment: a private copy of Python with TensorFlow and the NVIDIA libraries it needs. Nothing outside this folder is changed, and deleting the folder removes everything again.</source>
        <translation>tfsetup 创建环境的文件夹：环境是一份私有的 Python 副本，其中包含 TensorFlow 及其所需的 NVIDIA 库。不会更改此文件夹以外的任何内容，删除该文件夹即可全部移除。</translation>
    </message>
    <message>
        <source>The name of the environment&apos;s folder. Jupyter lists it under this name, so you can keep several environments side by side, for example one per course.</source>
        <translation>环境文件夹的名称。Jupyter 会以这个名称列出它，所以你可以同时保留多个环境，例如每门课程一个。</translation>
    </message>
    <message>
        <source>PyPI is where pip downloads Python packages such as TensorFlow. A mirror is a copy of it on a nearer server: in mainland China, Tsinghua (tuna), Alibaba Cloud (aliyun) or USTC are usually much faster. You can also type the address of your lab&apos;s own index.</source>
        <translation>PyPI 是 pip 下载 TensorFlow 等 Python 包的地方。镜像是它在距离更近的服务器上的副本：在中国大陆，清华（tuna）、阿里云（aliyun）或中科大（USTC）的镜像通常要快得多。你也可以输入你们实验室自己的索引地址。</translation>
    </message>
    <message>
        <source>A copy of NVIDIA&apos;s download server, for example one your lab runs, or a folder with the same layout. Leave it empty to download from NVIDIA. Wherever a file comes from, it must match NVIDIA&apos;s published checksum.</source>
        <translation>NVIDIA 下载服务器的副本，例如你所在实验室运行的镜像，或具有相同目录结构的文件夹。留空则从 NVIDIA 下载。无论文件来自哪里，都必须与 NVIDIA 公布的校验和一致。</translation>
    </message>
    <message>
        <source>Some campus and company networks reach the internet only through a proxy server. If your browser is set up with one, enter the same address here, like http://proxy.example.edu:3128. Otherwise leave it empty.</source>
        <translation>有些校园网和公司网络只能通过代理服务器访问互联网。如果你的浏览器设置了代理，请在这里填写相同的地址，例如 http://proxy.example.edu:3128。否则请留空。</translation>
    </message>
    <message>
        <source>Where downloaded files are kept. They are checked again before use, and a second install does not download them again.</source>
        <translation>下载的文件保存在哪里。使用前会再次校验，第二次安装时不会重复下载。</translation>
    </message>
    <message>
        <source>An offline bundle is a folder made with &quot;tfsetup bundle&quot; on a computer with internet. It holds every file one plan needs, so you can install without internet. Leave it empty to download.</source>
        <translation>离线包是在有网络的计算机上用“tfsetup bundle”生成的文件夹。它包含某个方案所需的全部文件，因此无需网络即可安装。留空则从网上下载。</translation>
    </message>
    <message>
        <source>Options</source>
        <translation>选项</translation>
    </message>
    <message>
        <source>Where the environment goes and where files come from. The suggestions work for most students.</source>
        <translation>环境安装在哪里，以及文件从哪里获取。建议的设置适用于大多数同学。</translation>
    </message>
    <message>
        <source>&amp;PyPI mirror:</source>
        <translation>PyPI 镜像(&amp;P)：</translation>
    </message>
    <message>
        <source>N&amp;VIDIA mirror:</source>
        <translation>NVIDIA 镜像(&amp;V)：</translation>
    </message>
    <message>
        <source>Pro&amp;xy:</source>
        <translation>代理(&amp;X)：</translation>
    </message>
    <message>
        <source>&amp;Downloads:</source>
        <translation>下载位置(&amp;D)：</translation>
    </message>
    <message>
        <source>What is this?</source>
        <translation>这是什么？</translation>
    </message>
    <message>
        <source>Bro&amp;wse…</source>
        <translation>浏览(&amp;W)…</translation>
    </message>
    <message>
        <source>Brow&amp;se…</source>
        <translation>浏览(&amp;S)…</translation>
    </message>
    <message>
        <source>The environment is created in a folder inside this one.</source>
        <translation>环境会创建在此文件夹下的一个子文件夹中。</translation>
    </message>
    <message>
        <source>Letters, digits, dots and dashes; no slashes.</source>
        <translation>字母、数字、点和短横线；不能包含斜杠。</translation>
    </message>
    <message>
        <source>empty: download from NVIDIA</source>
        <translation>留空：从 NVIDIA 下载</translation>
    </message>
    <message>
        <source>empty: no proxy, or the system&apos;s</source>
        <translation>留空：不使用代理，或使用系统代理</translation>
    </message>
    <message>
        <source>empty: download over the internet</source>
        <translation>留空：通过互联网下载</translation>
    </message>
    <message>
        <source>PyPI (pypi.org, official)</source>
        <translation>PyPI（pypi.org，官方）</translation>
    </message>
    <message>
        <source>%1 (%2, China)</source>
        <translation>%1（%2，中国）</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>N&amp;ame:</source>
        <translation>名称(&amp;A)：</translation>
    </message>
    <message>
        <source>Offline b&amp;undle:</source>
        <translation>离线包(&amp;U)：</translation>
    </message>
    <message>
        <source>To download them anyway, tick the box below.</source>
        <translation>如仍要下载它们，请勾选下面的选项。</translation>
    </message>
    <message>
        <source>Download the files without a published checksum anyway, and record their SHA-256 (&amp;trust on first use)</source>
        <translation>仍然下载没有公布校验和的文件，并记录它们的 SHA-256（首次使用时信任）(&amp;T)</translation>
    </message>
    <message>
        <source>Trust files without a published checksum on first use</source>
        <translation>首次使用时信任没有公布校验和的文件</translation>
    </message>
    <message>
        <source>Nothing can prove these files are the originals: a hostile network or mirror could swap them. Their SHA-256 is recorded, so any later change is caught.</source>
        <translation>没有任何办法证明这些文件是原版：恶意的网络或镜像可能会替换它们。它们的 SHA-256 会被记录下来，之后的任何改动都会被发现。</translation>
    </message>
    <message>
        <source>Install &amp;Jupyter: JupyterLab, to work in notebooks</source>
        <translation>安装 &amp;Jupyter：JupyterLab，用于在笔记本中工作</translation>
    </message>
    <message>
        <source>Install JupyterLab</source>
        <translation>安装 JupyterLab</translation>
    </message>
    <message>
        <source>Every environment gets a Jupyter kernel. This adds JupyterLab, which start-jupyter and the Finish page open.</source>
        <translation>每个环境都会有一个 Jupyter 内核。此选项还会安装 JupyterLab，“start-jupyter”和“完成”页会打开它。</translation>
    </message>
    <message>
        <source>PyPI</source>
        <translation>PyPI</translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <source>Use an offline bund&amp;le…</source>
        <translation>使用离线包(&amp;L)…</translation>
    </message>
    <message>
        <source>Testing the connection to PyPI, NVIDIA and python.org…</source>
        <translation>正在测试到 PyPI、NVIDIA 和 python.org 的连接…</translation>
    </message>
    <message>
        <source>The same for %1.</source>
        <translation>%1 同上。</translation>
    </message>
    <message>
        <source>Everything this setup downloads from answered.</source>
        <translation>这次安装要用到的所有下载来源都已响应。</translation>
    </message>
    <message>
        <source>Use the fastest &amp;mirror: %1</source>
        <translation>使用最快的镜像(&amp;M)：%1</translation>
    </message>
    <message>
        <source>PyPI itself answered fastest from here (%1), so it stays chosen.</source>
        <translation>从这里看 PyPI 本身响应最快（%1），所以仍然选择它。</translation>
    </message>
    <message>
        <source>PyPI did not answer well from here, so %1 was chosen: the fastest PyPI mirror measured (%2). You can choose another above.</source>
        <translation>从这里访问 PyPI 效果不好，所以选择了 %1：测得最快的 PyPI 镜像（%2）。你可以在上面选择其他镜像。</translation>
    </message>
    <message>
        <source>%1 was chosen: the fastest PyPI mirror measured from here (%2). You can choose another above.</source>
        <translation>选择了 %1：从这里测得最快的 PyPI 镜像（%2）。你可以在上面选择其他镜像。</translation>
    </message>
    <message>
        <source>The connection test could not reach %1, and this setup downloads from there: the downloads would fail the same way. Fix it with the button, or test again. To go on anyway, press Next once more.</source>
        <translation>连接测试无法访问 %1，而本次安装需要从那里下载：下载也会以同样的方式失败。请用按钮解决，或再次测试。如果仍要继续，请再按一次“下一步”。</translation>
    </message>
    <message>
        <source>Set a p&amp;roxy…</source>
        <translation>设置代理(&amp;R)…</translation>
    </message>
    <message>
        <source>Find out wh&amp;y</source>
        <translation>查明原因(&amp;Y)</translation>
    </message>
    <message>
        <source>Open the &amp;log</source>
        <translation>打开日志(&amp;L)</translation>
    </message>
    <message>
        <source>Choose a &amp;mirror…</source>
        <translation>选择镜像(&amp;M)…</translation>
    </message>
    <message>
        <source>F&amp;older:</source>
        <translation>文件夹(&amp;O)：</translation>
    </message>
    <message>
        <source>No PyPI mirror answered from here (%1). Test the connection to see why, or set a proxy.</source>
        <translation>从这里无法连接到任何 PyPI 镜像（%1）。请测试连接以查明原因，或设置代理。</translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::PageStatus</name>
    <message>
        <source>D&amp;etails</source>
        <translation>详细信息(&amp;E)</translation>
    </message>
    <message>
        <source>What the program reported, word for word, for whoever helps you.</source>
        <translation>程序报告的原始内容，供帮助你的人查看。</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>详细信息</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::RepairPage</name>
    <message>
        <source>Choose the environment&apos;s folder</source>
        <translation>选择环境所在的文件夹</translation>
    </message>
    <message>
        <source>Repair an environment</source>
        <translation>修复环境</translation>
    </message>
    <message>
        <source>tfsetup checks every file it installed and puts back what is missing, damaged or moved.</source>
        <translation>tfsetup 会检查它安装的每个文件，并恢复缺失、损坏或被移动的文件。</translation>
    </message>
    <message>
        <source>Add a folder…</source>
        <translation>添加文件夹…</translation>
    </message>
    <message>
        <source>My TensorFlow is broken: here is the error it printed</source>
        <translation>我的 TensorFlow 出问题了：这是它输出的错误信息</translation>
    </message>
    <message>
        <source>Paste the error or the whole output of the failing program here.</source>
        <translation>请在此处粘贴错误信息，或出错程序的完整输出。</translation>
    </message>
    <message>
        <source>&amp;Check</source>
        <translation>检查(&amp;C)</translation>
    </message>
    <message>
        <source>%1 — TensorFlow %2</source>
        <translation>%1 — TensorFlow %2</translation>
    </message>
    <message>
        <source>Checking every file of the environment…</source>
        <translation>正在检查环境中的每个文件……</translation>
    </message>
    <message>
        <source>Repairing…</source>
        <translation>正在修复……</translation>
    </message>
    <message>
        <source>missing</source>
        <translation>缺失</translation>
    </message>
    <message>
        <source>changed since the install</source>
        <translation>安装后已被改动</translation>
    </message>
    <message>
        <source>moved to %1</source>
        <translation>已被移到 %1</translation>
    </message>
    <message>
        <source>move it back</source>
        <translation>移回原处</translation>
    </message>
    <message>
        <source>take it again from %1</source>
        <translation>从 %1 重新获取</translation>
    </message>
    <message>
        <source>write it again</source>
        <translation>重新写入</translation>
    </message>
    <message>
        <source>link it again</source>
        <translation>重新链接</translation>
    </message>
    <message>
        <source>Outside the environment</source>
        <translation>环境之外</translation>
    </message>
    <message>
        <source>Repaired. Next verifies that TensorFlow works again.</source>
        <translation>已修复。下一步将验证 TensorFlow 能否重新正常工作。</translation>
    </message>
    <message>
        <source>Every installed file is in place and unchanged. Next verifies the environment.</source>
        <translation>每个已安装的文件都在原位且未被改动。下一步将验证环境。</translation>
    </message>
    <message>
        <source>Save the diagnostic report</source>
        <translation>保存诊断报告</translation>
    </message>
    <message>
        <source>Text files (*.txt)</source>
        <translation>文本文件 (*.txt)</translation>
    </message>
    <message>
        <source>Save a &amp;report…</source>
        <translation>保存报告(&amp;R)…</translation>
    </message>
    <message>
        <source>Writes what tfsetup found into a text file you can paste into a chat or a forum post. Your user name and home folder are masked.</source>
        <translation>把 tfsetup 发现的情况写进一个文本文件，方便你粘贴到聊天或论坛帖子里。你的用户名和主文件夹会被隐去。</translation>
    </message>
    <message>
        <source>Writing the report…</source>
        <translation>正在写入报告……</translation>
    </message>
    <message>
        <source>The report could not be made: tfsetup&apos;s catalog did not load. Reinstall tfsetup.</source>
        <translation>无法生成报告：tfsetup 的知识库没有加载成功。请重新安装 tfsetup。</translation>
    </message>
    <message>
        <source>The report is in %1. Your user name and home folder are masked; read it before you share it.</source>
        <translation>报告已保存到 %1。其中你的用户名和主文件夹已被隐去；分享之前请先读一遍。</translation>
    </message>
    <message>
        <source>What the check found</source>
        <translation>检查发现的问题</translation>
    </message>
    <message>
        <source>Environments</source>
        <translation>环境</translation>
    </message>
    <message>
        <source>The error TensorFlow printed</source>
        <translation>TensorFlow 输出的错误</translation>
    </message>
    <message>
        <source>Choose the environment that stopped working, or add its folder (a conda or venv one is examined but not repaired). With none chosen, Check reads the error you paste.</source>
        <translation>请选择出问题的环境，或添加它所在的文件夹（conda 或 venv 文件夹只会被检查，不会被修复）。如果没有选择环境，“检查”会读取你粘贴的错误信息。</translation>
    </message>
    <message>
        <source>%1 — not made by tfsetup: examined, not repaired</source>
        <translation>%1 —— 不是 tfsetup 创建的：只检查，不修复</translation>
    </message>
    <message>
        <source>No environment made by tfsetup was found. Add the folder that holds yours, or paste the error TensorFlow printed and press Check.</source>
        <translation>没有找到由 tfsetup 创建的环境。请添加你的环境所在的文件夹，或者粘贴 TensorFlow 输出的错误信息并点击“检查”。</translation>
    </message>
    <message>
        <source>Reading the error you pasted…</source>
        <translation>正在读取你粘贴的错误信息…</translation>
    </message>
    <message>
        <source>Examining the environment…</source>
        <translation>正在检查该环境…</translation>
    </message>
    <message>
        <source>tfsetup did not make this environment, so it only examines it: it repairs only environments it installed itself, whose record of every file (environment.json) proves what belongs there.</source>
        <translation>这个环境不是 tfsetup 创建的，因此只做检查：tfsetup 只修复它自己安装的环境，这些环境中记录了每个文件的 environment.json 可以证明哪些文件属于那里。</translation>
    </message>
    <message>
        <source>Nothing wrong was found.</source>
        <translation>没有发现问题。</translation>
    </message>
    <message>
        <source>The findings below say what to do.</source>
        <translation>下面的诊断结果说明了该怎么做。</translation>
    </message>
    <message>
        <source>Nothing in the pasted error points to a known cause. Save a report and ask for help with it.</source>
        <translation>粘贴的错误信息中没有指向任何已知原因的内容。请保存一份报告并拿它去寻求帮助。</translation>
    </message>
    <message>
        <source>The findings below come from the error you pasted. Choose the environment as well to check its files.</source>
        <translation>下面的诊断结果来自你粘贴的错误信息。请同时选择环境，以检查其中的文件。</translation>
    </message>
    <message>
        <source>Every installed file is in place. The findings below say what else to do.</source>
        <translation>所有已安装的文件都在原位。下面的诊断结果说明了还需要做什么。</translation>
    </message>
    <message>
        <source>&amp;Where the error comes from:</source>
        <translation>错误来自(&amp;W)：</translation>
    </message>
    <message>
        <source>I am not sure (tfsetup tells from the error)</source>
        <translation>我不确定（由 tfsetup 根据错误判断）</translation>
    </message>
    <message>
        <source>This computer</source>
        <translation>这台电脑</translation>
    </message>
    <message>
        <source>Another computer (a classmate&apos;s, a lab machine)</source>
        <translation>另一台电脑（同学的、实验室的机器）</translation>
    </message>
    <message>
        <source>An error from another computer is read as that computer&apos;s: what this computer has or lacks (a GPU, CUDA) does not change what the error means.</source>
        <translation>来自另一台电脑的错误会按那台电脑来读：这台电脑有没有 GPU、CUDA 不会改变错误的含义。</translation>
    </message>
    <message>
        <source>reinstall it from the package index</source>
        <translation>从软件包索引重新安装它</translation>
    </message>
    <message>
        <source>reinstall it from %1</source>
        <translation>从 %1 重新安装它</translation>
    </message>
    <message>
        <source>%1 changed since pip installed it</source>
        <translation>%1 在 pip 安装后被修改过</translation>
    </message>
    <message>
        <source>%1 is missing</source>
        <translation>%1 丢失</translation>
    </message>
    <message>
        <source>the package&apos;s record names %1, outside the environment; it was not read</source>
        <translation>该包的记录指向环境之外的 %1；未读取它</translation>
    </message>
    <message>
        <source>Re&amp;pair</source>
        <translation>修复(&amp;P)</translation>
    </message>
    <message>
        <source>Details of the repair</source>
        <translation>修复的详细信息</translation>
    </message>
    <message>
        <source>Choose &amp;again…</source>
        <translation>重新选择(&amp;A)…</translation>
    </message>
    <message>
        <source>Choose another environment, or paste another error.</source>
        <translation>选择其他环境，或粘贴其他错误信息。</translation>
    </message>
    <message>
        <source>Checked: the error you pasted.</source>
        <translation>已检查：你粘贴的错误信息。</translation>
    </message>
    <message>
        <source>Checked: %1.</source>
        <translation>已检查：%1。</translation>
    </message>
    <message>
        <source>Checked: %1, with the error you pasted.</source>
        <translation>已检查：%1，以及你粘贴的错误信息。</translation>
    </message>
    <message>
        <source>Installed files damaged, missing or moved: %1</source>
        <translation>已损坏、缺失或被移动的已安装文件：%1</translation>
    </message>
    <message>
        <source>Repair puts each one back as it was installed.</source>
        <translation>“修复”会将每个文件恢复为安装时的状态。</translation>
    </message>
    <message>
        <source>Repair puts back what it can; %1 of them it cannot (the details say why).</source>
        <translation>“修复”会尽可能恢复这些文件；其中 %1 个无法恢复（详细信息中说明了原因）。</translation>
    </message>
    <message>
        <source>Installed files put back: %1</source>
        <translation>已恢复的已安装文件：%1</translation>
    </message>
    <message>
        <source>Repair these files</source>
        <translation>修复这些文件</translation>
    </message>
    <message>
        <source>Damaged Python packages: %1</source>
        <translation>已损坏的 Python 软件包：%1</translation>
    </message>
    <message>
        <source>%1. Repair reinstalls each one from a copy that matches what pip installed.</source>
        <translation>%1。“修复”会用与 pip 所安装版本一致的副本重新安装每个软件包。</translation>
    </message>
    <message>
        <source>Python packages reinstalled: %1</source>
        <translation>已重新安装的 Python 软件包：%1</translation>
    </message>
    <message>
        <source>Reinstall these packages</source>
        <translation>重新安装这些软件包</translation>
    </message>
    <message>
        <source>Repair does this: %1</source>
        <translation>“修复”将执行：%1</translation>
    </message>
    <message>
        <source>Repair this</source>
        <translation>修复此问题</translation>
    </message>
    <message>
        <source>What to do: %1</source>
        <translation>处理方法：%1</translation>
    </message>
    <message>
        <source>Files that could not be repaired: %1</source>
        <translation>无法修复的文件：%1</translation>
    </message>
    <message>
        <source>Install the environment again, or save a report and ask for help with it.</source>
        <translation>请重新安装环境，或保存一份报告并附上它寻求帮助。</translation>
    </message>
    <message>
        <source>Some files could not be repaired; the list below names them.</source>
        <translation>有些文件无法修复；下面的列表列出了这些文件。</translation>
    </message>
    <message>
        <source>Press Repair to put right what is listed. Only these files change.</source>
        <translation>按“修复”以修正所列问题。只有这些文件会被更改。</translation>
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
    <message>
        <source>&amp;Close tfsetup</source>
        <translation>关闭 tfsetup(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Keep working</source>
        <translation>继续工作(&amp;K)</translation>
    </message>
    <message>
        <source>The environment is still being built. If you close tfsetup now, the install stops and removes what it made so far; an environment that was there before stays as it was.</source>
        <translation>环境仍在构建中。如果现在关闭 tfsetup，安装会停止并删除到目前为止所创建的内容；原先已有的环境会保持原样。</translation>
    </message>
    <message>
        <source>Files are still downloading. If you close tfsetup now, what arrived is kept and the next start offers to continue.</source>
        <translation>文件仍在下载中。如果现在关闭 tfsetup，已下载的部分会保留，下次启动时会提示你继续。</translation>
    </message>
    <message>
        <source>Close tfsetup?</source>
        <translation>要关闭 tfsetup 吗？</translation>
    </message>
    <message>
        <source>Welcome</source>
        <comment>step</comment>
        <translation>欢迎</translation>
    </message>
    <message>
        <source>Detect</source>
        <comment>step</comment>
        <translation>检测</translation>
    </message>
    <message>
        <source>Choose</source>
        <comment>step</comment>
        <translation>选择</translation>
    </message>
    <message>
        <source>Options</source>
        <comment>step</comment>
        <translation>选项</translation>
    </message>
    <message>
        <source>Download</source>
        <comment>step</comment>
        <translation>下载</translation>
    </message>
    <message>
        <source>Install</source>
        <comment>step</comment>
        <translation>安装</translation>
    </message>
    <message>
        <source>Verify</source>
        <comment>step</comment>
        <translation>验证</translation>
    </message>
    <message>
        <source>Finish</source>
        <comment>step</comment>
        <translation>完成</translation>
    </message>
    <message>
        <source>Repair</source>
        <comment>step</comment>
        <translation>修复</translation>
    </message>
    <message>
        <source>Lab profile</source>
        <comment>step</comment>
        <translation>实验室配置</translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::StatusList</name>
    <message>
        <source>Details</source>
        <translation>详细信息</translation>
    </message>
    <message>
        <source>What the computer reported, word for word: for a help request.</source>
        <translation>电脑报告的原始内容：可用于求助。</translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::StepRail</name>
    <message>
        <source>Step %1 of %2: %3</source>
        <translation>第 %1 步，共 %2 步：%3</translation>
    </message>
    <message>
        <source>%1 (you are here)</source>
        <translation>%1（当前位置）</translation>
    </message>
    <message>
        <source>Setup steps</source>
        <translation>安装步骤</translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::UpgradeDialog</name>
    <message>
        <source>Stopping…</source>
        <translation>正在停止…</translation>
    </message>
    <message>
        <source>Upgrade %1</source>
        <translation>升级 %1</translation>
    </message>
    <message>
        <source>&amp;Upgrade</source>
        <translation>升级(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Cancel</source>
        <translation>取消(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Close</source>
        <translation>关闭(&amp;C)</translation>
    </message>
    <message>
        <source>Looking for a newer TensorFlow for %1…</source>
        <translation>正在为 %1 查找更新的 TensorFlow…</translation>
    </message>
    <message>
        <source>The environment is as it was before the upgrade.</source>
        <translation>环境保持升级前的样子。</translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::VerifyPage</name>
    <message>
        <source>There is no environment to check yet: go back to the install step.</source>
        <translation>还没有可供检查的环境：请返回安装步骤。</translation>
    </message>
    <message>
        <source>Checking the environment: loading the libraries, importing TensorFlow and computing with it. The first start on a new graphics card can take several minutes.</source>
        <translation>正在检查环境：加载库、导入 TensorFlow 并用它进行计算。在新显卡上首次启动可能需要几分钟。</translation>
    </message>
    <message>
        <source>TensorFlow works in the new environment.</source>
        <translation>TensorFlow 在新环境中工作正常。</translation>
    </message>
    <message>
        <source>Checking</source>
        <translation>正在检查</translation>
    </message>
    <message>
        <source>tfsetup starts the new environment the way you will and checks each layer, from the libraries to a computation on the graphics card.</source>
        <translation>tfsetup 会按照你今后使用的方式启动新环境，并逐层检查，从各个库一直到在显卡上进行计算。</translation>
    </message>
    <message>
        <source>Check results</source>
        <translation>检查结果</translation>
    </message>
    <message>
        <source>Check &amp;again</source>
        <translation>重新检查(&amp;A)</translation>
    </message>
    <message>
        <source>Checking the environment: importing TensorFlow and computing with it on the processor.</source>
        <translation>正在检查环境：导入 TensorFlow 并在处理器上用它进行计算。</translation>
    </message>
    <message>
        <source>tfsetup starts the environment the way you will and checks each layer, up to a real computation.</source>
        <translation>tfsetup 会按照你以后使用的方式启动该环境，并逐层检查，直到完成一次真正的计算。</translation>
    </message>
    <message>
        <source>tfsetup starts the new environment the way you will and checks that TensorFlow imports and computes on the processor, as this plan intends.</source>
        <translation>tfsetup 会按照你以后使用的方式启动新环境，并检查 TensorFlow 能否导入并在处理器上计算，这正是此方案的预期。</translation>
    </message>
    <message>
        <source>TensorFlow is not installed in this environment.</source>
        <translation>此环境中未安装 TensorFlow。</translation>
    </message>
    <message>
        <source>The check did not finish in time. The first start on a new graphics card can take many minutes: press Check again.</source>
        <translation>检查未能及时完成。在新显卡上首次启动可能需要很多分钟：请按“再次检查”。</translation>
    </message>
    <message>
        <source>This processor lacks an instruction set (AVX) that TensorFlow needs.</source>
        <translation>此处理器缺少 TensorFlow 所需的指令集（AVX）。</translation>
    </message>
    <message>
        <source>The NumPy in this environment does not fit this TensorFlow.</source>
        <translation>此环境中的 NumPy 与此 TensorFlow 版本不兼容。</translation>
    </message>
    <message>
        <source>Windows could not load a library TensorFlow needs; the Microsoft Visual C++ Redistributable (x64) is probably missing.</source>
        <translation>Windows 无法加载 TensorFlow 所需的某个库；可能缺少 Microsoft Visual C++ Redistributable (x64)。</translation>
    </message>
    <message>
        <source>cuDNN, which TensorFlow needs for the graphics card, is missing.</source>
        <translation>缺少 TensorFlow 使用显卡所需的 cuDNN。</translation>
    </message>
    <message>
        <source>A CUDA library TensorFlow needs for the graphics card is missing.</source>
        <translation>缺少 TensorFlow 使用显卡所需的某个 CUDA 库。</translation>
    </message>
    <message>
        <source>TensorFlow finds no graphics card: the NVIDIA driver is missing or not working.</source>
        <translation>TensorFlow 找不到显卡：NVIDIA 驱动程序缺失或无法正常工作。</translation>
    </message>
    <message>
        <source>A library TensorFlow needs for the graphics card does not load.</source>
        <translation>TensorFlow 使用显卡所需的某个库无法加载。</translation>
    </message>
    <message>
        <source>TensorFlow could not be imported.</source>
        <translation>无法导入 TensorFlow。</translation>
    </message>
    <message>
        <source>TensorFlow does not see the graphics card.</source>
        <translation>TensorFlow 检测不到显卡。</translation>
    </message>
    <message>
        <source>TensorFlow could not list its devices.</source>
        <translation>TensorFlow 无法列出其设备。</translation>
    </message>
    <message>
        <source>cuDNN does not work: a test convolution failed.</source>
        <translation>cuDNN 无法工作：测试卷积运算失败。</translation>
    </message>
    <message>
        <source>A test computation failed.</source>
        <translation>测试计算失败。</translation>
    </message>
    <message>
        <source>This check failed.</source>
        <translation>此项检查未通过。</translation>
    </message>
    <message>
        <source>Passed.</source>
        <translation>通过。</translation>
    </message>
    <message>
        <source>Not everything could be checked; the details say why.</source>
        <translation>并非所有项目都能检查；详细信息中说明了原因。</translation>
    </message>
    <message>
        <source>Not checked, because an earlier check failed.</source>
        <translation>未检查，因为之前的检查未通过。</translation>
    </message>
    <message>
        <source>TensorFlow works in the new environment. Read the rows marked with a warning.</source>
        <translation>TensorFlow 在新环境中可以正常工作。请阅读标有警告的行。</translation>
    </message>
    <message>
        <source>The environment does not work yet: %1 Press Next; the last page offers to repair it.</source>
        <translation>环境还不能正常工作：%1请按“下一步”；最后一页会提供修复选项。</translation>
    </message>
    <message>
        <source>The environment does not work yet. Press Next; the last page offers to repair it.</source>
        <translation>环境还不能正常工作。请按“下一步”；最后一页会提供修复选项。</translation>
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
    <message>
        <source>TensorFlow with GPU support, set up for you.</source>
        <translation>为你安装好支持 GPU 的 TensorFlow。</translation>
    </message>
    <message>
        <source>&amp;Continue the setup of %1 (downloaded %2 of %3)</source>
        <translation>继续安装 %1（已下载 %2 / %3）(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Continue the setup of %1</source>
        <translation>继续安装 %1(&amp;C)</translation>
    </message>
    <message>
        <source>tfsetup was closed before this setup finished. It continues where it stopped; files already downloaded are not downloaded again.</source>
        <translation>tfsetup 在这次安装完成前被关闭了。它会从停下的地方继续；已下载的文件不会重新下载。</translation>
    </message>
    <message>
        <source>Start &amp;over</source>
        <translation>重新开始(&amp;O)</translation>
    </message>
    <message>
        <source>Forget the unfinished setup and start a new one. Downloaded files are kept.</source>
        <translation>放弃未完成的安装，开始新的安装。已下载的文件会保留。</translation>
    </message>
    <message>
        <source>Start over</source>
        <translation>重新开始</translation>
    </message>
    <message>
        <source>Your &amp;environments</source>
        <translation>你的环境(&amp;E)</translation>
    </message>
    <message>
        <source>Environment</source>
        <translation>环境</translation>
    </message>
    <message>
        <source>TensorFlow</source>
        <translation>TensorFlow</translation>
    </message>
    <message>
        <source>Python / CUDA / cuDNN</source>
        <translation>Python / CUDA / cuDNN</translation>
    </message>
    <message>
        <source>Size on disk</source>
        <translation>磁盘占用</translation>
    </message>
    <message>
        <source>Last verify</source>
        <translation>最近一次验证</translation>
    </message>
    <message>
        <source>Your environments</source>
        <translation>你的环境</translation>
    </message>
    <message>
        <source>Open s&amp;hell</source>
        <translation>打开终端(&amp;H)</translation>
    </message>
    <message>
        <source>Open a terminal with this environment&apos;s Python and libraries first on the path.</source>
        <translation>打开一个终端，让此环境的 Python 和库在路径中排在最前。</translation>
    </message>
    <message>
        <source>Open &amp;Jupyter</source>
        <translation>打开 Jupyter(&amp;J)</translation>
    </message>
    <message>
        <source>Start Jupyter in this environment.</source>
        <translation>在此环境中启动 Jupyter。</translation>
    </message>
    <message>
        <source>&amp;Verify</source>
        <translation>验证(&amp;V)</translation>
    </message>
    <message>
        <source>Check again that TensorFlow in this environment loads its libraries and uses the GPU.</source>
        <translation>再次检查此环境中的 TensorFlow 能否加载它的库并使用 GPU。</translation>
    </message>
    <message>
        <source>Find what is wrong with this environment and restore what is missing or altered.</source>
        <translation>找出此环境的问题，并恢复丢失或被更改的内容。</translation>
    </message>
    <message>
        <source>&amp;Upgrade</source>
        <translation>升级(&amp;U)</translation>
    </message>
    <message>
        <source>Remove this environment, its launchers, Jupyter kernel and menu entry. Files of yours in its folder are kept.</source>
        <translation>删除此环境及其启动脚本、Jupyter 内核和菜单项。该文件夹中你自己的文件会保留。</translation>
    </message>
    <message>
        <source>Free &amp;disk space</source>
        <translation>释放磁盘空间(&amp;D)</translation>
    </message>
    <message>
        <source>Remove downloads no environment needs any more (unused for 90 days) and old logs.</source>
        <translation>删除没有任何环境再需要的下载文件（90 天未使用）和旧日志。</translation>
    </message>
    <message>
        <source>%1 (%2 fits)</source>
        <translation>%1（%2 可用）</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>passed, %1</source>
        <translation>通过，%1</translation>
    </message>
    <message>
        <source>failed, %1</source>
        <translation>失败，%1</translation>
    </message>
    <message>
        <source>not yet</source>
        <translation>尚未验证</translation>
    </message>
    <message>
        <source>Upgrading in place is not available yet. To move to a newer TensorFlow, set up a new environment, then remove this one.</source>
        <translation>暂不支持原地升级。要换用更新的 TensorFlow，请先创建一个新环境，再删除这个环境。</translation>
    </message>
    <message>
        <source>No newer TensorFlow fits this computer on this environment&apos;s route.</source>
        <translation>在此环境的路线上，没有适合本机的更新 TensorFlow。</translation>
    </message>
    <message>
        <source>Upgrade to TensorFlow %1.</source>
        <translation>升级到 TensorFlow %1。</translation>
    </message>
    <message>
        <source>This environment has no such launcher. Repair it to write its launchers again.</source>
        <translation>此环境没有这个启动脚本。请修复它以重新写入启动脚本。</translation>
    </message>
    <message>
        <source>No terminal program was found. Open a terminal yourself and run:
%1</source>
        <translation>没有找到终端程序。请自己打开一个终端并运行：
%1</translation>
    </message>
    <message>
        <source>%1 could not be started. Open a terminal yourself and run:
%2</source>
        <translation>无法启动 %1。请自己打开一个终端并运行：
%2</translation>
    </message>
    <message>
        <source>Remove %1?</source>
        <translation>删除 %1？</translation>
    </message>
    <message>
        <source>This removes the environment %1 with its launchers, its Jupyter kernel and its menu entry. Files of yours in that folder are kept. Other environments and downloaded files are not touched.</source>
        <translation>这会删除环境 %1 及其启动脚本、Jupyter 内核和菜单项。该文件夹中你自己的文件会保留。其他环境和已下载的文件不受影响。</translation>
    </message>
    <message>
        <source>Removing %1…</source>
        <translation>正在删除 %1…</translation>
    </message>
    <message>
        <source>Free disk space?</source>
        <translation>释放磁盘空间？</translation>
    </message>
    <message>
        <source>This removes downloaded files not used for 90 days that no environment needs, and old logs. They are downloaded again when a setup needs them.</source>
        <translation>这会删除 90 天内未使用且没有环境需要的下载文件以及旧日志。需要时它们会被重新下载。</translation>
    </message>
    <message>
        <source>Rep&amp;air</source>
        <translation>修复(&amp;A)</translation>
    </message>
    <message>
        <source>Re&amp;move</source>
        <translation>删除(&amp;M)</translation>
    </message>
    <message>
        <source>Upgrade the chosen environment to the newest TensorFlow that fits this computer.</source>
        <translation>将所选环境升级到适合本机的最新 TensorFlow。</translation>
    </message>
</context>
</TS>
