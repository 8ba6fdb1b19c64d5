<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_TW">
<context>
    <name>ArchiveReader</name>
    <message>
        <source>The archive %1 contains an entry that could write outside its folder, so nothing from it was installed. Download it again from the official site; if this keeps happening, the mirror serves a tampered file.</source>
        <translation>壓縮檔 %1 中有一個條目可能會寫到其所在資料夾之外，因此其中的任何內容都沒有安裝。請從官方網站重新下載；如果問題反覆出現，說明該鏡像站提供的是被篡改過的檔案。</translation>
    </message>
    <message>
        <source>Cannot open the archive %1. Download it again; it may be incomplete.</source>
        <translation>無法開啟壓縮檔 %1。請重新下載；它可能不完整。</translation>
    </message>
    <message>
        <source>The archive %1 is damaged. Download it again.</source>
        <translation>壓縮檔 %1 已損壞。請重新下載。</translation>
    </message>
    <message>
        <source>Unpacking was cancelled.</source>
        <translation>解壓縮已取消。</translation>
    </message>
    <message>
        <source>Cannot write %1. Check the free space and the permissions of the install folder.</source>
        <translation>無法寫入 %1。請檢查磁碟剩餘空間以及安裝資料夾的權限。</translation>
    </message>
    <message>
        <source>Cannot create the folder %1. Check the permissions of the install folder.</source>
        <translation>無法建立資料夾 %1。請檢查安裝資料夾的權限。</translation>
    </message>
    <message>
        <source>Cannot create the link %1. The install folder must be on a disk that supports links (not FAT or a network share).</source>
        <translation>無法建立連結 %1。安裝資料夾所在的磁碟必須支援連結（不能是 FAT 格式或網路共用）。</translation>
    </message>
    <message>
        <source>Cannot write %1. Check the free space on the disk.</source>
        <translation>無法寫入 %1。請檢查磁碟剩餘空間。</translation>
    </message>
    <message>
        <source>%1 in the archive %2 is larger than expected. The archive is not what it should be; download it again.</source>
        <translation>壓縮檔 %2 中的 %1 比預期的大。該壓縮檔不是應有的檔案；請重新下載。</translation>
    </message>
    <message>
        <source>The archive %1 does not contain the file tfsetup looks for. Download it again.</source>
        <translation>壓縮檔 %1 中沒有 tfsetup 要找的檔案。請重新下載。</translation>
    </message>
</context>
<context>
    <name>ArchiveWriter</name>
    <message>
        <source>Cannot create the archive %1.</source>
        <translation>無法建立壓縮檔 %1。</translation>
    </message>
    <message>
        <source>Cannot add %1 to the archive.</source>
        <translation>無法將 %1 新增到壓縮檔中。</translation>
    </message>
    <message>
        <source>Cannot finish the archive.</source>
        <translation>無法完成壓縮檔的寫入。</translation>
    </message>
</context>
<context>
    <name>ArtifactList</name>
    <message>
        <source>no checksum</source>
        <translation>無校驗和</translation>
    </message>
    <message>
        <source>(optional)</source>
        <translation>（可選）</translation>
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
        <translation>方案檔案中沒有推薦方案，因此沒有需要下載的內容。請換用其他選項重新執行 tfsetup plan。</translation>
    </message>
    <message>
        <source>The plan file does not name a route and a TensorFlow version. Give the output of tfsetup plan --json.</source>
        <translation>方案檔案中沒有指明路線和 TensorFlow 版本。請提供 tfsetup plan --json 的輸出。</translation>
    </message>
    <message>
        <source>No NVIDIA redistributable manifest is known for CUDA %1. Use the full installer route (--cuda-from installer) instead.</source>
        <translation>沒有已知的 CUDA %1 的 NVIDIA 可再發行元件清單。請改用完整安裝程式路線（--cuda-from installer）。</translation>
    </message>
    <message>
        <source>NVIDIA has no redistributable archives for CUDA %1. tfsetup uses the CUDA %2 archives instead: they provide the same library names, but this combination is outside TensorFlow&apos;s tested configuration. For the tested toolkit, choose the full CUDA %1 installer (needs administrator rights).</source>
        <translation>NVIDIA 沒有為 CUDA %1 提供可轉散發的壓縮檔。tfsetup 改用 CUDA %2 的壓縮檔：它們提供相同的函式庫檔名，但這種組合不在 TensorFlow 的官方測試組態之內。如需經過測試的工具包，請選擇完整的 CUDA %1 安裝程式（需要管理員權限）。</translation>
    </message>
    <message>
        <source>tfsetup has no pinned checksum for NVIDIA&apos;s %1; it was taken from NVIDIA over a verified connection.</source>
        <translation>tfsetup 沒有 NVIDIA 的 %1 的固定校驗和；它是透過經過驗證的連線從 NVIDIA 取得的。</translation>
    </message>
    <message>
        <source>The sources catalog does not say which CUDA %1 components TensorFlow needs. Update tfsetup.</source>
        <translation>下載來源表中沒有說明 TensorFlow 需要哪些 CUDA %1 元件。請更新 tfsetup。</translation>
    </message>
    <message>
        <source>NVIDIA&apos;s %1 has no %2 for %3.</source>
        <translation>NVIDIA 的 %1 中沒有適用於 %3 的 %2。</translation>
    </message>
    <message>
        <source>tfsetup knows no full installer for CUDA %1. Use the portable route instead.</source>
        <translation>tfsetup 不知道 CUDA %1 的完整安裝程式。請改用可攜式路線。</translation>
    </message>
    <message>
        <source>NVIDIA&apos;s MD5 list for the CUDA %1 installer could not be read, so the installer has no checksum yet. Try again online, or choose to trust it on first use.</source>
        <translation>無法讀取 NVIDIA 為 CUDA %1 安裝程式提供的 MD5 清單，因此該安裝程式暫時沒有校驗和。請連網後重試，或選擇在首次使用時信任它。</translation>
    </message>
    <message>
        <source>NVIDIA publishes only an MD5 checksum for full installers; MD5 detects damage, not tampering.</source>
        <translation>NVIDIA 只為完整安裝程式發布 MD5 校驗和；MD5 只能發現檔案損壞，無法發現篡改。</translation>
    </message>
    <message>
        <source>The full CUDA %1 installer changes the whole system and needs administrator rights; the display driver is not installed with it.</source>
        <translation>完整的 CUDA %1 安裝程式會改動整個系統，並且需要管理員權限；它不會同時安裝顯示卡驅動程式。</translation>
    </message>
    <message>
        <source>cuDNN %1 on Windows needs zlibwapi.dll, which NVIDIA does not ship with it. tfsetup does not download it from unofficial sites; see the details.</source>
        <translation>Windows 上的 cuDNN %1 需要 zlibwapi.dll，但 NVIDIA 沒有隨 cuDNN 一起提供該檔案。tfsetup 不會從非官方網站下載它；請檢視詳細資訊。</translation>
    </message>
    <message>
        <source>NVIDIA&apos;s %1 has no cuDNN for %2 and CUDA %3.</source>
        <translation>NVIDIA 的 %1 中沒有適用於 %2 和 CUDA %3 的 cuDNN。</translation>
    </message>
    <message>
        <source>tfsetup knows no download of cuDNN %1 for %2.</source>
        <translation>tfsetup 不知道適用於 %2 的 cuDNN %1 的下載網址。</translation>
    </message>
    <message>
        <source>NVIDIA publishes no checksum for cuDNN %1 (%2), and tfsetup knows no independent one. It can only be used if you choose to trust the file on first use.</source>
        <translation>NVIDIA 沒有公布 cuDNN %1（%2）的校驗和，tfsetup 也不知道其他獨立來源的校驗和。只有當你選擇在首次使用時信任該檔案，才能使用它。</translation>
    </message>
    <message>
        <source>NVIDIA publishes no checksum for cuDNN %1; tfsetup checks it against an independently recorded SHA-256.</source>
        <translation>NVIDIA 沒有為 cuDNN %1 發布校驗和；tfsetup 會用一個獨立記錄的 SHA-256 校驗和來核對它。</translation>
    </message>
    <message>
        <source>tfsetup knows no python.org installer for Python %1.</source>
        <translation>tfsetup 不知道有適用於 Python %1 的 python.org 安裝程式。</translation>
    </message>
    <message>
        <source>python.org publishes only an MD5 checksum for this installer; MD5 detects damage, not tampering.</source>
        <translation>python.org 只為這個安裝程式公布了 MD5 校驗和；MD5 能發現損壞，但發現不了篡改。</translation>
    </message>
    <message>
        <source>python.org publishes only an MD5 checksum for %1. It detects a damaged download, not a deliberately altered one.</source>
        <translation>python.org 只為 %1 公布了 MD5 校驗和。它能發現下載損壞，但發現不了有意的篡改。</translation>
    </message>
    <message>
        <source>python.org&apos;s checksum for %1 could not be read from python.org. Compare the file with the checksum on python.org&apos;s release page, or choose to trust it on first use.</source>
        <translation>無法從 python.org 讀取 %1 的校驗和。請將檔案與 python.org 發布頁面上的校驗和比對，或選擇首次使用時信任它。</translation>
    </message>
    <message>
        <source>Python %1 is not installed, and tfsetup knows no relocatable build of it. Install it with the system&apos;s package manager.</source>
        <translation>未安裝 Python %1，tfsetup 也不知道它的可遷移版本。請用系統的軟體套件管理員安裝它。</translation>
    </message>
    <message>
        <source>Python %1 is not installed. tfsetup unpacks the relocatable CPython %2 build (python-build-standalone, release %3) into the environment&apos;s own folder; nothing outside it changes.</source>
        <translation>未安裝 Python %1。tfsetup 會把可遷移的 CPython %2（python-build-standalone，發布版 %3）解壓縮到環境自己的資料夾中；環境之外的任何東西都不會改變。</translation>
    </message>
    <message>
        <source>The SHA-256 of %1 could not be read from the SHA256SUMS of python-build-standalone&apos;s release %2. Try again online, or choose to trust the file on first use.</source>
        <translation>無法從 python-build-standalone 發布版 %2 的 SHA256SUMS 中讀取 %1 的 SHA-256。請連網後重試，或選擇首次使用時信任該檔案。</translation>
    </message>
    <message>
        <source>The plan file</source>
        <translation>方案檔案</translation>
    </message>
    <message>
        <source>Give the output of tfsetup plan --json.</source>
        <translation>請提供 tfsetup plan --json 的輸出。</translation>
    </message>
    <message>
        <source>Check the internet connection, the proxy or the mirror settings.</source>
        <translation>請檢查網路連線、代理或鏡像站設定。</translation>
    </message>
    <message>
        <source>NVIDIA&apos;s manifest %1 could not be fetched and verified from any mirror.</source>
        <translation>無法從任何鏡像站取得並驗證 NVIDIA 的清單 %1。</translation>
    </message>
    <message>
        <source>tfsetup has no pinned checksum for NVIDIA&apos;s %1, and it came from %2 over plain HTTP, which cannot prove that it is NVIDIA&apos;s, yet the archives&apos; checksums are read from it. Use NVIDIA&apos;s https:// address, or a sources catalog that pins this manifest.</source>
        <translation>tfsetup 沒有 NVIDIA 的 %1 的固定校驗和，而且它是透過明文 HTTP 從 %2 取得的，這無法證明它來自 NVIDIA，而壓縮檔的校驗和卻要從它讀取。請使用 NVIDIA 的 https:// 網址，或者使用固定了此清單的下載來源表。</translation>
    </message>
    <message>
        <source>python-build-standalone&apos;s release %1 lists the SHA-256 %2 for %3, but tfsetup&apos;s sources catalog pins %4. Either the release was changed after the pin was recorded or the pin is wrong, so tfsetup will not use this file. Install Python %5 with the system&apos;s package manager, or update tfsetup and try again.</source>
        <translation>python-build-standalone 的發布 %1 為 %3 列出的 SHA-256 是 %2，而 tfsetup 的下載來源表固定的是 %4。要麼該發布在記錄固定值之後被改動過，要麼固定值有誤，因此 tfsetup 不會使用這個檔案。請用系統的套件管理員安裝 Python %5，或更新 tfsetup 後重試。</translation>
    </message>
    <message>
        <source>SHA-256 pinned in tfsetup&apos;s sources catalog (%1) and confirmed by the release&apos;s SHA256SUMS.</source>
        <translation>SHA-256 固定在 tfsetup 的下載來源表中（%1），並已由該發布的 SHA256SUMS 確認。</translation>
    </message>
    <message>
        <source>SHA-256 pinned in tfsetup&apos;s sources catalog (%1); the release&apos;s SHA256SUMS could not be read to compare (%2).</source>
        <translation>SHA-256 固定在 tfsetup 的下載來源表中（%1）；無法讀取該發布的 SHA256SUMS 進行比對（%2）。</translation>
    </message>
    <message>
        <source>cuDNN %1 for %2 is built for CUDA %3, not for CUDA %4 of this plan, so TensorFlow could not load it. Choose the cuDNN that goes with CUDA %4.</source>
        <translation>cuDNN %1（%2）是為 CUDA %3 建置的，而不是為此方案的 CUDA %4 建置的，所以 TensorFlow 無法載入它。請選擇與 CUDA %4 配套的 cuDNN。</translation>
    </message>
</context>
<context>
    <name>Bundle</name>
    <message>
        <source>Cannot write %1. Check that the bundle folder is writable and has free space.</source>
        <translation>無法寫入 %1。請檢查離線包資料夾是否可寫、是否還有剩餘空間。</translation>
    </message>
    <message>
        <source>Checking the bundle was cancelled.</source>
        <translation>離線包檢查已取消。</translation>
    </message>
    <message>
        <source>These files in the bundle do not match their checksums and were not used: %1. Copy the bundle again from the machine that wrote it.</source>
        <translation>離線包中的以下檔案與其校驗和不符，未被使用：%1。請從生成該離線包的電腦上重新複製。</translation>
    </message>
    <message>
        <source>These files are missing from the bundle: %1. Copy the whole bundle folder.</source>
        <translation>離線包中缺少以下檔案：%1。請複製整個離線包資料夾。</translation>
    </message>
    <message>
        <source>must be %1 hexadecimal digits</source>
        <translation>必須是 %1 位十六進位數字</translation>
    </message>
    <message>
        <source>must be a plain name (no slashes, not &quot;.&quot; or &quot;..&quot;, not starting with a dot)</source>
        <translation>必須是一個普通名稱（不含斜槓，不是「.」或「..」，不以點開頭）</translation>
    </message>
    <message>
        <source>must be a path inside the bundle folder</source>
        <translation>必須是離線包資料夾內的路徑</translation>
    </message>
    <message>
        <source>The bundle description</source>
        <translation>離線包描述檔案</translation>
    </message>
    <message>
        <source>The bundle description %1</source>
        <translation>離線包描述檔案 %1</translation>
    </message>
    <message>
        <source>has neither a SHA-256 nor an MD5 checksum</source>
        <translation>既沒有 SHA-256 也沒有 MD5 校驗和</translation>
    </message>
    <message>
        <source>lists no file</source>
        <translation>沒有列出任何檔案</translation>
    </message>
    <message>
        <source>is listed twice</source>
        <translation>被列出了兩次</translation>
    </message>
    <message>
        <source>has no files in &quot;files&quot;</source>
        <translation>在「files」中沒有任何檔案</translation>
    </message>
    <message>
        <source>has no entry in &quot;files&quot;</source>
        <translation>在「files」中沒有對應條目</translation>
    </message>
    <message>
        <source>has another checksum than its entry in &quot;files&quot;</source>
        <translation>的校驗和與其在「files」中的條目不同</translation>
    </message>
    <message>
        <source>differs from its entry in &quot;files&quot;</source>
        <translation>與其在「files」中的條目不一致</translation>
    </message>
    <message>
        <source>The offline bundle folder %1 does not exist. Choose the folder that tfsetup bundle wrote (the one that holds bundle.json).</source>
        <translation>離線包資料夾 %1 不存在。請選擇 tfsetup bundle 寫出的資料夾（包含 bundle.json 的那個）。</translation>
    </message>
    <message>
        <source>The folder %1 is empty, so it is not an offline bundle. Make one with tfsetup bundle --out FOLDER on a computer with internet, copy the whole folder here and choose it.</source>
        <translation>資料夾 %1 是空的，所以不是離線包。請在能上網的電腦上用 tfsetup bundle --out 資料夾 製作一個，把整個資料夾複製到這裡再選擇它。</translation>
    </message>
    <message>
        <source>The folder %1 is not an offline bundle: it has no bundle.json. Make one with tfsetup bundle --out FOLDER on a computer with internet, or choose the folder that tfsetup bundle wrote.</source>
        <translation>資料夾 %1 不是離線包：其中沒有 bundle.json。請在能上網的電腦上用 tfsetup bundle --out 資料夾 製作一個，或選擇 tfsetup bundle 寫出的資料夾。</translation>
    </message>
    <message>
        <source>Make the bundle again with tfsetup bundle, or copy the whole folder again from the computer that made it.</source>
        <translation>請用 tfsetup bundle 重新制作離線包，或從製作它的電腦重新複製整個資料夾。</translation>
    </message>
    <message>
        <source>%1 is damaged: it is not valid JSON (%2). %3</source>
        <translation>%1 已損壞：不是有效的 JSON（%2）。%3</translation>
    </message>
    <message>
        <source>is not &quot;%1&quot;</source>
        <translation>不是「%1」</translation>
    </message>
    <message>
        <source>is not %1, the only one this tfsetup reads (the bundle comes from another tfsetup version)</source>
        <translation>不是 %1，而這個 tfsetup 只能讀取該版本（離線包來自另一個 tfsetup 版本）</translation>
    </message>
    <message>
        <source>no TensorFlow</source>
        <translation>無 TensorFlow</translation>
    </message>
    <message>
        <source>TensorFlow %1</source>
        <translation>TensorFlow %1</translation>
    </message>
    <message>
        <source>%1 (route %2, %3)</source>
        <translation>%1（路線 %2，%3）</translation>
    </message>
    <message>
        <source>%1 for Python %2 (route %3, %4)</source>
        <translation>%1，Python %2（路線 %3，%4）</translation>
    </message>
    <message>
        <source>The offline bundle %1 was made for %2, but the plan chosen is %3. Choose the plan the bundle was made for, or make a bundle for this plan with tfsetup bundle on a computer with internet.</source>
        <translation>離線包 %1 是為 %2 製作的，但所選方案是 %3。請選擇離線包對應的方案，或在能上網的電腦上用 tfsetup bundle 為此方案製作離線包。</translation>
    </message>
    <message>
        <source>has more than one entry in &quot;files&quot;</source>
        <translation>在「files」中出現了不止一次</translation>
    </message>
    <message>
        <source>%1 is damaged: %2 %3</source>
        <translation>%1 已損壞：%2 %3</translation>
    </message>
</context>
<context>
    <name>BundleWriter</name>
    <message>
        <source>Cannot create the bundle folder %1.</source>
        <translation>無法建立離線包資料夾 %1。</translation>
    </message>
    <message>
        <source>The artifact %1 has an unsafe path.</source>
        <translation>檔案 %1 的路徑不安全。</translation>
    </message>
    <message>
        <source>No official checksum exists for %1. Nothing was downloaded. If you accept these files as they are served now, run again with --trust-on-first-use; their checksums will be recorded in the bundle.</source>
        <translation>%1 沒有官方校驗和。沒有下載任何內容。如果你接受這些檔案目前提供的樣子，請加上 --trust-on-first-use 重新執行；它們的校驗和會被記錄到離線包中。</translation>
    </message>
    <message>
        <source>Trusted on first use: no published checksum exists; this SHA-256 was recorded when the bundle was written.</source>
        <translation>首次使用時信任：沒有公開發布的校驗和；此 SHA-256 是在寫入離線包時記錄的。</translation>
    </message>
    <message>
        <source>No Python packages were chosen for the bundle, so it could not hold any. Check the requirements and the package index.</source>
        <translation>沒有為離線包選出任何 Python 套件，所以離線包中無法包含它們。請檢查依賴要求和套件索引。</translation>
    </message>
    <message>
        <source>The wheel %1 has an unsafe name.</source>
        <translation>wheel 檔案 %1 的名稱不安全。</translation>
    </message>
</context>
<context>
    <name>CacheText</name>
    <message>
        <source>The cached copy %1 does not match its checksum and was set aside as %2. It will be downloaded again.</source>
        <translation>快取中的副本 %1 與其校驗和不符，已另存為 %2。它將被重新下載。</translation>
    </message>
    <message>
        <source>Cannot create the folder %1. Choose a folder you may write to.</source>
        <translation>無法建立資料夾 %1。請選擇一個你有寫入權限的資料夾。</translation>
    </message>
</context>
<context>
    <name>Catalog</name>
    <message>
        <source>The knowledge catalog file %1 is damaged. Reinstall tfsetup, or remove the catalog override you gave.</source>
        <translation>知識庫檔案 %1 已損壞。請重新安裝 tfsetup，或去掉你指定的替代知識庫。</translation>
    </message>
    <message>
        <source>The knowledge catalog file %1 was written for another version of tfsetup. Update tfsetup.</source>
        <translation>知識庫檔案 %1 是為另一個版本的 tfsetup 編寫的。請更新 tfsetup。</translation>
    </message>
    <message>
        <source>The knowledge catalog file %1 cannot be read. Reinstall tfsetup, or check the catalog folder you gave.</source>
        <translation>無法讀取知識庫檔案 %1。請重新安裝 tfsetup，或檢查你指定的知識庫資料夾。</translation>
    </message>
</context>
<context>
    <name>CatalogKeys</name>
    <message>
        <source>must be %1 lower-case hexadecimal digits</source>
        <translation>必須是 %1 位小寫十六進位數字</translation>
    </message>
    <message>
        <source>This is not an Ed25519 public key. Give the lab&apos;s public key as a PEM file (openssl pkey -in KEY -pubout -out lab-public.pem) or as the 64 hexadecimal digits that &quot;sign_catalog.py --key KEY --print-public-key&quot; prints.</source>
        <translation>這不是 Ed25519 公鑰。請提供實驗室公鑰的 PEM 檔案（openssl pkey -in KEY -pubout -out lab-public.pem），或 &quot;sign_catalog.py --key KEY --print-public-key&quot; 列印的 64 位十六進位數字。</translation>
    </message>
    <message>
        <source>This file holds a private key. Never copy the lab&apos;s private key to the machines: give its public half, made with &quot;openssl pkey -in KEY -pubout -out lab-public.pem&quot;.</source>
        <translation>這個檔案裡是私鑰。切勿把實驗室的私鑰複製到各台機器上：請提供它的公鑰部分，可用 &quot;openssl pkey -in KEY -pubout -out lab-public.pem&quot; 生成。</translation>
    </message>
    <message>
        <source>An Ed25519 public key has 32 bytes.</source>
        <translation>Ed25519 公鑰的長度是 32 位元組。</translation>
    </message>
    <message>
        <source>The lab key could not be recorded in %1, where every account of this computer reads it. Run the command again as an administrator (&quot;Run as administrator&quot;).</source>
        <translation>無法把實驗室金鑰記錄到 %1（這台電腦的所有賬戶都從那裡讀取）。請以管理員身份（「以管理員身份執行」）重新執行這條命令。</translation>
    </message>
    <message>
        <source>The lab key could not be recorded in %1, where every account of this computer reads it. Run the command again as an administrator, with sudo.</source>
        <translation>無法把實驗室金鑰記錄到 %1（這台電腦的所有賬戶都從那裡讀取）。請用 sudo 以管理員身份重新執行這條命令。</translation>
    </message>
    <message>
        <source>Lab key</source>
        <translation>實驗室金鑰</translation>
    </message>
    <message>
        <source>No lab key with the id %1 is trusted on this computer; nothing was removed. &quot;tfsetup catalog status&quot; lists the trusted keys.</source>
        <translation>這台電腦沒有信任 ID 為 %1 的實驗室金鑰；沒有刪除任何內容。&quot;tfsetup catalog status&quot; 會列出受信任的金鑰。</translation>
    </message>
    <message>
        <source>%1 is not a key record tfsetup wrote, so it was left as it is. Remove it by hand if it does not belong there.</source>
        <translation>%1 不是 tfsetup 寫入的金鑰記錄，因此保持原樣。如果它不該在那裡，請手動刪除。</translation>
    </message>
    <message>
        <source>The lab key %1 could not be removed from %2. Run the command again as an administrator (&quot;Run as administrator&quot;).</source>
        <translation>無法從 %2 刪除實驗室金鑰 %1。請以管理員身份（「以管理員身份執行」）重新執行這條命令。</translation>
    </message>
    <message>
        <source>The lab key %1 could not be removed from %2. Run the command again as an administrator, with sudo.</source>
        <translation>無法從 %2 刪除實驗室金鑰 %1。請用 sudo 以管理員身份重新執行這條命令。</translation>
    </message>
</context>
<context>
    <name>CatalogUpdates</name>
    <message>
        <source>must be &quot;%1&quot;</source>
        <translation>必須是「%1」</translation>
    </message>
    <message>
        <source>must be a date written YYYY-MM-DD</source>
        <translation>必須是 YYYY-MM-DD 格式的日期</translation>
    </message>
    <message>
        <source>The catalog update %1 is refused: its file %2 cannot be used (%3). tfsetup keeps using the catalog it has. Ask whoever published the update for a corrected one.</source>
        <translation>知識庫更新 %1 被拒絕：其中的檔案 %2 無法使用（%3）。tfsetup 繼續使用現有的知識庫。請向發布該更新的人索取更正後的版本。</translation>
    </message>
    <message>
        <source>it is not a JSON object</source>
        <translation>不是 JSON 物件</translation>
    </message>
    <message>
        <source>The catalog update %1 is refused: its version %2 is older than the catalog tfsetup already has (version %3), and an older catalog is never installed over a newer one. Nothing was changed; ask for the current update if you expected a newer one.</source>
        <translation>知識庫更新 %1 被拒絕：它的版本 %2 比 tfsetup 已有的知識庫（版本 %3）更舊，較舊的知識庫永遠不會覆蓋較新的知識庫。沒有做任何更改；如果你期待更新的版本，請取得最新的更新。</translation>
    </message>
    <message>
        <source>tfsetup keeps using the catalog it has. Download the update again: it may have been cut off or changed on the way.</source>
        <translation>tfsetup 繼續使用現有的知識庫。請重新下載該更新：它可能在傳輸中被截斷或篡改。</translation>
    </message>
    <message>
        <source>The catalog update %1 is refused: it is larger than %2 MB, far more than a catalog holds. Check that the address or file is a tfsetup catalog update.</source>
        <translation>知識庫更新 %1 被拒絕：它大於 %2 MB，遠超一個知識庫應有的大小。請檢查該網址或檔案是否確實是 tfsetup 的知識庫更新。</translation>
    </message>
    <message>
        <source>The catalog update %1 is refused: it is not a complete catalog update document. %2</source>
        <translation>知識庫更新 %1 被拒絕：它不是完整的知識庫更新文件。%2</translation>
    </message>
    <message>
        <source>The catalog update %1</source>
        <translation>知識庫更新 %1</translation>
    </message>
    <message>
        <source>names a file &quot;%1&quot; that is not a catalog file name</source>
        <translation>提到了一個名為「%1」的檔案，而這不是知識庫檔名</translation>
    </message>
    <message>
        <source>lacks the file %1</source>
        <translation>缺少檔案 %1</translation>
    </message>
    <message>
        <source>The catalog update %1 is refused: its signature does not match its contents, so it was changed after it was signed or damaged on the way. tfsetup keeps using the catalog it has. Download it again; if this repeats, tell whoever runs the mirror.</source>
        <translation>知識庫更新 %1 被拒絕：它的簽名與內容不符，說明它在簽名後被修改過，或在傳輸中損壞。tfsetup 繼續使用現有的知識庫。請重新下載；如果反覆出現，請告知鏡像站的管理者。</translation>
    </message>
    <message>
        <source>No catalog update is installed.</source>
        <translation>未安裝知識庫更新。</translation>
    </message>
    <message>
        <source>The installed catalog update</source>
        <translation>已安裝的知識庫更新</translation>
    </message>
    <message>
        <source>The installed catalog update cannot be read: %1 Run &quot;tfsetup catalog update&quot; to install it again.</source>
        <translation>無法讀取已安裝的知識庫更新：%1 請執行「tfsetup catalog update」重新安裝。</translation>
    </message>
    <message>
        <source>The installed catalog update (version %1) is not newer than the catalog built into this tfsetup (version %2), so the built-in one is used.</source>
        <translation>已安裝的知識庫更新（版本 %1）並不比 tfsetup 內建的知識庫（版本 %2）新，所以使用內建知識庫。</translation>
    </message>
    <message>
        <source>The catalog update could not be stored in %1. Check that the folder is writable and the disk is not full, then try again; tfsetup keeps using the catalog it has.</source>
        <translation>知識庫更新無法儲存到 %1。請檢查該資料夾是否可寫、磁碟是否已滿，然後重試；tfsetup 繼續使用現有的知識庫。</translation>
    </message>
    <message>
        <source>No address for catalog updates is known. Give one with --from (your lab&apos;s mirror or a downloaded file).</source>
        <translation>不知道從哪裡取得知識庫更新。請用 --from 指定一個網址（你所在實驗室的鏡像站或已下載的檔案）。</translation>
    </message>
    <message>
        <source>The catalog update %1 is refused: it is larger than %2 MB, far more than a catalog holds. Check that the address is a tfsetup catalog update.</source>
        <translation>知識庫更新 %1 被拒絕：它大於 %2 MB，遠超一個知識庫應有的大小。請檢查該網址是否確實是 tfsetup 的知識庫更新。</translation>
    </message>
    <message>
        <source>The catalog update file</source>
        <translation>知識庫更新檔案</translation>
    </message>
    <message>
        <source>Cannot use the catalog update: %1</source>
        <translation>無法使用知識庫更新：%1</translation>
    </message>
    <message>
        <source>The catalog update %1 is refused: it is signed with the key %2, which this computer does not trust. tfsetup keeps using the catalog it has. If it is your lab&apos;s catalog, ask your lab administrator to run &quot;tfsetup catalog trust&quot; with the lab&apos;s public key on this computer; otherwise take updates only from tfsetup&apos;s releases or a mirror that copies them unchanged.</source>
        <translation>已拒絕知識函式庫更新 %1：它由金鑰 %2 簽名，而這台電腦不信任該金鑰。tfsetup 繼續使用現有的知識函式庫。如果這是你們實驗室的知識函式庫，請讓實驗室管理員在這台電腦上用實驗室公鑰執行 &quot;tfsetup catalog trust&quot;；否則請只從 tfsetup 的發布頁面或原樣複製它的鏡像站取得更新。</translation>
    </message>
    <message>
        <source>signed with key %1, trusted keys %2</source>
        <translation>簽名金鑰 %1，受信任的金鑰 %2</translation>
    </message>
</context>
<context>
    <name>CauseRegistry</name>
    <message>
        <source>The list of causes the doctor knows (%1) cannot be read. Reinstall tfsetup.</source>
        <translation>無法讀取醫生所知的原因清單（%1）。請重新安裝 tfsetup。</translation>
    </message>
    <message>
        <source>Reinstall tfsetup.</source>
        <translation>請重新安裝 tfsetup。</translation>
    </message>
    <message>
        <source>The list of causes the doctor knows is damaged. Reinstall tfsetup.</source>
        <translation>醫生所知的原因清單已損壞。請重新安裝 tfsetup。</translation>
    </message>
</context>
<context>
    <name>Checksum</name>
    <message>
        <source>&quot;%1&quot; is not a valid %2 checksum (%3 hexadecimal digits expected). Copy it again from the official source.</source>
        <translation>「%1」不是有效的 %2 校驗和（應為 %3 位十六進位數字）。請從官方來源重新複製。</translation>
    </message>
    <message>
        <source>Cannot read %1 to check it. Check that the file exists and that you may read it.</source>
        <translation>無法讀取 %1 進行校驗。請檢查該檔案是否存在，以及你是否有權限讀取它。</translation>
    </message>
    <message>
        <source>Cancelled.</source>
        <translation>已取消。</translation>
    </message>
    <message>
        <source>Reading %1 failed.</source>
        <translation>讀取 %1 失敗。</translation>
    </message>
</context>
<context>
    <name>CleanReport</name>
    <message numerus="yes">
        <source>Would free %1: %n cached download(s)</source>
        <translation>
            <numerusform>將釋放 %1：%n 個快取的下載檔案</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Freed %1: %n cached download(s)</source>
        <translation>
            <numerusform>已釋放 %1：%n 個快取的下載檔案</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>and %n old log(s).</source>
        <translation>
            <numerusform>以及 %n 箇舊日誌。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Kept %n old download(s) that an environment or an offline bundle still needs.</source>
        <translation>
            <numerusform>保留了 %n 個仍被某個環境或離線包需要的舊下載檔案。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Kept %n download(s) another tfsetup is using right now.</source>
        <translation>
            <numerusform>保留了 %n 個另一個 tfsetup 正在使用的下載檔案。</numerusform>
        </translation>
    </message>
    <message>
        <source>The download cache now holds %1.</source>
        <translation>下載快取現在佔用 %1。</translation>
    </message>
    <message numerus="yes">
        <source>Would keep %n old download(s) that an environment or an offline bundle still needs.</source>
        <translation>
            <numerusform>將保留 %n 個仍被某個環境或離線包需要的舊下載檔案。</numerusform>
        </translation>
    </message>
    <message>
        <source>The download cache would then hold %1 (nothing was removed: this was a dry run).</source>
        <translation>屆時下載快取將佔用 %1（這是一次試執行，沒有刪除任何內容）。</translation>
    </message>
</context>
<context>
    <name>Cli</name>
    <message>
        <source>Report this machine&apos;s GPUs, driver, CPU, Pythons, CUDA and cuDNN</source>
        <translation>報告本機的 GPU、驅動程式、CPU、Python、CUDA 和 cuDNN</translation>
    </message>
    <message>
        <source>Choose a working TensorFlow / CUDA / cuDNN / Python combination</source>
        <translation>選擇一套可用的 TensorFlow / CUDA / cuDNN / Python 組合</translation>
    </message>
    <message>
        <source>Download a file and verify its official checksum (resumable, mirrors, cache)</source>
        <translation>下載檔案並核對其官方校驗和（支援斷點續傳、鏡像站和快取）</translation>
    </message>
    <message>
        <source>Usage: tfsetup [COMMAND] [OPTIONS]
Without a command, tfsetup opens the setup wizard.

Commands:
</source>
        <translation>用法：tfsetup [COMMAND] [OPTIONS]
不帶命令執行時，tfsetup 會開啟安裝精靈。

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
選項：
  -h, --help     顯示此說明
  -v, --version  顯示版本

執行 &quot;tfsetup COMMAND --help&quot; 檢視某個命令的選項。
</translation>
    </message>
    <message>
        <source>tfsetup: unknown command &quot;%1&quot;.</source>
        <translation>tfsetup：未知命令 &quot;%1&quot;。</translation>
    </message>
    <message>
        <source>Scan the folder DIR as if it were the file-system root (a Windows drive C: is DIR/C).</source>
        <translation>把資料夾 DIR 當作檔案系統根目錄來掃描（Windows 的 C: 磁碟機對應 DIR/C）。</translation>
    </message>
    <message>
        <source>Take environment variables from FILE (KEY=VALUE lines) instead of this process.</source>
        <translation>從 FILE（每行一個 KEY=VALUE）讀取環境變數，而不是使用目前處理程序的環境變數。</translation>
    </message>
    <message>
        <source>The system the --root folder imitates: windows or linux.</source>
        <translation>--root 資料夾所模擬的系統：windows 或 linux。</translation>
    </message>
    <message>
        <source>--env-file and --os describe a --root folder; give --root DIR as well.</source>
        <translation>--env-file 和 --os 用於描述 --root 資料夾，請同時提供 --root DIR。</translation>
    </message>
    <message>
        <source>Unknown --os &quot;%1&quot;: use windows or linux.</source>
        <translation>未知的 --os 值 &quot;%1&quot;：請使用 windows 或 linux。</translation>
    </message>
    <message>
        <source>error: %1</source>
        <translation>錯誤：%1</translation>
    </message>
    <message>
        <source>details: %1</source>
        <translation>詳細資訊：%1</translation>
    </message>
    <message>
        <source>The log of this run is %1</source>
        <translation>本次執行的日誌：%1</translation>
    </message>
    <message>
        <source>Print the report as one JSON document.</source>
        <translation>以單個 JSON 文件輸出報告。</translation>
    </message>
    <message>
        <source>Skip the search for Python interpreters.</source>
        <translation>跳過對 Python 直譯器的搜尋。</translation>
    </message>
    <message>
        <source>Report this machine&apos;s GPUs, driver, CPU, Pythons, CUDA toolkits and cuDNN copies.</source>
        <translation>報告本機的 GPU、驅動程式、CPU、Python、CUDA 工具包和 cuDNN 副本。</translation>
    </message>
    <message>
        <source>Where to fetch from; further URLs are mirrors tried in order.</source>
        <translation>下載網址；其餘的 URL 作為鏡像站按順序嘗試。</translation>
    </message>
    <message>
        <source>The official SHA-256 checksum the file must have.</source>
        <translation>該檔案應有的官方 SHA-256 校驗和。</translation>
    </message>
    <message>
        <source>An MD5 checksum, only where the official source publishes nothing stronger.</source>
        <translation>MD5 校驗和，僅在官方來源沒有發布更強的校驗和時使用。</translation>
    </message>
    <message>
        <source>The expected size in bytes.</source>
        <translation>預期的檔案大小（位元組）。</translation>
    </message>
    <message>
        <source>Where to save the verified file.</source>
        <translation>校驗通過的檔案的儲存位置。</translation>
    </message>
    <message>
        <source>Fetch over N parallel connections.</source>
        <translation>使用 N 個並行連線下載。</translation>
    </message>
    <message>
        <source>Use this proxy (http://, https:// or socks5h://).</source>
        <translation>使用此代理（http://、https:// 或 socks5h://）。</translation>
    </message>
    <message>
        <source>Also trust the certificates in this PEM file (lab or company proxies).</source>
        <translation>同時信任此 PEM 檔案中的憑證（用於實驗室或公司的代理）。</translation>
    </message>
    <message>
        <source>Keep verified files in this folder and reuse them.</source>
        <translation>將校驗通過的檔案儲存在此資料夾中並重複使用。</translation>
    </message>
    <message>
        <source>Do not use the download cache.</source>
        <translation>不使用下載快取。</translation>
    </message>
    <message>
        <source>Print the result as JSON.</source>
        <translation>以 JSON 格式輸出結果。</translation>
    </message>
    <message>
        <source>Download a file and verify its checksum. Exits 0 only when the file at --out is verified.</source>
        <translation>下載檔案並核對其校驗和。只有當 --out 處的檔案校驗通過時，結束代碼才為 0。</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not an http:// or https:// address.</source>
        <translation>&quot;%1&quot; 不是 http:// 或 https:// 網址。</translation>
    </message>
    <message>
        <source>--size needs a number of bytes.</source>
        <translation>--size 需要一個位元組數。</translation>
    </message>
    <message>
        <source>--segments needs a number from 1 to 16.</source>
        <translation>--segments 需要 1 到 16 之間的數字。</translation>
    </message>
    <message>
        <source>%1 s left</source>
        <translation>剩餘 %1 秒</translation>
    </message>
    <message>
        <source>Verified %1 (%2, %3)
</source>
        <translation>已校驗 %1（%2，%3）
</translation>
    </message>
    <message>
        <source>from the cache</source>
        <translation>來自快取</translation>
    </message>
    <message>
        <source>Note: only an MD5 checksum was available for this file; MD5 is weaker than SHA-256.</source>
        <translation>注意：此檔案只有 MD5 校驗和可用；MD5 的可靠性不如 SHA-256。</translation>
    </message>
    <message>
        <source>Plan for the machine described in FILE (the output of tfsetup detect --json) instead of this one.</source>
        <translation>為 FILE 中描述的電腦（tfsetup detect --json 的輸出）制定方案，而不是為本機。</translation>
    </message>
    <message>
        <source>Only consider TensorFlow VERSION (&quot;2.13&quot; or &quot;2.13.0&quot;).</source>
        <translation>只考慮 TensorFlow VERSION（如 &quot;2.13&quot; 或 &quot;2.13.0&quot;）。</translation>
    </message>
    <message>
        <source>Use Python VERSION (&quot;3.10&quot;).</source>
        <translation>使用 Python VERSION（如 &quot;3.10&quot;）。</translation>
    </message>
    <message>
        <source>Only consider ROUTE: windows-native, linux-pip, linux-toolkit, wsl2, cpu, rocm, directml or metal.</source>
        <translation>只考慮 ROUTE 路線：windows-native、linux-pip、linux-toolkit、wsl2、cpu、rocm、directml 或 metal。</translation>
    </message>
    <message>
        <source>Plan without a GPU.</source>
        <translation>按沒有 GPU 的情況制定方案。</translation>
    </message>
    <message>
        <source>The NVIDIA driver cannot be changed here: reject combinations it is too old for.</source>
        <translation>此處無法更換 NVIDIA 驅動程式：排除驅動程式版本過舊而無法支援的組合。</translation>
    </message>
    <message>
        <source>Print the plan as one JSON document.</source>
        <translation>以單個 JSON 文件輸出方案。</translation>
    </message>
    <message>
        <source>Choose a TensorFlow / CUDA / cuDNN / Python combination that works on this machine, and say why the others do not.</source>
        <translation>選擇一套能在本機上執行的 TensorFlow / CUDA / cuDNN / Python 組合，並說明其他組合為什麼不行。</translation>
    </message>
    <message>
        <source>Unknown --route &quot;%1&quot;: use one of %2.</source>
        <translation>未知的 --route 值 &quot;%1&quot;：請使用以下之一：%2。</translation>
    </message>
    <message>
        <source>Open the setup wizard.</source>
        <translation>開啟安裝精靈。</translation>
    </message>
    <message>
        <source>Write the bundle into folder DIR.</source>
        <translation>將離線包寫入資料夾 DIR。</translation>
    </message>
    <message>
        <source>Only check the bundle in DIR: every file against its checksum.</source>
        <translation>只檢查 DIR 中的離線包：逐一核對每個檔案的校驗和。</translation>
    </message>
    <message>
        <source>Accept files for which no official checksum exists as they are served now, and record their checksums in the bundle.</source>
        <translation>對於沒有官方校驗和的檔案，接受其目前提供的樣子，並將其校驗和記錄到離線包中。</translation>
    </message>
    <message>
        <source>All %1 files of the bundle match their checksums.
</source>
        <translation>離線包中的全部 %1 個檔案都與其校驗和相符。
</translation>
    </message>
    <message>
        <source>warning: %1</source>
        <translation>警告：%1</translation>
    </message>
    <message>
        <source>Wrote %1 files to %2
</source>
        <translation>已將 %1 個檔案寫入 %2
</translation>
    </message>
    <message>
        <source>Open the setup wizard (the default), also over a --root folder</source>
        <translation>開啟安裝精靈（預設），也可用於 --root 資料夾</translation>
    </message>
    <message>
        <source>Install an environment as a lab profile describes it, without questions</source>
        <translation>按照實驗室設定檔的描述安裝環境，無需回答任何問題</translation>
    </message>
    <message>
        <source>Prove an environment works: load its GPU libraries, then compute on the GPU</source>
        <translation>驗證環境是否可用：載入其 GPU 函式庫，然後在 GPU 上進行計算</translation>
    </message>
    <message>
        <source>List the official files of a plan with their checksums (mirrors, lab servers)</source>
        <translation>列出某個方案的官方檔案及其校驗和（用於鏡像站、實驗室伺服器）</translation>
    </message>
    <message>
        <source>Write an offline bundle of a plan&apos;s files for machines without internet</source>
        <translation>為沒有網路的電腦生成包含某個方案所需檔案的離線包</translation>
    </message>
    <message>
        <source>Explain why TensorFlow does not use the GPU, from this machine and a log</source>
        <translation>根據本機情況和日誌，解釋 TensorFlow 為什麼沒有使用 GPU</translation>
    </message>
    <message>
        <source>Repair an environment: restore damaged or moved files, launchers and kernel, then verify</source>
        <translation>修復環境：恢復損壞或被移動的檔案、啟動指令碼和核心，然後進行驗證</translation>
    </message>
    <message>
        <source>The TensorFlow VERSION meant to run, when no --env says it (&quot;2.10&quot;).</source>
        <translation>當沒有 --env 指明時，要執行的 TensorFlow VERSION（如 &quot;2.10&quot;）。</translation>
    </message>
    <message>
        <source>The environment is meant to run on the CPU: GPU messages are only explained.</source>
        <translation>該環境設計為在 CPU 上執行：GPU 相關訊息僅作解釋。</translation>
    </message>
    <message>
        <source>Read a TensorFlow log or traceback from FILE (&quot;-&quot; reads it from the input) and name its causes.</source>
        <translation>從 FILE 讀取 TensorFlow 日誌或錯誤回溯（&quot;-&quot; 表示從標準輸入讀取），並指出其原因。</translation>
    </message>
    <message>
        <source>Also write a report to FILE with your user name and home folder masked, in your language and in English, ready to paste into a chat or an issue.</source>
        <translation>同時將報告寫入 FILE，其中你的使用者名稱和主資料夾會被隱去；報告包含你的語言和英文兩個版本，可直接貼上到聊天或 issue 中。</translation>
    </message>
    <message>
        <source>Print the findings as one JSON document.</source>
        <translation>以單個 JSON 文件輸出發現的問題。</translation>
    </message>
    <message>
        <source>Find out why TensorFlow does not use the GPU: check the machine, an environment and a log, and say what to do.</source>
        <translation>找出 TensorFlow 沒有使用 GPU 的原因：檢查本機、環境和日誌，並說明該怎麼做。</translation>
    </message>
    <message>
        <source>The environment folder %1 does not exist. Give the folder that holds the environment&apos;s python.</source>
        <translation>環境資料夾 %1 不存在。請指定存放該環境 python 的資料夾。</translation>
    </message>
    <message>
        <source>Install what the lab profile FILE describes.</source>
        <translation>安裝實驗室設定檔 FILE 所描述的環境。</translation>
    </message>
    <message>
        <source>Do not ask: install now (for unattended roll-outs).</source>
        <translation>不詢問，立即安裝（用於無人值守的批次部署）。</translation>
    </message>
    <message>
        <source>Put the environment in DIR instead of the profile&apos;s folder.</source>
        <translation>將環境放在 DIR 中，而不是設定檔指定的資料夾中。</translation>
    </message>
    <message>
        <source>Use only the files of the bundle given with --from; no network.</source>
        <translation>只使用 --from 指定的離線包中的檔案；不使用網路。</translation>
    </message>
    <message>
        <source>The offline bundle folder (with artifacts.json).</source>
        <translation>離線包資料夾（包含 artifacts.json）。</translation>
    </message>
    <message>
        <source>Print the result as one JSON document.</source>
        <translation>以單個 JSON 文件輸出結果。</translation>
    </message>
    <message>
        <source>Install a TensorFlow environment without questions, as a lab profile describes it.</source>
        <translation>按照實驗室設定檔的描述安裝 TensorFlow 環境，無需回答任何問題。</translation>
    </message>
    <message>
        <source>Give the lab profile with --profile FILE. Without one, start tfsetup without a command to use the wizard.</source>
        <translation>請用 --profile FILE 指定實驗室設定檔。如果沒有設定檔，請不帶命令啟動 tfsetup 以使用精靈。</translation>
    </message>
    <message>
        <source>--offline and --from BUNDLE go together.</source>
        <translation>--offline 和 --from BUNDLE 需要一起使用。</translation>
    </message>
    <message>
        <source>This would install &quot;%1&quot; (TensorFlow %2, %3) into %4.
Run again with --yes to install.
</source>
        <translation>將會把「%1」（TensorFlow %2，%3）安裝到 %4。
加上 --yes 重新執行即可安裝。
</translation>
    </message>
    <message>
        <source>The environment %1 was already complete; nothing changed.
</source>
        <translation>環境 %1 已經是完整的，未做任何更改。
</translation>
    </message>
    <message>
        <source>Installed %1.
</source>
        <translation>已安裝 %1。
</translation>
    </message>
    <message>
        <source>Start it with:
</source>
        <translation>啟動方式：
</translation>
    </message>
    <message>
        <source>The environment folder to repair (the one holding environment.json).</source>
        <translation>要修復的環境資料夾（包含 environment.json 的那個）。</translation>
    </message>
    <message>
        <source>Only say what would be repaired; change and download nothing.</source>
        <translation>只說明會修復哪些內容；不做任何更改，也不下載任何內容。</translation>
    </message>
    <message>
        <source>A TensorFlow log or traceback (FILE): the doctor reads it and repair acts on what applies to the environment.</source>
        <translation>TensorFlow 日誌或錯誤回溯（FILE）：doctor 會讀取它，repair 會處理其中與該環境相關的問題。</translation>
    </message>
    <message>
        <source>Do not run verify after the repair.</source>
        <translation>修復後不執行 verify。</translation>
    </message>
    <message>
        <source>The library probe to use (default: beside tfsetup).</source>
        <translation>要使用的函式庫探測程式（預設：tfsetup 所在位置的那個）。</translation>
    </message>
    <message>
        <source>Repair an environment: check every installed file against environment.json, take back what is missing or damaged from NVIDIA&apos;s archives, move misplaced files back, write the launchers and the Jupyter kernel again, then verify.</source>
        <translation>修復環境：根據 environment.json 檢查每個已安裝的檔案，從 NVIDIA 的壓縮檔中重新取回缺失或損壞的檔案，把放錯位置的檔案移回原處，重新寫入啟動指令碼和 Jupyter 核心，然後進行驗證。</translation>
    </message>
    <message>
        <source>Give the environment to repair with --env DIR. &quot;tfsetup wizard&quot; finds them for you.</source>
        <translation>請用 --env DIR 指定要修復的環境。「tfsetup wizard」可以幫你找到它們。</translation>
    </message>
    <message>
        <source>Resolve the plan in FILE (the output of tfsetup plan --json).</source>
        <translation>解析 FILE 中的方案（tfsetup plan --json 的輸出）。</translation>
    </message>
    <message>
        <source>Without --plan: the TensorFlow VERSION (&quot;2.10&quot;).</source>
        <translation>不使用 --plan 時：TensorFlow 版本 VERSION（如 &quot;2.10&quot;）。</translation>
    </message>
    <message>
        <source>Without --plan: the target system, windows or linux.</source>
        <translation>未指定 --plan 時：目標系統，windows 或 linux。</translation>
    </message>
    <message>
        <source>Without --plan: the ROUTE (windows-native, linux-toolkit, linux-pip, …).</source>
        <translation>不使用 --plan 時：指定 ROUTE 路線（windows-native、linux-toolkit、linux-pip 等）。</translation>
    </message>
    <message>
        <source>Without --plan: a Python VERSION to install as well (&quot;3.10&quot;).</source>
        <translation>不使用 --plan 時：同時安裝的 Python 版本 VERSION（如 &quot;3.10&quot;）。</translation>
    </message>
    <message>
        <source>Fetch from this mirror first: a URL or folder laid out like NVIDIA&apos;s server, or python=URL, pypi=URL or a PyPI preset (pypi=tuna). May be repeated.</source>
        <translation>優先從此鏡像站下載：可以是目錄結構與 NVIDIA 伺服器相同的 URL 或資料夾，也可以是 python=URL、pypi=URL 或 PyPI 預設（pypi=tuna）。可多次指定。</translation>
    </message>
    <message>
        <source>redist: portable archives, no administrator rights (default); installer: NVIDIA&apos;s full installer, with nvcc, needs administrator rights.</source>
        <translation>redist：可攜式壓縮檔，不需要管理員權限（預設）；installer：NVIDIA 的完整安裝程式，包含 nvcc，需要管理員權限。</translation>
    </message>
    <message>
        <source>Also list optional parts (CUPTI for the profiler).</source>
        <translation>同時列出可選元件（用於效能分析器的 CUPTI）。</translation>
    </message>
    <message>
        <source>Treat URL as the official server of ORIGIN (nvidia, python, pypi), for labs that re-host it under the same layout.</source>
        <translation>把 URL 當作 ORIGIN（nvidia、python、pypi）的官方伺服器，適用於按相同目錄結構重新託管這些檔案的實驗室。</translation>
    </message>
    <message>
        <source>Also trust the certificates in this PEM file.</source>
        <translation>同時信任此 PEM 檔案中的憑證。</translation>
    </message>
    <message>
        <source>Cannot read the plan file %1.</source>
        <translation>無法讀取方案檔案 %1。</translation>
    </message>
    <message>
        <source>TensorFlow %1 is not in the tested configurations for %2.</source>
        <translation>TensorFlow %1 不在 %2 的官方測試組態中。</translation>
    </message>
    <message>
        <source>--cuda-from takes redist or installer.</source>
        <translation>--cuda-from 的取值為 redist 或 installer。</translation>
    </message>
    <message>
        <source>--origin takes ORIGIN=URL, for example nvidia=https://lab.example/nvidia.</source>
        <translation>--origin 的格式為 ORIGIN=URL，例如 nvidia=https://lab.example/nvidia。</translation>
    </message>
    <message>
        <source>Print the artifact list as one JSON document.</source>
        <translation>以單個 JSON 文件輸出檔案清單。</translation>
    </message>
    <message>
        <source>List the exact official files a plan needs, each with the checksum that will be accepted, and where they are fetched from.</source>
        <translation>列出某個方案所需的確切官方檔案，以及每個檔案會被接受的校驗和和下載來源。</translation>
    </message>
    <message>
        <source>The environment folder to verify (the one holding environment.json).</source>
        <translation>要驗證的環境資料夾（包含 environment.json 的那個）。</translation>
    </message>
    <message>
        <source>Run Python through FILE (the environment&apos;s start-python launcher) instead of the one the environment names.</source>
        <translation>透過 FILE（該環境的 start-python 啟動指令碼）執行 Python，而不是使用環境中指定的 Python。</translation>
    </message>
    <message>
        <source>The TensorFlow version to check for, when the environment does not say.</source>
        <translation>環境中未註明時，要檢查的 TensorFlow 版本。</translation>
    </message>
    <message>
        <source>Whose library names to load: windows or linux.</source>
        <translation>按哪個系統的函式庫檔名載入：windows 或 linux。</translation>
    </message>
    <message>
        <source>The CUDA version TensorFlow was built with.</source>
        <translation>建置 TensorFlow 時所用的 CUDA 版本。</translation>
    </message>
    <message>
        <source>The cuDNN version TensorFlow was built with.</source>
        <translation>建置 TensorFlow 時所用的 cuDNN 版本。</translation>
    </message>
    <message>
        <source>A folder that holds the environment&apos;s own copies of the libraries (repeatable).</source>
        <translation>存放該環境自帶函式庫副本的資料夾（可多次指定）。</translation>
    </message>
    <message>
        <source>The environment is meant to run on the processor.</source>
        <translation>該環境預期在處理器（CPU）上執行。</translation>
    </message>
    <message>
        <source>Prove that an environment works: load every GPU library TensorFlow will load, then import TensorFlow and compute on the GPU. Names the first step that fails and what to do.</source>
        <translation>證明環境可以正常工作：載入 TensorFlow 會載入的每個 GPU 函式庫，然後匯入 TensorFlow 並在 GPU 上進行計算。如有失敗，會指出第一個失敗的步驟以及解決辦法。</translation>
    </message>
    <message>
        <source>Give --env DIR, or say what to check with --launcher FILE and --tf VERSION.</source>
        <translation>請提供 --env DIR，或者用 --launcher FILE 和 --tf VERSION 指定要檢查的內容。</translation>
    </message>
    <message>
        <source>Use this language (%1) instead of the system&apos;s.</source>
        <translation>使用此語言（%1），而不是系統語言。</translation>
    </message>
    <message>
        <source>Download into DIR and keep verified files there; many machines may share one folder (each file is fetched once).</source>
        <translation>下載到 DIR 並在那裡保留已校驗的檔案；多台機器可以共用一個資料夾（每個檔案只下載一次）。</translation>
    </message>
    <message>
        <source>tfsetup: there is no translation &quot;%1&quot;. Choose one of: %2.</source>
        <translation>tfsetup：沒有「%1」的翻譯。請從以下選項中選擇：%2。</translation>
    </message>
    <message>
        <source>tfsetup: the wizard needs a graphical display, and there is none here (DISPLAY and WAYLAND_DISPLAY are unset). Start it on the desktop, or use the commands listed by &quot;tfsetup --help&quot;, for example &quot;tfsetup detect&quot;.</source>
        <translation>tfsetup：安裝精靈需要圖形介面，而這裡沒有（DISPLAY 和 WAYLAND_DISPLAY 均未設定）。請在桌面上啟動它，或者使用「tfsetup --help」列出的命令，例如「tfsetup detect」。</translation>
    </message>
    <message>
        <source>The Jupyter front end whose wheels join the kernel&apos;s: lab (default), notebook, server or none.</source>
        <translation>與核心一起下載其 wheel 的 Jupyter 前端：lab（預設）、notebook、server 或 none。</translation>
    </message>
    <message>
        <source>The hardware file</source>
        <translation>硬體檔案</translation>
    </message>
    <message>
        <source>Cannot use the hardware file %1: %2 Give the output of tfsetup detect --json.</source>
        <translation>無法使用硬體檔案 %1：%2 請提供 tfsetup detect --json 的輸出。</translation>
    </message>
    <message>
        <source>The hardware file %1</source>
        <translation>硬體檔案 %1</translation>
    </message>
    <message>
        <source>The plan file</source>
        <translation>方案檔案</translation>
    </message>
    <message>
        <source>Where the log comes from: &quot;this&quot; computer, an &quot;other&quot; one, or &quot;auto&quot; (the default: a log that shows another machine is read as that machine&apos;s).</source>
        <translation>日誌來自哪裡：「this」（這台電腦）、「other」（另一台）或「auto」（預設：顯示出另一台機器的日誌按那台機器來讀）。</translation>
    </message>
    <message>
        <source>Check the machine described in FILE (the output of tfsetup detect --json there) instead of this one, for example the computer a log comes from.</source>
        <translation>檢查 FILE 所描述的機器（在那台機器上執行 tfsetup detect --json 的輸出），而不是這台，例如日誌所來自的電腦。</translation>
    </message>
    <message>
        <source>--log-from takes &quot;this&quot;, &quot;other&quot; or &quot;auto&quot;, not &quot;%1&quot;.</source>
        <translation>--log-from 只接受「this」、「other」或「auto」，而不是「%1」。</translation>
    </message>
    <message>
        <source>Drop a mirror that stays below BYTES per second (k, M: KiB, MiB) for SECONDS and go on from the next one, keeping what arrived; default %1:%2, 0 turns it off.</source>
        <translation>鏡像站速度在 SECONDS 秒內一直低於每秒 BYTES 位元組（可用 k、M 表示 KiB、MiB）時放棄它，保留已下載的部分，從下一個來源繼續；預設 %1:%2，0 表示關閉。</translation>
    </message>
    <message>
        <source>Not every place this setup downloads from could be reached. Each origin above says why and what to do: set --proxy, choose a mirror (--mirror pypi=%1), or use an offline bundle.</source>
        <translation>這次安裝需要的下載來源並非都能連上。上面每個來源都寫明瞭原因和辦法：設定 --proxy，選擇鏡像站（--mirror pypi=%1），或使用離線包。</translation>
    </message>
    <message>
        <source>Instead of listing files, test whether PyPI (or the --mirror pypi=…), NVIDIA (or its mirror) and python.org answer, through --proxy, how fast, and rank the PyPI mirror presets. Exit status 0 when every place the setup needs answered.</source>
        <translation>不列出檔案，而是透過 --proxy 測試 PyPI（或 --mirror pypi=…）、NVIDIA（或其鏡像站）和 python.org 是否回應、速度如何，並對 PyPI 預設鏡像站排序。安裝所需的每個來源都回應時結束狀態為 0。</translation>
    </message>
    <message>
        <source>Built-in catalog: version %1 of %2
</source>
        <translation>內建知識庫：版本 %1，日期 %2
</translation>
    </message>
    <message>
        <source>Installed update: none
</source>
        <translation>已安裝的更新：無
</translation>
    </message>
    <message>
        <source>Installed update: does not verify
</source>
        <translation>已安裝的更新：驗證未透過
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
        <translation>正在使用：已安裝的更新
</translation>
    </message>
    <message>
        <source>In use: the built-in catalog
</source>
        <translation>正在使用：內建知識庫
</translation>
    </message>
    <message>
        <source>The catalog is up to date (version %1); nothing was changed.
</source>
        <translation>知識庫已是最新（版本 %1）；沒有做任何更改。
</translation>
    </message>
    <message>
        <source>Take the update from this address or file (a lab mirror, a downloaded copy) instead of tfsetup&apos;s release page.</source>
        <translation>從這個網址或檔案取得更新（實驗室鏡像站、已下載的副本），而不是從 tfsetup 的發布頁面取得。</translation>
    </message>
    <message>
        <source>Show or update the knowledge catalog (TensorFlow&apos;s tested configurations, NVIDIA&apos;s tables, GPUs, sources). Updates are signed; one that does not verify, or is older than the catalog in use, is refused and the catalog in use stays.</source>
        <translation>顯示或更新知識庫（TensorFlow 測試過的配置、NVIDIA 的對照表、GPU、下載來源）。更新經過簽名；驗證不透過或比正在使用的知識庫更舊的更新會被拒絕，並繼續使用現有知識庫。</translation>
    </message>
    <message>
        <source>tfsetup catalog status: --from, --proxy and --ca-bundle belong to &quot;catalog update&quot;.</source>
        <translation>tfsetup catalog status：--from、--proxy 和 --ca-bundle 屬於「catalog update」。</translation>
    </message>
    <message>
        <source>%1 was installed, but its Jupyter kernel could not be registered, so notebooks will not find it. %2 Fix that and run the same install again; it only registers the kernel.</source>
        <translation>%1 已安裝，但它的 Jupyter 核心無法註冊，所以筆記本找不到它。%2 解決這個問題後再執行同樣的安裝；它只會註冊核心。</translation>
    </message>
    <message>
        <source>Only say what would be removed and how much it frees.</source>
        <translation>只說明會刪除什麼、能釋放多少空間。</translation>
    </message>
    <message>
        <source>Remove cached downloads not used for more than DAYS days (default 90; 0: all that nothing refers to).</source>
        <translation>刪除超過 DAYS 天未使用的快取下載檔案（預設 90 天；0：刪除所有不再被引用的檔案）。</translation>
    </message>
    <message>
        <source>Then remove the oldest until the cache is at most SIZE (500M, 20G).</source>
        <translation>然後刪除最舊的檔案，直到快取不超過 SIZE（如 500M、20G）。</translation>
    </message>
    <message>
        <source>The download cache to clean (default: the user&apos;s own).</source>
        <translation>要清理的下載快取（預設：目前使用者自己的快取）。</translation>
    </message>
    <message>
        <source>Keep every file this offline bundle lists (repeatable).</source>
        <translation>保留此離線包列出的每個檔案（可重複指定）。</translation>
    </message>
    <message>
        <source>Free disk space: prune the download cache by age and size, keeping every file an environment or an offline bundle still needs, and remove old run logs.</source>
        <translation>釋放磁碟空間：按時間和大小清理下載快取，保留環境或離線包仍需要的每個檔案，並刪除舊的執行日誌。</translation>
    </message>
    <message>
        <source>--max-age takes a number of days, for example 30.</source>
        <translation>--max-age 需要一個天數，例如 30。</translation>
    </message>
    <message>
        <source>--max-size takes a size, for example 500M or 20G.</source>
        <translation>--max-size 需要一個大小，例如 500M 或 20G。</translation>
    </message>
    <message>
        <source>Upgrade an environment to the newest TensorFlow that fits this machine, keeping your files</source>
        <translation>將環境升級到適合本機的最新 TensorFlow，並保留你的檔案</translation>
    </message>
    <message>
        <source>List the environments tfsetup made, their versions, size and last verify</source>
        <translation>列出 tfsetup 建立的環境及其版本、大小和最近一次驗證</translation>
    </message>
    <message>
        <source>Remove an environment tfsetup made, with its launchers, kernel and menu entry</source>
        <translation>刪除 tfsetup 建立的環境，連同其啟動指令碼、核心和選單項目</translation>
    </message>
    <message>
        <source>Free space: prune the download cache and old logs, keeping what is still needed</source>
        <translation>釋放空間：清理下載快取和舊日誌，保留仍需要的檔案</translation>
    </message>
    <message>
        <source>The NVIDIA GPUs the environment uses, by nvidia-smi&apos;s numbers in the order TensorFlow is to number them (0,2), or all, instead of the profile&apos;s &quot;gpus&quot; (default: those this TensorFlow runs on without a slow first start).</source>
        <translation>環境使用的 NVIDIA GPU：按 nvidia-smi 的編號，按 TensorFlow 要對它們編號的順序列出（如 0,2），或 all；用於代替設定檔中的 &quot;gpus&quot;（預設：此 TensorFlow 無需緩慢首次啟動即可執行的 GPU）。</translation>
    </message>
    <message>
        <source>Choose the GPUs from this report (tfsetup detect --json) instead of detecting this computer.</source>
        <translation>根據此報告（tfsetup detect --json 的輸出）選擇 GPU，而不偵測本機。</translation>
    </message>
    <message>
        <source>The lab profile&apos;s &quot;gpus&quot;</source>
        <translation>實驗室設定檔的 &quot;gpus&quot;</translation>
    </message>
    <message>
        <source>Also look in DIR, an environment or a folder of environments (repeatable).</source>
        <translation>同時在 DIR 中查詢：一個環境或一個存放環境的資料夾（可重複指定）。</translation>
    </message>
    <message>
        <source>Look for newer TensorFlow releases for the machine described in FILE (the output of tfsetup detect --json) instead of this one.</source>
        <translation>為 FILE（tfsetup detect --json 的輸出）所描述的電腦查詢更新的 TensorFlow 版本，而不是本機。</translation>
    </message>
    <message>
        <source>Do not look for newer TensorFlow releases (no hardware detection).</source>
        <translation>不查詢更新的 TensorFlow 版本（不偵測硬體）。</translation>
    </message>
    <message>
        <source>List every environment tfsetup made: route, TensorFlow, Python, CUDA and cuDNN, size on disk, the last verify, and whether a newer TensorFlow fits this machine on the same route.</source>
        <translation>列出 tfsetup 建立的每個環境：路線、TensorFlow、Python、CUDA 和 cuDNN、磁碟佔用、最近一次驗證，以及同一路線上是否有適合本機的更新 TensorFlow。</translation>
    </message>
    <message>
        <source>The environment folder to remove (the one holding environment.json).</source>
        <translation>要刪除的環境資料夾（包含 environment.json 的那個）。</translation>
    </message>
    <message>
        <source>Remove it; without --yes, only say what would be removed.</source>
        <translation>刪除它；不加 --yes 時只說明會刪除什麼。</translation>
    </message>
    <message>
        <source>Remove an environment tfsetup made, with its launchers, Jupyter kernel and menu entry. Only files whose record proves tfsetup made them go; anything else in the folder is kept and named.</source>
        <translation>刪除 tfsetup 建立的環境，連同其啟動指令碼、Jupyter 核心和選單項目。只刪除記錄能證明由 tfsetup 建立的檔案；資料夾中的其他內容會保留並列出。</translation>
    </message>
    <message>
        <source>Give the environment to remove with --env DIR.</source>
        <translation>請用 --env DIR 指定要刪除的環境。</translation>
    </message>
    <message>
        <source>Nothing was removed. Run again with --yes to remove it.</source>
        <translation>沒有刪除任何內容。加上 --yes 再執行一次即可刪除。</translation>
    </message>
    <message>
        <source>The environment folder to upgrade (the one holding environment.json).</source>
        <translation>要升級的環境資料夾（包含 environment.json 的那個）。</translation>
    </message>
    <message>
        <source>Upgrade to TensorFlow VERSION (&quot;2.16&quot;) instead of the newest that fits this machine.</source>
        <translation>升級到 TensorFlow VERSION（如 &quot;2.16&quot;），而不是適合本機的最新版本。</translation>
    </message>
    <message>
        <source>Plan for the machine described in FILE (the output of tfsetup detect --json) instead of detecting this one.</source>
        <translation>為 FILE（tfsetup detect --json 的輸出）所描述的電腦制定方案，而不偵測本機。</translation>
    </message>
    <message>
        <source>Only say what the upgrade would do; change and download nothing.</source>
        <translation>只說明升級會做什麼；不做任何更改，也不下載任何內容。</translation>
    </message>
    <message>
        <source>Do not ask: upgrade now.</source>
        <translation>不再詢問：立即升級。</translation>
    </message>
    <message>
        <source>Do not run verify after the upgrade.</source>
        <translation>升級後不執行驗證。</translation>
    </message>
    <message>
        <source>Upgrade an environment to the newest TensorFlow that runs on this machine on the same route. The new version is built beside the old one and switched in with your files kept; if anything fails, the old one stays as it was. Then the launchers and the Jupyter kernel are written again and the environment is verified.</source>
        <translation>將環境升級到本機在同一路線上能執行的最新 TensorFlow。新版本在舊版本旁邊建置，完成後切換過來，並保留你的檔案；如果任何一步失敗，舊版本保持原樣。然後重新寫入啟動指令碼和 Jupyter 核心，並驗證環境。</translation>
    </message>
    <message>
        <source>Give the environment to upgrade with --env DIR (tfsetup list shows them).</source>
        <translation>請用 --env DIR 指定要升級的環境（tfsetup list 會列出它們）。</translation>
    </message>
    <message>
        <source>%1 is as it was before.</source>
        <translation>%1 保持原樣。</translation>
    </message>
    <message>
        <source>%1 was upgraded to TensorFlow %2, but it did not pass verification. tfsetup doctor --env %1 finds the cause.</source>
        <translation>%1 已升級到 TensorFlow %2，但未通過驗證。執行 tfsetup doctor --env %1 可以找出原因。</translation>
    </message>
    <message>
        <source>Bundle what the lab profile FILE installs: its plan, its extra packages, its Jupyter front end, through its mirrors and proxy (the options here go on top).</source>
        <translation>打包實驗室設定檔 FILE 所安裝的內容：它的方案、額外的包和 Jupyter 前端，經由它的鏡像站和代理（此處的選項在其之上生效）。</translation>
    </message>
    <message>
        <source>Download into DIR and keep verified files there (default: the user&apos;s download cache).</source>
        <translation>下載到 DIR，並把經過驗證的檔案儲存在那裡（預設：使用者的下載快取）。</translation>
    </message>
    <message>
        <source>Leave out the Python packages.</source>
        <translation>不包含 Python 套件。</translation>
    </message>
    <message>
        <source>The Python whose pip chooses the packages (default: python&lt;plan&apos;s version&gt;, else python3).</source>
        <translation>由其 pip 選擇套件的 Python（預設：python&lt;方案的版本&gt;，否則 python3）。</translation>
    </message>
    <message>
        <source>Choose wheels for this platform tag (win_amd64, manylinux2014_x86_64, …) instead of this machine&apos;s. May be repeated.</source>
        <translation>為此平台標籤（win_amd64、manylinux2014_x86_64 等）而不是本機選擇 wheel。可重複使用。</translation>
    </message>
    <message>
        <source>Write a folder with every file a plan needs, their checksums, the Python packages pip&apos;s resolver chose and their lock (pylock.toml), for machines without internet (install --offline --from DIR). Served by any web server, the folder is also a lab mirror.</source>
        <translation>寫出一個資料夾，包含方案所需的每個檔案、它們的校驗和、pip 的解析器選出的 Python 套件及其鎖定檔案（pylock.toml），供沒有網路的電腦使用（install --offline --from DIR）。用任意 Web 伺服器提供該資料夾，它也可作為實驗室鏡像站。</translation>
    </message>
    <message>
        <source>Unknown Jupyter front end %1: use lab, notebook, server or none.</source>
        <translation>未知的 Jupyter 前端 %1：請使用 lab、notebook、server 或 none。</translation>
    </message>
    <message>
        <source>Give --out DIR (or --verify DIR).</source>
        <translation>請給出 --out DIR（或 --verify DIR）。</translation>
    </message>
    <message>
        <source>Fetch NVIDIA&apos;s files from this copy of NVIDIA&apos;s download tree first (URL or folder); pypi=URL or a PyPI preset (pypi=tuna) for the Python packages, asked in the order given. May be repeated.</source>
        <translation>先從 NVIDIA 下載目錄的這個副本（網址或資料夾）取得 NVIDIA 的檔案；pypi=網址 或 PyPI 預設（pypi=tuna）用於 Python 套件，按給出的順序嘗試。可重複使用。</translation>
    </message>
    <message>
        <source>The folder with earlier downloads (default: tfsetup&apos;s download folder); the same as --cache.</source>
        <translation>存放之前下載檔案的資料夾（預設：tfsetup 的下載資料夾）；與 --cache 相同。</translation>
    </message>
    <message>
        <source>A package index to take a damaged Python package&apos;s wheel from when the environment&apos;s lock names none that answers (the same as --mirror pypi=URL; may be repeated).</source>
        <translation>當環境的鎖定檔案中沒有可用的來源時，從該套件索引取得損壞的 Python 套件的 wheel（與 --mirror pypi=網址 相同；可重複使用）。</translation>
    </message>
    <message>
        <source>With --root: open the wizard on this page (%1), for demonstrations and screenshots of a fixture machine.</source>
        <translation>與 --root 一起使用：直接在此頁面（%1）打開向導，用於演示和為模擬測試機器截圖。</translation>
    </message>
    <message>
        <source>tfsetup: --page needs --root and one of: %1.</source>
        <translation>tfsetup：--page 需要同時指定 --root，並取以下值之一：%1。</translation>
    </message>
    <message>
        <source>tfsetup %1: the command line is not complete or not valid; see tfsetup %1 --help.</source>
        <translation>tfsetup %1：命令列不完整或無效；請參閱 tfsetup %1 --help。</translation>
    </message>
    <message>
        <source>tfsetup %1 failed.</source>
        <translation>tfsetup %1 失敗。</translation>
    </message>
    <message>
        <source>Check the Python environment in DIR: a folder tfsetup installed (or its venv), a venv or a conda environment.</source>
        <translation>檢查 DIR 中的 Python 環境：tfsetup 安裝的資料夾（或其中的 venv）、一個 venv 或一個 conda 環境。</translation>
    </message>
    <message>
        <source>--out needs the file to save to, not &quot;%1&quot; (is its value missing?). For a file whose name starts with &quot;-&quot;, write ./%1.</source>
        <translation>--out 需要給出要儲存到的檔案，而不是「%1」（是不是漏寫了它的值？）。檔名以「-」開頭時，請寫成 ./%1。</translation>
    </message>
    <message>
        <source>Give at least one URL, --out FILE, and exactly one of --sha256 or --md5.</source>
        <translation>請至少給出一個 URL、--out FILE，並且在 --sha256 和 --md5 中恰好給出一個。</translation>
    </message>
    <message>
        <source>Nothing was installed: add --yes to install &quot;%1&quot; (TensorFlow %2, %3) into %4.</source>
        <translation>沒有安裝任何內容：加上 --yes 才會把「%1」（TensorFlow %2，%3）安裝到 %4。</translation>
    </message>
    <message>
        <source>Run again with --yes to install.</source>
        <translation>請加上 --yes 重新執行以進行安裝。</translation>
    </message>
    <message>
        <source>No TensorFlow / CUDA / cuDNN / Python combination fits this machine with these options; each rejected one says why.</source>
        <translation>在這些選項下，沒有適合本機的 TensorFlow / CUDA / cuDNN / Python 組合；每個被拒絕的組合都說明了原因。</translation>
    </message>
    <message>
        <source>Give --plan FILE, or all of --tf VERSION, --os windows|linux and --route ROUTE.</source>
        <translation>請給出 --plan FILE，或者同時給出 --tf VERSION、--os windows|linux 和 --route ROUTE。</translation>
    </message>
    <message>
        <source>Run again with --yes to upgrade.</source>
        <translation>請加上 --yes 重新執行以進行升級。</translation>
    </message>
    <message>
        <source>The environment did not pass verification: %1: %2</source>
        <translation>環境未通過驗證：%1：%2</translation>
    </message>
    <message>
        <source>The environment did not pass verification.</source>
        <translation>環境未通過驗證。</translation>
    </message>
    <message>
        <source>tfsetup&apos;s release key</source>
        <translation>tfsetup 的發布金鑰</translation>
    </message>
    <message>
        <source>the lab key &quot;%1&quot; (%2)</source>
        <translation>實驗室金鑰「%1」（%2）</translation>
    </message>
    <message>
        <source>Installed update: version %1 of %2, from %3, installed %4; signed with %5, its signature verifies
</source>
        <translation>已安裝的更新：版本 %1（%2），來自 %3，安裝於 %4；由%5簽名，簽名驗證通過
</translation>
    </message>
    <message>
        <source>Trusted lab keys: none (updates signed by tfsetup&apos;s release key only)
</source>
        <translation>受信任的實驗室金鑰：無（只接受 tfsetup 發布金鑰簽名的更新）
</translation>
    </message>
    <message>
        <source>Trusted lab key: &quot;%1&quot; (%2), added %3
</source>
        <translation>受信任的實驗室金鑰：「%1」（%2），添加於 %3
</translation>
    </message>
    <message>
        <source>tfsetup&apos;s release page has not published a catalog update yet (%1 answers &quot;not found&quot;). The built-in catalog (version %2) stays in use; nothing was changed.
A lab can publish its own signed catalog: sign it with the lab&apos;s key (resources/catalog/sign_catalog.py), have an administrator run &quot;tfsetup catalog trust&quot; with the lab&apos;s public key, then take it with &quot;tfsetup catalog update --from URL&quot; or set catalog/updateFrom in tfsetup&apos;s settings.
</source>
        <translation>tfsetup 的發布頁面還沒有發布知識函式庫更新（%1 回答「未找到」）。繼續使用內建知識函式庫（版本 %2），沒有做任何更改。
實驗室可以發布自己簽名的知識函式庫：用實驗室金鑰簽名（resources/catalog/sign_catalog.py），請管理員用實驗室公鑰執行 &quot;tfsetup catalog trust&quot;，然後用 &quot;tfsetup catalog update --from URL&quot; 取得，或在 tfsetup 的設定中設定 catalog/updateFrom。
</translation>
    </message>
    <message>
        <source>Installed catalog update version %1 of %2 from %3, signed with %4. tfsetup uses it from now on.
</source>
        <translation>已從 %3 安裝知識函式庫更新版本 %1（%2），由%4簽名。tfsetup 從現在起使用它。
</translation>
    </message>
    <message>
        <source>The public key file</source>
        <translation>公鑰檔案</translation>
    </message>
    <message>
        <source>Trusted the lab key &quot;%1&quot; (%2) on this computer: recorded in %3. Every account of this computer now accepts catalog updates signed with it (&quot;tfsetup catalog update --from URL&quot;).
</source>
        <translation>這台電腦已信任實驗室金鑰「%1」（%2）：記錄在 %3。這台電腦的所有賬戶現在都接受用它簽名的知識函式庫更新（&quot;tfsetup catalog update --from URL&quot;）。
</translation>
    </message>
    <message>
        <source>The lab key &quot;%1&quot; (%2) is no longer trusted on this computer; a catalog update it signed is no longer used.
</source>
        <translation>這台電腦不再信任實驗室金鑰「%1」（%2）；它簽名的知識函式庫更新不再使用。
</translation>
    </message>
    <message>
        <source>status: which catalog is in use, whether the installed update verifies and which lab keys are trusted; update: fetch, check and install a signed catalog update; trust KEY: trust a lab&apos;s public key (PEM file or 64 hex digits) on this computer, as an administrator; untrust KEY_ID: stop trusting it.</source>
        <translation>status：正在使用哪個知識函式庫、已安裝的更新能否通過驗證、信任了哪些實驗室金鑰；update：取得、檢查並安裝已簽名的知識函式庫更新；trust KEY：以管理員身份在這台電腦上信任實驗室公鑰（PEM 檔案或 64 位十六進位數字）；untrust KEY_ID：不再信任它。</translation>
    </message>
    <message>
        <source>With trust: the lab key&apos;s name, shown by &quot;catalog status&quot;.</source>
        <translation>用於 trust：實驗室金鑰的名稱，由 &quot;catalog status&quot; 顯示。</translation>
    </message>
    <message>
        <source>tfsetup catalog trust: give the lab&apos;s public key, for example &quot;sudo tfsetup catalog trust lab-public.pem --name Lab&quot;.</source>
        <translation>tfsetup catalog trust：請給出實驗室公鑰，例如 &quot;sudo tfsetup catalog trust lab-public.pem --name Lab&quot;。</translation>
    </message>
    <message>
        <source>tfsetup catalog untrust: give the key id &quot;tfsetup catalog status&quot; lists.</source>
        <translation>tfsetup catalog untrust：請給出 &quot;tfsetup catalog status&quot; 列出的金鑰 ID。</translation>
    </message>
    <message>
        <source>tfsetup catalog %1: --from, --proxy and --ca-bundle belong to &quot;catalog update&quot;, --name to &quot;catalog trust&quot;.</source>
        <translation>tfsetup catalog %1：--from、--proxy 和 --ca-bundle 屬於 &quot;catalog update&quot;，--name 屬於 &quot;catalog trust&quot;。</translation>
    </message>
    <message>
        <source>tfsetup catalog: say status, update, trust or untrust, for example &quot;tfsetup catalog status&quot;.</source>
        <translation>tfsetup catalog：請給出 status、update、trust 或 untrust，例如 &quot;tfsetup catalog status&quot;。</translation>
    </message>
    <message>
        <source>tfsetup catalog %1: --name belongs to &quot;catalog trust&quot;.</source>
        <translation>tfsetup catalog %1：--name 屬於 &quot;catalog trust&quot;。</translation>
    </message>
    <message>
        <source>Show the knowledge catalog in use, install a signed catalog update, or trust a lab&apos;s catalog key</source>
        <translation>顯示正在使用的知識函式庫、安裝已簽名的知識函式庫更新，或信任實驗室的知識函式庫金鑰</translation>
    </message>
    <message>
        <source>--hardware describes the machine already: leave out --root and --env-file, or leave out --hardware to detect the folder --root gives.</source>
        <translation>--hardware 已經描述了這台機器：請去掉 --root 和 --env-file，或者去掉 --hardware，改為偵測 --root 給出的資料夾。</translation>
    </message>
</context>
<context>
    <name>Confined</name>
    <message>
        <source>tfsetup does not write %1: the way there leads through a link (or a file stands where a folder belongs), so the write could land outside the folder it belongs to. Remove the link or the file, or choose another folder, then try again.</source>
        <translation>tfsetup 不會寫入 %1：通往它的路徑經過一個連結（或在應為資料夾的位置有一個檔案），寫入可能落到它所屬資料夾之外。請刪除該連結或檔案，或選擇其他資料夾，然後重試。</translation>
    </message>
    <message>
        <source>Cannot write %1. Check the free space and that the folder is yours, then try again.</source>
        <translation>無法寫入 %1。請檢查可用空間以及該資料夾是否屬於你，然後重試。</translation>
    </message>
    <message>
        <source>Cannot read %1. Check that the file is there and that you may read it.</source>
        <translation>無法讀取 %1。請檢查檔案是否存在以及你是否有讀取權限。</translation>
    </message>
    <message>
        <source>You may not write %1. Choose a folder that is yours, or ask its owner for write permission.</source>
        <translation>你沒有寫入 %1 的權限。請選擇屬於你的資料夾，或請其所有者授予寫入權限。</translation>
    </message>
    <message>
        <source>The disk holding %1 is full (or your disk quota is used up). Free some space, then try again.</source>
        <translation>%1 所在的磁碟已滿（或你的磁碟配額已用完）。請釋放一些空間，然後重試。</translation>
    </message>
    <message>
        <source>%1 is a link to another file. tfsetup does not write through links: give the path of a new file, or of a plain file to replace.</source>
        <translation>%1 是指向另一個檔案的連結。tfsetup 不會透過連結寫入：請給出一個新檔案的路徑，或一個要替換的普通檔案的路徑。</translation>
    </message>
    <message>
        <source>%1 is not a plain file (a folder, a device or a pipe), so tfsetup does not write there. Give the path of a new file.</source>
        <translation>%1 不是普通檔案（而是資料夾、裝置或管道），tfsetup 不會寫入那裡。請給出一個新檔案的路徑。</translation>
    </message>
    <message>
        <source>The folder of %1 does not exist. Choose a folder that exists.</source>
        <translation>%1 所在的資料夾不存在。請選擇一個已存在的資料夾。</translation>
    </message>
</context>
<context>
    <name>ConfinedRemove</name>
    <message>
        <source>%1 lies behind a link that tfsetup did not make; nothing was removed through it.</source>
        <translation>%1 位於一個不是 tfsetup 建立的連結之後；沒有透過它刪除任何內容。</translation>
    </message>
    <message>
        <source>%1 cannot be removed: permission denied. Close the programs that use it and try again.</source>
        <translation>無法刪除 %1：權限被拒絕。請關閉正在使用它的程式後重試。</translation>
    </message>
    <message>
        <source>The folder %1 is not empty.</source>
        <translation>資料夾 %1 不是空的。</translation>
    </message>
    <message>
        <source>%1 does not exist.</source>
        <translation>%1 不存在。</translation>
    </message>
    <message>
        <source>%1 is a folder, not a file.</source>
        <translation>%1 是資料夾，不是檔案。</translation>
    </message>
    <message>
        <source>%1 could not be removed. Close the programs that use it and try again.</source>
        <translation>無法刪除 %1。請關閉正在使用它的程式後重試。</translation>
    </message>
</context>
<context>
    <name>CudaDriver</name>
    <message>
        <source>The NVIDIA driver&apos;s CUDA library is too old or damaged. Update or reinstall the NVIDIA driver.</source>
        <translation>NVIDIA 驅動程式中的 CUDA 函式庫版本過舊或已損壞。請更新或重新安裝 NVIDIA 驅動程式。</translation>
    </message>
    <message>
        <source>CUDA cannot start on this computer. Make sure an NVIDIA GPU is present and enabled, and install or update its driver.</source>
        <translation>這台電腦無法啟動 CUDA。請確認電腦裝有 NVIDIA 顯示卡（GPU）且已啟用，然後安裝或更新它的驅動程式。</translation>
    </message>
    <message>
        <source>CUDA could not list the GPUs. Restart the computer; if that does not help, reinstall the NVIDIA driver.</source>
        <translation>CUDA 無法列出 GPU。請重新啟動電腦；如果仍然不行，請重新安裝 NVIDIA 驅動程式。</translation>
    </message>
</context>
<context>
    <name>DiskSpaceCheck</name>
    <message>
        <source>Not enough free disk space: %1 needs about %2 MB for %3, but only %4 MB are free there. Free %5 MB or choose a folder on another disk, then try again.</source>
        <translation>磁碟空間不足：%1 需要約 %2 MB 用於%3，但那裡只剩 %4 MB。請釋放 %5 MB，或選擇另一個磁碟上的資料夾，然後重試。</translation>
    </message>
    <message>
        <source>the downloads</source>
        <translation>下載的檔案</translation>
    </message>
    <message>
        <source>the unpacked libraries</source>
        <translation>解壓縮後的函式庫</translation>
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
        <translation>，約剩 %1</translation>
    </message>
    <message>
        <source> — %1</source>
        <translation> — %1</translation>
    </message>
    <message>
        <source> — %1 from %2</source>
        <translation> — %1，來自 %2</translation>
    </message>
</context>
<context>
    <name>EnvironmentIndex</name>
    <message>
        <source>The list of environments</source>
        <translation>環境清單</translation>
    </message>
    <message>
        <source>The list of environments in %1 cannot be written. Check that the folder is yours and not full.</source>
        <translation>無法寫入 %1 中的環境清單。請檢查該資料夾是否屬於你、磁碟是否已滿。</translation>
    </message>
    <message>
        <source>Another tfsetup is changing the list of environments. Try again in a moment.</source>
        <translation>另一個 tfsetup 正在修改環境清單。請稍後再試。</translation>
    </message>
</context>
<context>
    <name>EnvironmentInfo</name>
    <message>
        <source>The environment folder %1 does not exist. Give the folder tfsetup installed into.</source>
        <translation>環境資料夾 %1 不存在。請指定 tfsetup 安裝到的資料夾。</translation>
    </message>
    <message>
        <source>%1 is damaged (not a JSON object). Run tfsetup repair --env %2.</source>
        <translation>%1 已損壞（不是 JSON 物件）。請執行 tfsetup repair --env %2。</translation>
    </message>
    <message>
        <source>%1 has neither an environment.json nor a start-python launcher, so it is not an environment tfsetup made. Give the right folder, or name a launcher with --launcher.</source>
        <translation>%1 中既沒有 environment.json，也沒有 start-python 啟動指令碼，因此它不是 tfsetup 建立的環境。請指定正確的資料夾，或用 --launcher 指定啟動指令碼。</translation>
    </message>
</context>
<context>
    <name>EnvironmentListing</name>
    <message>
        <source>Its removal was stopped midway. Remove it again to finish.</source>
        <translation>它的刪除在中途被中斷。請再刪除一次以完成。</translation>
    </message>
    <message>
        <source>The folder is gone (moved or deleted by hand).</source>
        <translation>資料夾不見了（被手動移動或刪除）。</translation>
    </message>
    <message>
        <source>The folder is now a link to another place; tfsetup does not follow it.</source>
        <translation>該資料夾現在是指向別處的連結；tfsetup 不會跟隨它。</translation>
    </message>
    <message numerus="yes">
        <source>%n recorded file(s) are missing or changed. Repair restores them.</source>
        <translation>
            <numerusform>有 %n 個已記錄的檔案丟失或被更改。修復可以恢復它們。</numerusform>
        </translation>
    </message>
    <message>
        <source>No environment made by tfsetup was found.</source>
        <translation>沒有找到 tfsetup 建立的環境。</translation>
    </message>
    <message>
        <source>none</source>
        <translation>無</translation>
    </message>
    <message>
        <source>TensorFlow %1 on %2, Python %3, CUDA %4, cuDNN %5</source>
        <translation>TensorFlow %1，路線 %2，Python %3，CUDA %4，cuDNN %5</translation>
    </message>
    <message>
        <source>Size on disk: %1</source>
        <translation>磁碟佔用：%1</translation>
    </message>
    <message>
        <source>Last verified %1: passed</source>
        <translation>最近一次驗證 %1：透過</translation>
    </message>
    <message>
        <source>Last verified %1: failed (%2)</source>
        <translation>最近一次驗證 %1：失敗（%2）</translation>
    </message>
    <message>
        <source>Not verified since it was installed.</source>
        <translation>安裝後尚未驗證。</translation>
    </message>
    <message>
        <source>TensorFlow %1 fits this machine on the same route.</source>
        <translation>TensorFlow %1 在同一路線上適合本機。</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>TensorFlow %1 on %2, Python %3, CUDA %4, cuDNN %5 (from pip&apos;s nvidia-* wheels)</source>
        <translation>TensorFlow %1，%2，Python %3，CUDA %4，cuDNN %5（來自 pip 的 nvidia-* wheel 檔案）</translation>
    </message>
</context>
<context>
    <name>EnvironmentRecord</name>
    <message>
        <source>This environment was made by a newer tfsetup. Update tfsetup to change it.</source>
        <translation>此環境是由更新版本的 tfsetup 建立的。請先更新 tfsetup 再修改它。</translation>
    </message>
    <message>
        <source>The environment record is damaged. Install the environment again.</source>
        <translation>環境記錄已損壞。請重新安裝該環境。</translation>
    </message>
    <message>
        <source>This folder has no environment record. Install the environment again.</source>
        <translation>此資料夾中沒有環境記錄。請重新安裝該環境。</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>none (this environment runs on the CPU)</source>
        <translation>無（此環境在 CPU 上執行）</translation>
    </message>
    <message>
        <source>TensorFlow environment &quot;%1&quot;</source>
        <translation>TensorFlow 環境「%1」</translation>
    </message>
    <message>
        <source>Paste this into a help request: it says what was installed.</source>
        <translation>尋求協助時請貼上以下內容：它說明了安裝了哪些東西。</translation>
    </message>
    <message>
        <source>Operating system</source>
        <translation>作業系統</translation>
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
        <translation>NVIDIA 驅動程式</translation>
    </message>
    <message>
        <source>Route</source>
        <translation>路線</translation>
    </message>
    <message>
        <source>Installed</source>
        <translation>安裝時間</translation>
    </message>
    <message>
        <source>tfsetup</source>
        <translation>tfsetup</translation>
    </message>
    <message>
        <source>must be a path inside the environment folder (no &quot;..&quot;, not absolute)</source>
        <translation>必須是環境資料夾內的路徑（不含「..」，不是絕對路徑）</translation>
    </message>
    <message>
        <source>must be 64 lower-case hexadecimal digits</source>
        <translation>必須是 64 位小寫十六進位數字</translation>
    </message>
    <message>
        <source>must be a Jupyter kernel folder (…/kernels/NAME)</source>
        <translation>必須是 Jupyter 核心資料夾（…/kernels/名稱）</translation>
    </message>
    <message>
        <source>The environment record</source>
        <translation>環境記錄</translation>
    </message>
    <message>
        <source>Install the environment again.</source>
        <translation>請重新安裝該環境。</translation>
    </message>
    <message>
        <source>from pip&apos;s nvidia-* wheels (version not recorded)</source>
        <translation>來自 pip 的 nvidia-* wheel 檔案（未記錄版本）</translation>
    </message>
    <message>
        <source>%1 (from pip&apos;s nvidia-* wheels)</source>
        <translation>%1（來自 pip 的 nvidia-* wheel 檔案）</translation>
    </message>
</context>
<context>
    <name>FirstUse</name>
    <message>
        <source>The download of %1 was cancelled.</source>
        <translation>%1 的下載已取消。</translation>
    </message>
    <message>
        <source>%1 could not be downloaded from any source.</source>
        <translation>無法從任何來源下載 %1。</translation>
    </message>
    <message>
        <source>Check the connection and the mirrors.</source>
        <translation>請檢查網路連線和鏡像站。</translation>
    </message>
</context>
<context>
    <name>GpuChoice</name>
    <message>
        <source>%1 takes &quot;default&quot;, &quot;all&quot; or GPU numbers as nvidia-smi shows them, separated by commas (such as 0,2); &quot;%2&quot; is none of these.</source>
        <translation>%1 只接受 &quot;default&quot;、&quot;all&quot; 或按 nvidia-smi 顯示的 GPU 編號（用逗號分隔，如 0,2）；&quot;%2&quot; 都不是。</translation>
    </message>
    <message>
        <source>%1 names GPU %2 twice.</source>
        <translation>%1 兩次指定了 GPU %2。</translation>
    </message>
    <message>
        <source>must be &quot;default&quot;, &quot;all&quot; or a list of GPU numbers as nvidia-smi shows them, such as [0, 2]</source>
        <translation>必須是 &quot;default&quot;、&quot;all&quot; 或按 nvidia-smi 顯示的 GPU 編號清單，例如 [0, 2]</translation>
    </message>
    <message>
        <source>must name at least one GPU (or be &quot;all&quot;)</source>
        <translation>必須至少指定一個 GPU（或為 &quot;all&quot;）</translation>
    </message>
    <message>
        <source>names GPU %1 twice</source>
        <translation>兩次指定了 GPU %1</translation>
    </message>
    <message>
        <source>%1 names GPU %2, but this computer&apos;s NVIDIA GPUs are %3 (as nvidia-smi numbers them).</source>
        <translation>%1 指定了 GPU %2，但本機的 NVIDIA GPU 是 %3（按 nvidia-smi 的編號）。</translation>
    </message>
    <message>
        <source>%1 names %2, which TensorFlow %3 cannot use: %4 Leave it out.</source>
        <translation>%1 指定了 %2，而 TensorFlow %3 無法使用它：%4 請將它去掉。</translation>
    </message>
    <message>
        <source>GPU %1, %2</source>
        <translation>GPU %1，%2</translation>
    </message>
    <message>
        <source>GPU %1, %2 (compute capability %3)</source>
        <translation>GPU %1，%2（運算能力 %3）</translation>
    </message>
    <message>
        <source>The environment uses GPUs %1 (CUDA_VISIBLE_DEVICES).</source>
        <translation>該環境使用 GPU %1（CUDA_VISIBLE_DEVICES）。</translation>
    </message>
    <message>
        <source>The environment uses %1 (CUDA_VISIBLE_DEVICES=%2).</source>
        <translation>該環境使用 %1（CUDA_VISIBLE_DEVICES=%2）。</translation>
    </message>
    <message>
        <source>%1 is left out: %2</source>
        <translation>%1 未被使用：%2</translation>
    </message>
    <message>
        <source>%1 is left out: it was not chosen.</source>
        <translation>%1 未被使用：沒有選擇它。</translation>
    </message>
    <message>
        <source>No NVIDIA GPU of this computer can be used by this TensorFlow: it will run on the processor.</source>
        <translation>這個 TensorFlow 無法使用本機的任何 NVIDIA GPU：它將在處理器上執行。</translation>
    </message>
</context>
<context>
    <name>GpuTable</name>
    <message>
        <source>Cannot read the GPU table %1. Reinstall tfsetup or point it at a readable catalog.</source>
        <translation>無法讀取 GPU 資料表 %1。請重新安裝 tfsetup，或為它指定一個可讀取的知識庫。</translation>
    </message>
    <message>
        <source>The GPU table %1 is not valid JSON. Reinstall tfsetup or fix the catalog file.</source>
        <translation>GPU 資料表 %1 不是有效的 JSON。請重新安裝 tfsetup 或修復該知識庫檔案。</translation>
    </message>
    <message>
        <source>The GPU table %1 has a format this version of tfsetup does not know. Use the catalog that came with it.</source>
        <translation>GPU 資料表 %1 的格式是此版本 tfsetup 無法識別的。請使用 tfsetup 自帶的知識庫。</translation>
    </message>
    <message>
        <source>A record of the GPU table %1 lacks a name or a source. Fix the catalog file.</source>
        <translation>GPU 資料表 %1 中有一條記錄缺少名稱或來源。請修復該知識庫檔案。</translation>
    </message>
</context>
<context>
    <name>HardwareReport</name>
    <message>
        <source>Give the output of tfsetup detect --json.</source>
        <translation>請提供 tfsetup detect --json 的輸出。</translation>
    </message>
</context>
<context>
    <name>InputFile</name>
    <message>
        <source>%1 %2 is larger than %3 MB, more than such a file ever holds. Check that you gave the right file.</source>
        <translation>%1 %2 大於 %3 MB，超出了此類檔案可能的大小。請確認你給出的檔案是否正確。</translation>
    </message>
    <message>
        <source>%1 %2 does not exist. Check the path.</source>
        <translation>%1 %2 不存在。請檢查路徑。</translation>
    </message>
    <message>
        <source>%1 %2 is not a plain file (it is a folder, a device or a pipe). Give the path of the file itself.</source>
        <translation>%1 %2 不是普通檔案（它是資料夾、裝置或管道）。請給出檔案本身的路徑。</translation>
    </message>
    <message>
        <source>%1 %2 cannot be read. Check that it is yours to read.</source>
        <translation>無法讀取 %1 %2。請確認你有權讀取它。</translation>
    </message>
    <message>
        <source>%1 cannot be read from standard input.</source>
        <translation>無法從標準輸入讀取 %1。</translation>
    </message>
    <message>
        <source>%1 %2 is not a JSON object. Give a file that tfsetup wrote, or correct it.</source>
        <translation>%1 %2 不是 JSON 物件。請提供由 tfsetup 寫出的檔案，或者修正它。</translation>
    </message>
    <message>
        <source>%1 %2 gives the field &quot;%3&quot; twice, so it is unclear which one counts. Remove one of them, or give a file that tfsetup wrote.</source>
        <translation>%1 %2 中欄位「%3」出現了兩次，無法確定以哪一個為準。請刪除其中一個，或提供由 tfsetup 寫出的檔案。</translation>
    </message>
</context>
<context>
    <name>Installer</name>
    <message>
        <source>The install was cancelled. Nothing was changed.</source>
        <translation>安裝已取消。沒有做任何更改。</translation>
    </message>
    <message>
        <source>Cannot write %1. Check the free space and that the install folder is yours.</source>
        <translation>無法寫入 %1。請檢查剩餘空間，並確認安裝資料夾屬於你自己。</translation>
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
        <translation>必須是文字</translation>
    </message>
    <message>
        <source>is longer than %1 characters</source>
        <translation>長度超過 %1 個字元</translation>
    </message>
    <message>
        <source>must be true or false</source>
        <translation>必須是 true 或 false</translation>
    </message>
    <message>
        <source>must be a number</source>
        <translation>必須是數字</translation>
    </message>
    <message>
        <source>must be a whole number from %1 to %2</source>
        <translation>必須是 %1 到 %2 之間的整數</translation>
    </message>
    <message>
        <source>must be a list</source>
        <translation>必須是清單</translation>
    </message>
    <message>
        <source>has more than %1 entries</source>
        <translation>條目超過 %1 個</translation>
    </message>
    <message>
        <source>must be an object</source>
        <translation>必須是物件</translation>
    </message>
    <message>
        <source>is missing</source>
        <translation>缺失</translation>
    </message>
    <message>
        <source>%1 cannot be used: it %2. %3</source>
        <translation>%1 無法使用：它%2。%3</translation>
    </message>
    <message>
        <source>%1 cannot be used: its field &quot;%2&quot; %3. %4</source>
        <translation>%1 無法使用：其欄位「%2」%3。%4</translation>
    </message>
</context>
<context>
    <name>Knowledge</name>
    <message>
        <source>%1 of the catalog update (version %2)</source>
        <translation>知識庫更新（版本 %2）中的 %1</translation>
    </message>
    <message>
        <source>The knowledge catalog file %1 cannot be read. Reinstall tfsetup, or check the catalog folder you gave.</source>
        <translation>無法讀取知識庫檔案 %1。請重新安裝 tfsetup，或檢查你指定的知識庫資料夾。</translation>
    </message>
    <message>
        <source>The placement rules are damaged. Reinstall tfsetup.</source>
        <translation>放置規則已損壞。請重新安裝 tfsetup。</translation>
    </message>
    <message>
        <source>The library version table %1 cannot be read; the program files are damaged, reinstall tfsetup.</source>
        <translation>無法讀取函式庫版本表 %1；程式檔案已損壞，請重新安裝 tfsetup。</translation>
    </message>
    <message>
        <source>tfsetup&apos;s knowledge catalog was not loaded, so nothing was changed. Start tfsetup again; if this repeats, reinstall it.</source>
        <translation>tfsetup 的知識庫沒有載入，因此沒有做任何更改。請重新啟動 tfsetup；如果仍然如此，請重新安裝 tfsetup。</translation>
    </message>
</context>
<context>
    <name>LabProfile</name>
    <message>
        <source>The lab profile %1 cannot be read or is not valid JSON. Ask the lab administrator for a working copy.</source>
        <translation>無法讀取實驗室設定檔 %1，或它不是有效的 JSON。請向實驗室管理員索取一份可用的副本。</translation>
    </message>
    <message>
        <source>The lab profile %1 is for another version of tfsetup. Update tfsetup.</source>
        <translation>實驗室設定檔 %1 是為另一個版本的 tfsetup 編寫的。請更新 tfsetup。</translation>
    </message>
    <message>
        <source>The lab profile %1 needs &quot;environment&quot; (letters, digits, . _ + -), &quot;installFolder&quot;, &quot;plan.route&quot; and &quot;plan.requirements&quot;.</source>
        <translation>實驗室設定檔 %1 需要包含 &quot;environment&quot;（字母、數字及 . _ + -）、&quot;installFolder&quot;、&quot;plan.route&quot; 和 &quot;plan.requirements&quot;。</translation>
    </message>
    <message>
        <source>The lab profile names the lock file %1, which cannot be read. Put it beside the profile.</source>
        <translation>實驗室設定檔指定了鎖定檔案 %1，但無法讀取該檔案。請把它放在設定檔旁邊。</translation>
    </message>
    <message>
        <source>No Python %1 was found on PATH. Install it, or name the interpreter in the profile&apos;s &quot;interpreter&quot;.</source>
        <translation>在 PATH 中沒有找到 Python %1。請安裝它，或在設定檔的 &quot;interpreter&quot; 中指定直譯器。</translation>
    </message>
    <message>
        <source>The offline bundle %1 lacks %2. Make the bundle again.</source>
        <translation>離線包 %1 缺少 %2。請重新生成離線包。</translation>
    </message>
    <message>
        <source>must be a plain name (letters, digits, . _ + -, not starting with a dot, no slashes)</source>
        <translation>必須是一個普通名稱（字母、數字、. _ + -，不以點開頭，不含斜槓）</translation>
    </message>
    <message>
        <source>The lab profile</source>
        <translation>實驗室設定檔</translation>
    </message>
    <message>
        <source>The lab profile %1</source>
        <translation>實驗室設定檔 %1</translation>
    </message>
    <message>
        <source>Correct the profile, or ask the lab administrator for a working copy.</source>
        <translation>請修正設定檔，或向實驗室管理員索取一份可用的副本。</translation>
    </message>
    <message>
        <source>The lab profile %1 asks for the Jupyter front end %2; use one of %3, true or false.</source>
        <translation>實驗室設定檔 %1 要求使用 Jupyter 前端 %2；請使用 %3、true 或 false 之一。</translation>
    </message>
    <message>
        <source>The lab profile&apos;s &quot;%1&quot; uses %2, which is not set on this computer. Set it, or change &quot;%1&quot; in the profile.</source>
        <translation>實驗室設定檔中的「%1」使用了 %2，而這台電腦上沒有設定它。請設定它，或修改設定檔中的「%1」。</translation>
    </message>
    <message>
        <source>The lab profile&apos;s &quot;%1&quot; is %2, which is not a full path. Give a full path (it may start with ${HOME} or ~).</source>
        <translation>實驗室設定檔中的「%1」是 %2，這不是完整路徑。請給出完整路徑（可以以 ${HOME} 或 ~ 開頭）。</translation>
    </message>
    <message>
        <source>The install folder %1 is not a full path. Give a full path.</source>
        <translation>安裝資料夾 %1 不是完整路徑。請給出完整路徑。</translation>
    </message>
    <message>
        <source>The lock file</source>
        <translation>鎖定檔案</translation>
    </message>
    <message>
        <source>must be a folder without control characters (no line break, no NUL)</source>
        <translation>必須是不含控制字元（沒有換行、沒有 NUL）的資料夾</translation>
    </message>
    <message>
        <source>The lab profile&apos;s &quot;%1&quot; becomes a folder with a control character in it (a line break?), from %2. Correct &quot;%1&quot; in the profile, or the variable it uses.</source>
        <translation>實驗室設定檔的「%1」得到的資料夾中含有控制字元（換行？），來自 %2。請更正設定檔中的「%1」或它所用的變數。</translation>
    </message>
    <message>
        <source>must be a name Jupyter lists: lower-case letters a-z, digits, . _ - only</source>
        <translation>必須是 Jupyter 能列出的名稱：只能用小寫字母 a-z、數字和 . _ -</translation>
    </message>
</context>
<context>
    <name>LauncherWriter</name>
    <message>
        <source>The launcher templates inside tfsetup are damaged. Reinstall tfsetup.</source>
        <translation>tfsetup 內建的啟動指令碼範本已損壞。請重新安裝 tfsetup。</translation>
    </message>
    <message>
        <source>The value of %1 cannot be written into a Windows batch file. Choose a folder whose name has no double quote.</source>
        <translation>%1 的值無法寫入 Windows 批次檔。請選擇名稱中不含雙引號的資料夾。</translation>
    </message>
    <message>
        <source>A shell with this TensorFlow environment&apos;s Python and CUDA libraries first</source>
        <translation>一個優先使用此 TensorFlow 環境中的 Python 和 CUDA 函式庫的命令列視窗</translation>
    </message>
    <message>
        <source>This environment has no Jupyter server (%1). Run tfsetup again with Jupyter chosen, or install JupyterLab into the environment.</source>
        <translation>此環境中沒有 Jupyter 伺服器（%1）。請再次執行 tfsetup 並選擇 Jupyter，或者在該環境中安裝 JupyterLab。</translation>
    </message>
    <message>
        <source>a control character (such as a line break)</source>
        <translation>控制字元（例如換行符）</translation>
    </message>
    <message>
        <source>The environment folder %1 has %2 in its path. Windows reads &quot;;&quot; in PATH as the end of one folder, and a batch file cannot hold a double quote, so the environment&apos;s launchers and Jupyter kernel could not find its own libraries. Choose a folder without it.</source>
        <translation>環境資料夾 %1 的路徑中含有 %2。Windows 會把 PATH 中的 &quot;;&quot; 當作一個資料夾的結尾，批次檔也無法容納雙引號，因此環境的啟動指令碼和 Jupyter 核心將找不到它自己的函式庫。請選擇一個路徑中不含該字元的資料夾。</translation>
    </message>
    <message>
        <source>The environment folder %1 has %2 in its path. PATH and LD_LIBRARY_PATH read &quot;:&quot; as the end of one folder, so the environment&apos;s launchers and Jupyter kernel could not find its own libraries. Choose a folder without it.</source>
        <translation>環境資料夾 %1 的路徑中含有 %2。PATH 和 LD_LIBRARY_PATH 會把 &quot;:&quot; 當作一個資料夾的結尾，因此環境的啟動指令碼和 Jupyter 核心將找不到它自己的函式庫。請選擇一個路徑中不含該字元的資料夾。</translation>
    </message>
    <message>
        <source>The Jupyter kernel &quot;%1&quot; belongs to the environment in %2, which keeps it; this environment&apos;s kernel is registered as &quot;%3&quot;.</source>
        <translation>Jupyter 核心「%1」屬於 %2 中的環境，仍由它保留；本環境的核心註冊為「%3」。</translation>
    </message>
    <message>
        <source>The Jupyter kernels &quot;%1&quot; and &quot;%2&quot; belong to other environments (%3), which keep them; this environment&apos;s kernel was not registered. Install it again with another kernel name.</source>
        <translation>Jupyter 核心「%1」和「%2」屬於其他環境（%3），仍由它們保留；本環境的核心未註冊。請用另一個核心名稱重新安裝。</translation>
    </message>
</context>
<context>
    <name>MirrorSet</name>
    <message>
        <source>The mirror &quot;%1&quot; is not a valid address. Give an http(s):// or file:// URL or a folder.</source>
        <translation>鏡像站「%1」不是有效的網址。請提供 http(s):// 或 file:// URL，或者一個資料夾。</translation>
    </message>
    <message>
        <source>The mirror folder &quot;%1&quot; does not exist. Check the path, or give an http(s):// URL.</source>
        <translation>鏡像資料夾「%1」不存在。請檢查路徑，或提供一個 http(s):// URL。</translation>
    </message>
    <message>
        <source>Unknown mirror kind &quot;%1&quot;: use nvidia=, python=, python-build-standalone= or pypi=.</source>
        <translation>未知的鏡像站類型「%1」：請使用 nvidia=、python=、python-build-standalone= 或 pypi=。</translation>
    </message>
</context>
<context>
    <name>NetworkError</name>
    <message>
        <source>The server&apos;s name could not be resolved while fetching %1: this computer is offline, or its network reaches the internet only through a proxy. Check the connection, or set the proxy.</source>
        <translation>下載 %1 時無法解析伺服器名稱：這台電腦沒有連網，或者它的網路只能透過代理訪問網際網路。請檢查網路連線，或設定代理。</translation>
    </message>
    <message>
        <source>The server refused the connection or could not be reached for %1. Check the internet connection and the proxy setting, or choose a mirror.</source>
        <translation>伺服器拒絕了連線，或者無法訪問 %1 所在的伺服器。請檢查網路連線和代理設定，或選擇一個鏡像站。</translation>
    </message>
    <message>
        <source>The proxy could not be reached while fetching %1. Check the proxy address (host and port), or leave it empty to connect directly.</source>
        <translation>下載 %1 時無法連線到代理。請檢查代理網址（主機和埠），或者留空以直接連線。</translation>
    </message>
    <message>
        <source>The server did not answer in time for %1. The network may be slow or the server blocked here: try again, choose a mirror, set a proxy, or use an offline bundle.</source>
        <translation>%1 所在的伺服器沒有及時回應。網路可能很慢，或者該伺服器在這裡被遮蔽：請重試、選擇鏡像站、設定代理或使用離線包。</translation>
    </message>
    <message>
        <source>%1 came too slowly from this server (below the speed floor), so it was dropped. Choose a nearer mirror or use an offline bundle.</source>
        <translation>從此伺服器下載 %1 的速度太慢（低於速度下限），因此已放棄該伺服器。請選擇一個更近的鏡像站或使用離線包。</translation>
    </message>
    <message>
        <source>The server&apos;s certificate for %1 belongs to another name, so nothing was downloaded. Something between you and the server (a proxy or a captive portal) answers in its place; check the address or the network.</source>
        <translation>%1 所在伺服器的憑證屬於另一個名稱，因此沒有下載任何內容。你與伺服器之間的某個東西（代理或網路登入頁）在冒充它應答；請檢查網址或網路。</translation>
    </message>
    <message>
        <source>The server&apos;s certificate for %1 could not be verified, so nothing was downloaded. A lab or company proxy may need its certificate added (CA bundle setting).</source>
        <translation>無法驗證 %1 所在伺服器的憑證，因此沒有下載任何內容。實驗室或公司的代理可能需要新增其憑證（CA 憑證組合設定）。</translation>
    </message>
    <message>
        <source>The proxy asks for a user name and password (407) for %1. Give them in the proxy address: http://user:password@host:port.</source>
        <translation>下載 %1 時代理要求提供使用者名稱和密碼（407）。請在代理網址中填寫它們：http://使用者名稱:密碼@主機:埠。</translation>
    </message>
    <message>
        <source>The proxy could not reach the server for %1 (HTTP %2). The server may be blocked from this network: choose a mirror or use an offline bundle.</source>
        <translation>代理無法訪問 %1 所在的伺服器（HTTP %2）。該伺服器可能在此網路中被遮蔽：請選擇鏡像站或使用離線包。</translation>
    </message>
    <message>
        <source>%1 is not on the server (404 Not Found). The mirror may be incomplete; try another mirror.</source>
        <translation>伺服器上沒有 %1（404 Not Found）。該鏡像站可能不完整；請換一個鏡像站。</translation>
    </message>
    <message>
        <source>The server refused %1 (403 Forbidden). The mirror may not serve this file or this network; try another mirror.</source>
        <translation>伺服器拒絕提供 %1（403 Forbidden）。該鏡像站可能不提供此檔案，或不為此網路提供服務；請換一個鏡像站。</translation>
    </message>
    <message>
        <source>The server had an error with %1 (HTTP %2). Try again later or choose another mirror.</source>
        <translation>伺服器處理 %1 時出錯（HTTP %2）。請稍後重試或選擇其他鏡像站。</translation>
    </message>
    <message>
        <source>The server answered HTTP %2 for %1. Try another mirror.</source>
        <translation>伺服器對 %1 返回了 HTTP %2。請換一個鏡像站。</translation>
    </message>
    <message>
        <source>The server sent a web page instead of %1 (often a login page of the campus, hotel or company network, or an error page). Log in with a web browser and try again, or try another mirror.</source>
        <translation>伺服器發來的是一個網頁而不是 %1（通常是校園網、酒店或公司網路的登入頁，或者錯誤頁面）。請用瀏覽器登入後重試，或者換一個鏡像站。</translation>
    </message>
    <message>
        <source>The server tried to send %1 over an unencrypted connection; that was refused.</source>
        <translation>伺服器試圖透過未加密的連線傳送 %1；已被拒絕。</translation>
    </message>
    <message>
        <source>The server for %1 redirects in a loop. Try another mirror.</source>
        <translation>%1 所在的伺服器陷入了迴圈重定向。請換一個鏡像站。</translation>
    </message>
    <message>
        <source>The connection kept stalling or dropping while fetching %1. What arrived is kept; try again to resume.</source>
        <translation>下載 %1 時連線反覆停滯或中斷。已收到的部分會保留；請重試以繼續下載。</translation>
    </message>
    <message>
        <source>The server&apos;s %1 has a different size than the official one. Try another mirror.</source>
        <translation>伺服器上的 %1 大小與官方的不同。請換一個鏡像站。</translation>
    </message>
    <message>
        <source>The server sent more for %1 than such a document can be. Check the address or the mirror.</source>
        <translation>伺服器為 %1 傳送的內容超出了此類文件可能的大小。請檢查網址或鏡像站。</translation>
    </message>
    <message>
        <source>%1 does not match its official checksum, so it was not used. Try again later or another mirror; if it keeps happening, something between you and the server changes the file.</source>
        <translation>%1 與其官方校驗和不符，因此沒有使用。請稍後重試或換一個鏡像站；如果反覆出現，說明你與伺服器之間有東西在篡改檔案。</translation>
    </message>
    <message>
        <source>The disk is full while saving %1. Free some space or choose another folder, then try again.</source>
        <translation>儲存 %1 時磁碟已滿。請釋放一些空間或選擇其他資料夾，然後重試。</translation>
    </message>
    <message>
        <source>You may not write to the folder of %1. Choose a folder in your own user folder.</source>
        <translation>你沒有權限寫入 %1 所在的資料夾。請選擇你自己使用者資料夾中的某個資料夾。</translation>
    </message>
    <message>
        <source>Saving %1 failed. Check the disk and the folder&apos;s permissions.</source>
        <translation>儲存 %1 失敗。請檢查磁碟和該資料夾的權限。</translation>
    </message>
    <message>
        <source>Fetching %1 was cancelled.</source>
        <translation>已取消下載 %1。</translation>
    </message>
    <message>
        <source>%1 could not be fetched. Check the internet connection, the proxy and the mirror settings.</source>
        <translation>無法取得 %1。請檢查網路連線、代理和鏡像站設定。</translation>
    </message>
</context>
<context>
    <name>NvidiaSmi</name>
    <message>
        <source>nvidia-smi cannot reach the NVIDIA driver. Install the NVIDIA driver for your GPU (or repair it) and restart the computer.</source>
        <translation>nvidia-smi 無法連線到 NVIDIA 驅動程式。請為你的 GPU 安裝（或修復）NVIDIA 驅動程式，然後重新啟動電腦。</translation>
    </message>
    <message>
        <source>This NVIDIA driver&apos;s nvidia-smi does not know one of the queried fields. Updating the driver helps.</source>
        <translation>目前 NVIDIA 驅動程式附帶的 nvidia-smi 不認識某個查詢欄位。更新驅動程式即可解決。</translation>
    </message>
    <message>
        <source>nvidia-smi printed something tfsetup cannot read. Run nvidia-smi yourself to see whether the driver works.</source>
        <translation>nvidia-smi 輸出了 tfsetup 無法解讀的內容。請自己執行 nvidia-smi，看看驅動程式是否正常工作。</translation>
    </message>
    <message>
        <source>nvidia-smi lists no NVIDIA GPU. Check that the GPU is seated and enabled, and that the driver is installed.</source>
        <translation>nvidia-smi 沒有列出任何 NVIDIA GPU。請檢查顯示卡是否插好並已啟用，以及驅動程式是否已安裝。</translation>
    </message>
    <message>
        <source>nvidia-smi printed no driver version. Run nvidia-smi yourself to see whether the driver works.</source>
        <translation>nvidia-smi 沒有輸出驅動程式版本。請自己執行 nvidia-smi，看看驅動程式是否正常工作。</translation>
    </message>
</context>
<context>
    <name>Nvml</name>
    <message>
        <source>The NVIDIA management library is too old or damaged. Update or reinstall the NVIDIA driver.</source>
        <translation>NVIDIA 管理函式庫版本過舊或已損壞。請更新或重新安裝 NVIDIA 驅動程式。</translation>
    </message>
    <message>
        <source>The NVIDIA driver did not answer. Install or reinstall the NVIDIA driver and restart the computer.</source>
        <translation>NVIDIA 驅動程式沒有回應。請安裝或重新安裝 NVIDIA 驅動程式，然後重新啟動電腦。</translation>
    </message>
    <message>
        <source>The NVIDIA driver could not list the GPUs. Restart the computer; if that does not help, reinstall the NVIDIA driver.</source>
        <translation>NVIDIA 驅動程式無法列出 GPU。請重新啟動電腦；如果仍然不行，請重新安裝 NVIDIA 驅動程式。</translation>
    </message>
</context>
<context>
    <name>OriginProbe</name>
    <message>
        <source>NVIDIA&apos;s download server %1</source>
        <translation>NVIDIA 的下載伺服器 %1</translation>
    </message>
    <message>
        <source>python.org&apos;s downloads API (%1)</source>
        <translation>python.org 的下載 API（%1）</translation>
    </message>
    <message>
        <source>the Python package index %1</source>
        <translation>Python 套件索引 %1</translation>
    </message>
    <message>
        <source>the Python package index %1 (%2)</source>
        <translation>Python 套件索引 %1（%2）</translation>
    </message>
    <message>
        <source>The folder %1 does not exist. Check the path of the mirror or the offline bundle.</source>
        <translation>資料夾 %1 不存在。請檢查鏡像站或離線包的路徑。</translation>
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
        <translation>資料夾，存在</translation>
    </message>
    <message>
        <source>a folder, missing</source>
        <translation>資料夾，缺失</translation>
    </message>
    <message>
        <source>reachable in %1 ms</source>
        <translation>%1 毫秒內可連通</translation>
    </message>
    <message>
        <source>not reachable (%1)</source>
        <translation>無法連通（%1）</translation>
    </message>
    <message>
        <source>too slow</source>
        <translation>太慢</translation>
    </message>
    <message>
        <source>through the proxy</source>
        <translation>透過代理</translation>
    </message>
    <message>
        <source>not needed for this setup</source>
        <translation>本次安裝不需要</translation>
    </message>
    <message>
        <source>PyPI mirrors, fastest first:</source>
        <translation>PyPI 鏡像站，按速度從快到慢：</translation>
    </message>
    <message>
        <source>Fastest PyPI mirror here: %1 (--mirror pypi=%2).</source>
        <translation>此處最快的 PyPI 鏡像站：%1（--mirror pypi=%2）。</translation>
    </message>
    <message>
        <source>No PyPI mirror answered.</source>
        <translation>沒有 PyPI 鏡像站回應。</translation>
    </message>
</context>
<context>
    <name>PipFailureReader</name>
    <message>
        <source>Set a &amp;proxy…</source>
        <translation>設定代理(&amp;P)…</translation>
    </message>
    <message>
        <source>Choose a &amp;mirror…</source>
        <translation>選擇鏡像站(&amp;M)…</translation>
    </message>
    <message>
        <source>Use an offline b&amp;undle…</source>
        <translation>使用離線包(&amp;U)…</translation>
    </message>
    <message>
        <source>Choose another &amp;version…</source>
        <translation>選擇其他版本(&amp;V)…</translation>
    </message>
    <message>
        <source>Choose another f&amp;older…</source>
        <translation>選擇其他資料夾(&amp;O)…</translation>
    </message>
    <message>
        <source>&amp;Try again</source>
        <translation>重試(&amp;T)</translation>
    </message>
    <message>
        <source>Open the &amp;log</source>
        <translation>開啟日誌(&amp;L)</translation>
    </message>
    <message>
        <source>The list of pip&apos;s failure messages is missing. Reinstall tfsetup.</source>
        <translation>pip 失敗資訊清單缺失。請重新安裝 tfsetup。</translation>
    </message>
    <message>
        <source>The list of pip&apos;s failure messages is damaged. Reinstall tfsetup.</source>
        <translation>pip 失敗資訊清單已損壞。請重新安裝 tfsetup。</translation>
    </message>
    <message>
        <source>the package index</source>
        <translation>套件索引</translation>
    </message>
    <message>
        <source>The package index</source>
        <translation>套件索引</translation>
    </message>
    <message>
        <source>pip could not get through the proxy: the proxy refused the connection or could not be reached. Check the proxy address (host and port) on the Options page, or leave it empty if this network needs none.</source>
        <translation>pip 無法透過代理連線：代理拒絕了連線，或無法訪問代理。請在「選項」頁面檢查代理網址（主機和埠）；如果此網路不需要代理，請留空。</translation>
    </message>
    <message>
        <source>The proxy asks for a user name and password (407), so pip was turned away. Give them in the proxy address on the Options page: http://user:password@proxy:port.</source>
        <translation>代理要求提供使用者名稱和密碼（407），因此 pip 被拒絕。請在「選項」頁面的代理網址中填寫：http://user:password@proxy:port。</translation>
    </message>
    <message>
        <source>The name %1 could not be found (no DNS answer): this computer is offline, the address is mistyped, or this network only reaches outside through a proxy. Check the mirror address, or choose another mirror.</source>
        <translation>找不到名稱 %1（DNS 沒有應答）：這台電腦沒有連網、網址輸入有誤，或者此網路只能透過代理訪問外網。請檢查鏡像站網址，或選擇其他鏡像站。</translation>
    </message>
    <message>
        <source>%1 refused the connection or could not be reached. Networks that only let traffic out through a proxy do this: set the proxy your lab or company gives.</source>
        <translation>%1 拒絕了連線，或無法訪問。只允許透過代理訪問外網的網路會出現這種情況：請設定實驗室或公司提供的代理。</translation>
    </message>
    <message>
        <source>%1 did not answer in time. The network is slow or the server is blocked here: choose a nearer mirror.</source>
        <translation>%1 沒有及時回應。網路較慢，或該伺服器在這裡被遮蔽：請選擇更近的鏡像站。</translation>
    </message>
    <message>
        <source>The certificate of %1 could not be verified, so pip refused to use it. A lab or company network that inspects encrypted traffic does this; so does a mirror with a broken certificate. Choose another mirror, or ask for the network&apos;s proxy settings.</source>
        <translation>無法驗證 %1 的憑證，因此 pip 拒絕使用它。會檢查加密流量的實驗室或公司網路會導致這種情況，憑證有問題的鏡像站也會。請選擇其他鏡像站，或向網路管理員索取代理設定。</translation>
    </message>
    <message>
        <source>%1 has no page for the package pip asked for (404 Not Found): the mirror address is wrong or the mirror is incomplete. Check the address, or choose another mirror.</source>
        <translation>%1 上沒有 pip 所請求套件的頁面（404 Not Found）：鏡像站網址有誤，或鏡像站不完整。請檢查網址，或選擇其他鏡像站。</translation>
    </message>
    <message>
        <source>the package</source>
        <translation>該套件</translation>
    </message>
    <message>
        <source>this Python</source>
        <translation>目前 Python</translation>
    </message>
    <message>
        <source>Python %1</source>
        <translation>Python %1</translation>
    </message>
    <message>
        <source>this computer</source>
        <translation>這台電腦</translation>
    </message>
    <message>
        <source>%1 offers no wheel of %2 for %3 on %4. That does not mean the release does not exist: it has no file built for this Python version and platform. Choose another TensorFlow or Python version.</source>
        <translation>%1 沒有為 %4 上的 %3 提供 %2 的 wheel 檔案。這並不代表該版本不存在：只是沒有為這個 Python 版本和平台建置的檔案。請選擇其他 TensorFlow 或 Python 版本。</translation>
    </message>
    <message>
        <source>A downloaded file no longer matches the hash it was checked with, so it was refused. The disk or another program changed it; try again to check and fetch it anew.</source>
        <translation>一個已下載的檔案與校驗時的雜湊值不再一致，因此被拒絕。磁碟或其他程式修改了它；請重試，重新校驗並下載該檔案。</translation>
    </message>
    <message>
        <source>The disk is full (or your disk quota is used up), so the environment could not be written. Free some space, or choose a folder on another disk.</source>
        <translation>磁碟已滿（或磁碟配額已用完），無法寫入環境。請釋放一些空間，或選擇其他磁碟上的資料夾。</translation>
    </message>
    <message>
        <source>The environment&apos;s folder may not be written to (permission denied). Choose a folder in your own user folder.</source>
        <translation>沒有寫入環境資料夾的權限（權限被拒絕）。請選擇你自己使用者資料夾中的某個資料夾。</translation>
    </message>
    <message>
        <source>pip stopped with an error this wizard does not recognise. The log has pip&apos;s own words.</source>
        <translation>pip 因本精靈無法識別的錯誤而停止。日誌中有 pip 的原始輸出。</translation>
    </message>
</context>
<context>
    <name>PlacementRules</name>
    <message>
        <source>The placement rules %1 cannot be read. Reinstall tfsetup.</source>
        <translation>無法讀取放置規則 %1。請重新安裝 tfsetup。</translation>
    </message>
    <message>
        <source>The placement rules %1 are damaged. Reinstall tfsetup.</source>
        <translation>檔案放置規則 %1 已損壞。請重新安裝 tfsetup。</translation>
    </message>
    <message>
        <source>The placement rules are damaged. Reinstall tfsetup.</source>
        <translation>檔案放置規則已損壞。請重新安裝 tfsetup。</translation>
    </message>
    <message>
        <source>tfsetup does not know where NVIDIA&apos;s files go for %1 with the &quot;%2&quot; layout. Choose another route or update tfsetup.</source>
        <translation>tfsetup 不知道在「%2」佈局下 %1 的 NVIDIA 檔案應放在哪裡。請選擇其他路線，或更新 tfsetup。</translation>
    </message>
    <message>
        <source>Two files from NVIDIA&apos;s archives would land on %1. The downloaded archives do not belong together; plan again.</source>
        <translation>NVIDIA 壓縮檔中有兩個檔案會被放到同一位置 %1。下載的這些壓縮檔不屬於同一套組合；請重新制定方案。</translation>
    </message>
    <message>
        <source>The NVIDIA component name &quot;%1&quot; cannot be a folder name. The plan or bundle is damaged; make it again.</source>
        <translation>NVIDIA 元件名「%1」不能用作資料夾名。方案或離線包已損壞；請重新生成。</translation>
    </message>
</context>
<context>
    <name>PlanDownloads</name>
    <message>
        <source>Nothing is looked up without the network.</source>
        <translation>未連網時不查詢任何資訊。</translation>
    </message>
</context>
<context>
    <name>PlanText</name>
    <message>
        <source>%1 on %2 with Python %3</source>
        <translation>%1，%2 路線，Python %3</translation>
    </message>
    <message>
        <source>, CUDA %1, cuDNN %2, driver %3 or newer</source>
        <translation>，CUDA %1，cuDNN %2，驅動程式 %3 或更新版本</translation>
    </message>
    <message>
        <source>Recommended: %1
</source>
        <translation>推薦：%1
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
        <translation>沒有適合本機的 TensorFlow 組合。
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
備選方案：
</translation>
    </message>
    <message numerus="yes">
        <source>  (%n more; use --json to see all)
</source>
        <translation>
            <numerusform>  （還有 %n 個；使用 --json 檢視全部）
</numerusform>
        </translation>
    </message>
    <message>
        <source>
Not possible here:
</source>
        <translation>
在本機上不可行：
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
        <translation>  - TensorFlow %1（%2 路線）：%3
</translation>
    </message>
</context>
<context>
    <name>Probe</name>
    <message>
        <source>The library version table %1 cannot be read; the program files are damaged, reinstall tfsetup.</source>
        <translation>無法讀取函式庫版本表 %1；程式檔案已損壞，請重新安裝 tfsetup。</translation>
    </message>
    <message>
        <source>The library version table is not valid JSON; reinstall tfsetup.</source>
        <translation>函式庫版本表不是有效的 JSON；請重新安裝 tfsetup。</translation>
    </message>
    <message>
        <source>The option %1 needs a value.</source>
        <translation>選項 %1 需要一個值。</translation>
    </message>
    <message>
        <source>--sublibrary takes PARENT&gt;NAME, not &quot;%1&quot;.</source>
        <translation>--sublibrary 的引數格式應為 PARENT&gt;NAME，而不是 &quot;%1&quot;。</translation>
    </message>
    <message>
        <source>Unknown option %1.</source>
        <translation>未知選項 %1。</translation>
    </message>
    <message>
        <source>The library probe answered with something that is not its report; reinstall tfsetup.</source>
        <translation>函式庫探測程式傳回的內容不是它的報告；請重新安裝 tfsetup。</translation>
    </message>
    <message>
        <source>Name the libraries to load (--library GROUP:NAME) or the versions TensorFlow was built with (--cuda VERSION --cudnn VERSION).</source>
        <translation>請指定要載入的函式庫（--library GROUP:NAME），或建置 TensorFlow 時所用的版本（--cuda VERSION --cudnn VERSION）。</translation>
    </message>
</context>
<context>
    <name>ProbeFinding</name>
    <message>
        <source>%1 is in %2 but could not be loaded: %3. A library it depends on is probably missing, or the file is damaged; run tfsetup repair.</source>
        <translation>%1 位於 %2 中，但無法載入：%3。可能缺少它依賴的某個函式庫，或者該檔案已損壞；請執行 tfsetup repair。</translation>
    </message>
    <message>
        <source>%1 could not be loaded: %2. TensorFlow will not use the GPU without it. Run tfsetup repair, or add the folder that holds it to the environment&apos;s library path.</source>
        <translation>無法載入 %1：%2。缺少它，TensorFlow 將不會使用 GPU。請執行 tfsetup repair，或把包含它的資料夾新增到該環境的函式庫路徑中。</translation>
    </message>
    <message>
        <source>%1, a part of %2, could not be loaded: %3. cuDNN loads its parts only when it needs them, so TensorFlow starts but convolutions fail. Put the complete cuDNN set in one folder (tfsetup repair does this).</source>
        <translation>%1 是 %2 的一部分，但無法載入：%3。cuDNN 只在需要時才載入其各個部分，所以 TensorFlow 可以啟動，但卷積運算會失敗。請把完整的 cuDNN 檔案放在同一個資料夾中（tfsetup repair 會幫你完成）。</translation>
    </message>
    <message>
        <source>%1 was loaded from %2, not from the environment&apos;s own copy %3. Remove the other folder from the library path (LD_LIBRARY_PATH or PATH), or start TensorFlow through the environment&apos;s launcher.</source>
        <translation>%1 是從 %2 載入的，而不是從環境自帶的副本 %3 載入的。請把那個資料夾從函式庫搜尋路徑（LD_LIBRARY_PATH 或 PATH）中移除，或透過環境的啟動指令碼啟動 TensorFlow。</translation>
    </message>
    <message>
        <source>%1 (%2) is version %3, older than the %4 this TensorFlow was built with. Install version %4 or newer of it (tfsetup repair).</source>
        <translation>%1（%2）的版本是 %3，比建置此 TensorFlow 時使用的 %4 舊。請安裝 %4 或更新版本（tfsetup repair）。</translation>
    </message>
    <message>
        <source>%1 at %2 says it is version %3, but its name promises version %4: this file is not what its name says. Delete it and let tfsetup repair put the genuine library back.</source>
        <translation>位於 %2 的 %1 聲稱自己是 %3 版，但檔名表明它應是 %4 版：這個檔案名不副實。請刪除它，讓 tfsetup repair 放回正版的函式庫檔案。</translation>
    </message>
    <message>
        <source>The NVIDIA driver library %1 could not be loaded: %2. Install the NVIDIA driver; without it TensorFlow can only use the processor.</source>
        <translation>無法載入 NVIDIA 驅動程式函式庫 %1：%2。請安裝 NVIDIA 驅動程式；沒有它，TensorFlow 只能使用處理器。</translation>
    </message>
    <message>
        <source>The NVIDIA driver supports CUDA up to %1, but this TensorFlow needs CUDA %2. Update the NVIDIA driver.</source>
        <translation>NVIDIA 驅動程式最高支援 CUDA %1，但此 TensorFlow 需要 CUDA %2。請更新 NVIDIA 驅動程式。</translation>
    </message>
    <message>
        <source>The NVIDIA driver supports CUDA %1, older than the CUDA %2 this TensorFlow was built with. It usually still works (CUDA minor-version compatibility), but code compiled at run time can fail; update the driver if it does.</source>
        <translation>NVIDIA 驅動程式支援的是 CUDA %1，比建置此 TensorFlow 所用的 CUDA %2 舊。通常仍然可以使用（CUDA 次版本相容性），但執行時編譯的程式碼可能會失敗；如果出現這種情況，請更新驅動程式。</translation>
    </message>
    <message>
        <source>%1 was loaded from %2; other copies exist: %3. Another program&apos;s library path may pick a different one.</source>
        <translation>%1 是從 %2 載入的；還存在其他副本：%3。其他程式的函式庫搜尋路徑可能會選中另一個副本。</translation>
    </message>
    <message>
        <source>The GPU could not run a small test computation through the NVIDIA driver %1 (%2). TensorFlow cannot compute on this GPU either. Restart the computer; if that does not help, update or reinstall the NVIDIA driver.</source>
        <translation>GPU 無法透過 NVIDIA 驅動程式 %1 執行一個小的測試計算（%2）。TensorFlow 同樣無法在這個 GPU 上計算。請重新啟動電腦；如果仍然不行，請更新或重新安裝 NVIDIA 驅動程式。</translation>
    </message>
    <message>
        <source>%1 loaded, but a matrix multiplication with it on the GPU failed (%2). TensorFlow&apos;s dense layers will fail the same way. Run tfsetup repair to reinstall it; if that does not help, update the NVIDIA driver.</source>
        <translation>%1 已載入，但用它在 GPU 上做矩陣乘法失敗了（%2）。TensorFlow 的全連線層也會同樣失敗。請執行 tfsetup repair 重新安裝它；如果仍然不行，請更新 NVIDIA 驅動程式。</translation>
    </message>
    <message>
        <source>%1 loaded, but a convolution with it on the GPU failed (%2). TensorFlow&apos;s convolution layers will fail the same way. Run tfsetup repair so that all cuDNN parts are one version that suits this CUDA; if that does not help, update the NVIDIA driver.</source>
        <translation>%1 已載入，但用它在 GPU 上做卷積失敗了（%2）。TensorFlow 的卷積層也會同樣失敗。請執行 tfsetup repair，使 cuDNN 的所有部分都是適合此 CUDA 的同一版本；如果仍然不行，請更新 NVIDIA 驅動程式。</translation>
    </message>
    <message>
        <source>The NVIDIA driver %1 loaded but reports no usable GPU (%2), so nothing was computed on a GPU. TensorFlow will use the processor only.</source>
        <translation>NVIDIA 驅動程式 %1 已載入，但報告沒有可用的 GPU（%2），因此沒有在 GPU 上進行任何計算。TensorFlow 將只使用處理器。</translation>
    </message>
</context>
<context>
    <name>PyLock</name>
    <message>
        <source>text holds the control character U+%1, which must be written as an escape in double quotes</source>
        <translation>文字中含有控制字元 U+%1，它必須在雙引號中寫成轉義序列</translation>
    </message>
    <message>
        <source>must be an http, https or file URL</source>
        <translation>必須是 http、https 或 file 網址</translation>
    </message>
    <message>
        <source>must be a wheel&apos;s file name (NAME.whl, no folder, no &quot;..&quot;)</source>
        <translation>必須是 wheel 的檔名（NAME.whl，不含資料夾，不含「..」）</translation>
    </message>
    <message>
        <source>must be 64 lower-case hexadecimal digits</source>
        <translation>必須是 64 位小寫十六進位數字</translation>
    </message>
    <message>
        <source>has neither a &quot;name&quot; nor a &quot;url&quot;</source>
        <translation>既沒有「name」也沒有「url」</translation>
    </message>
    <message>
        <source>has no &quot;name&quot; and its URL does not end in a wheel&apos;s file name</source>
        <translation>沒有「name」，且其網址不以 wheel 檔名結尾</translation>
    </message>
    <message>
        <source>must be a project name (letters, digits, &apos;.&apos;, &apos;_&apos; and &apos;-&apos;)</source>
        <translation>必須是項目名稱（字母、數字、「.」、「_」和「-」）</translation>
    </message>
    <message>
        <source>must be a version such as 2.15.1</source>
        <translation>必須是 2.15.1 這樣的版本號</translation>
    </message>
    <message>
        <source>must hold exactly one wheel</source>
        <translation>必須恰好包含一個 wheel</translation>
    </message>
    <message>
        <source>it holds more than %1 values</source>
        <translation>其中的值超過 %1 個</translation>
    </message>
    <message>
        <source>a carriage return without a line feed</source>
        <translation>回車符後沒有換行符</translation>
    </message>
    <message>
        <source>a control character in a comment</source>
        <translation>註釋中含有控制字元</translation>
    </message>
    <message>
        <source>more text after the value (a new line or a # comment must follow)</source>
        <translation>值後面還有其他文字（其後只能是換行或 # 註釋）</translation>
    </message>
    <message>
        <source>a key is missing</source>
        <translation>缺少鍵</translation>
    </message>
    <message>
        <source>multi-line strings are not used in a lock file</source>
        <translation>鎖定檔案中不使用多行字串</translation>
    </message>
    <message>
        <source>a key must be letters, digits, &apos;_&apos; and &apos;-&apos;, or text in quotes</source>
        <translation>鍵必須由字母、數字、「_」和「-」組成，或是引號中的文字</translation>
    </message>
    <message>
        <source>tables are nested more than %1 deep</source>
        <translation>表的巢狀超過 %1 層</translation>
    </message>
    <message>
        <source>the header %1 is not closed</source>
        <translation>表頭 %1 沒有閉合</translation>
    </message>
    <message>
        <source>[%1] adds to &quot;%2&quot;, which is defined already as a value</source>
        <translation>[%1] 向「%2」新增內容，但它已被定義為一個值</translation>
    </message>
    <message>
        <source>[[%1]] names something defined already</source>
        <translation>[[%1]] 指向已定義的內容</translation>
    </message>
    <message>
        <source>the table [%1] is defined twice</source>
        <translation>表 [%1] 被定義了兩次</translation>
    </message>
    <message>
        <source>dotted keys (%1.…) are not used in a lock file</source>
        <translation>鎖定檔案中不使用帶點的鍵（%1.…）</translation>
    </message>
    <message>
        <source>&quot;=&quot; is missing after the key &quot;%1&quot;</source>
        <translation>鍵「%1」後缺少「=」</translation>
    </message>
    <message>
        <source>the key &quot;%1&quot; is defined twice</source>
        <translation>鍵「%1」被定義了兩次</translation>
    </message>
    <message>
        <source>a value is missing</source>
        <translation>缺少值</translation>
    </message>
    <message>
        <source>lists and tables are nested more than %1 deep</source>
        <translation>清單和表的巢狀超過 %1 層</translation>
    </message>
    <message>
        <source>text in quotes does not end on its line</source>
        <translation>引號中的文字沒有在同一行內結束</translation>
    </message>
    <message>
        <source>\%1 must be followed by %2 hexadecimal digits</source>
        <translation>\%1 後面必須跟 %2 位十六進位數字</translation>
    </message>
    <message>
        <source>\%1%2 is not a Unicode character</source>
        <translation>\%1%2 不是 Unicode 字元</translation>
    </message>
    <message>
        <source>a backslash must start an escape such as \n or \u00e9</source>
        <translation>反斜槓必須開始一個轉義序列，例如 \n 或 \u00e9</translation>
    </message>
    <message>
        <source>\%1 is not a valid escape</source>
        <translation>\%1 不是有效的轉義序列</translation>
    </message>
    <message>
        <source>a value must be text in quotes, a whole number, true, false, a list [ … ] or a table { … }</source>
        <translation>值必須是引號中的文字、整數、true、false、清單 [ … ] 或表 { … }</translation>
    </message>
    <message>
        <source>floating-point numbers (%1) are not used in a lock file</source>
        <translation>鎖定檔案中不使用浮點數（%1）</translation>
    </message>
    <message>
        <source>hexadecimal, octal and binary numbers (%1) are not used in a lock file</source>
        <translation>鎖定檔案中不使用十六進位、八進位和二進位數（%1）</translation>
    </message>
    <message>
        <source>dates and times (%1) are not used in a lock file</source>
        <translation>鎖定檔案中不使用日期和時間（%1）</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a value: text must be in quotes, numbers whole</source>
        <translation>「%1」不是值：文字必須放在引號中，數字必須是整數</translation>
    </message>
    <message>
        <source>the number %1 is too large</source>
        <translation>數字 %1 太大</translation>
    </message>
    <message>
        <source>the list [ … ] is not closed</source>
        <translation>清單 [ … ] 沒有閉合</translation>
    </message>
    <message>
        <source>&quot;,&quot; or &quot;]&quot; is missing in the list</source>
        <translation>清單中缺少「,」或「]」</translation>
    </message>
    <message>
        <source>a table { … } must be on one line</source>
        <translation>表 { … } 必須寫在一行內</translation>
    </message>
    <message>
        <source>&quot;,&quot; or &quot;}&quot; is missing in the table { … }</source>
        <translation>表 { … } 中缺少「,」或「}」</translation>
    </message>
    <message>
        <source>a table { … } may not end with &quot;,&quot;</source>
        <translation>表 { … } 不能以「,」結尾</translation>
    </message>
    <message>
        <source>The lock file uses TOML that tfsetup does not read, at line %1: %2. Lock the packages again with tfsetup.</source>
        <translation>鎖定檔案第 %1 行使用了 tfsetup 不讀取的 TOML：%2。請用 tfsetup 重新鎖定這些包。</translation>
    </message>
    <message>
        <source>The lock file is not valid TOML at line %1: %2. Write it again with tfsetup.</source>
        <translation>鎖定檔案第 %1 行不是有效的 TOML：%2。請用 tfsetup 重新生成它。</translation>
    </message>
    <message>
        <source>The lock file is larger than %1 MB, more than a lock ever holds. Check that you gave the right file.</source>
        <translation>鎖定檔案大於 %1 MB，超出了鎖定檔案應有的大小。請檢查是否給出了正確的檔案。</translation>
    </message>
    <message>
        <source>the text is not UTF-8</source>
        <translation>文字不是 UTF-8 編碼</translation>
    </message>
    <message>
        <source>The lock file is of version %1, which this tfsetup cannot read. Update tfsetup, or lock the packages again with this one.</source>
        <translation>鎖定檔案的版本為 %1，此版本的 tfsetup 無法讀取。請更新 tfsetup，或用目前的 tfsetup 重新鎖定這些包。</translation>
    </message>
    <message>
        <source>The lock file</source>
        <translation>鎖定檔案</translation>
    </message>
    <message>
        <source>Write it again with tfsetup.</source>
        <translation>請用 tfsetup 重新生成它。</translation>
    </message>
    <message>
        <source>names %1, which is listed before</source>
        <translation>指定了 %1，但它在前面已列出</translation>
    </message>
    <message>
        <source>is a wheel of another project than %1</source>
        <translation>是另一個項目的 wheel，而不是 %1 的</translation>
    </message>
    <message>
        <source>the lock file</source>
        <translation>鎖定檔案</translation>
    </message>
</context>
<context>
    <name>RedistManifest</name>
    <message>
        <source>The NVIDIA manifest %1</source>
        <translation>NVIDIA 清單 %1</translation>
    </message>
    <message>
        <source>None of its checksums is used. Try again later, or use another mirror.</source>
        <translation>其中的校驗和一個都不會使用。請稍後重試，或換用其他鏡像站。</translation>
    </message>
    <message>
        <source>is larger than %1 bytes</source>
        <translation>大於 %1 位元組</translation>
    </message>
    <message>
        <source>is not a JSON object (%1)</source>
        <translation>不是 JSON 物件（%1）</translation>
    </message>
    <message>
        <source>must be text</source>
        <translation>必須是文字</translation>
    </message>
    <message>
        <source>is not a safe relative path (&quot;%1&quot;)</source>
        <translation>不是安全的相對路徑（「%1」）</translation>
    </message>
    <message>
        <source>is not 64 hexadecimal digits</source>
        <translation>不是 64 位十六進位數字</translation>
    </message>
    <message>
        <source>is not 32 hexadecimal digits</source>
        <translation>不是 32 位十六進位數字</translation>
    </message>
    <message>
        <source>is missing, not a number, or outside 1 byte to %1 bytes</source>
        <translation>缺失、不是數字，或不在 1 位元組到 %1 位元組之間</translation>
    </message>
    <message>
        <source>must be text or a component object</source>
        <translation>必須是文字或元件物件</translation>
    </message>
    <message>
        <source>must be text and not empty</source>
        <translation>必須是非空文字</translation>
    </message>
    <message>
        <source>must be an object</source>
        <translation>必須是物件</translation>
    </message>
    <message>
        <source>lists no component</source>
        <translation>沒有列出任何元件</translation>
    </message>
</context>
<context>
    <name>RemoveReport</name>
    <message numerus="yes">
        <source>Would remove %n file(s) of %1 (%2).</source>
        <translation>
            <numerusform>將刪除 %1 的 %n 個檔案（%2）。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Removed %n file(s) of %1 (%2 freed).</source>
        <translation>
            <numerusform>已刪除 %1 的 %n 個檔案（釋放了 %2）。</numerusform>
        </translation>
    </message>
    <message>
        <source>Would remove %1</source>
        <translation>將刪除 %1</translation>
    </message>
    <message>
        <source>Removed %1</source>
        <translation>已刪除 %1</translation>
    </message>
    <message>
        <source>Kept %1: it was changed after tfsetup wrote it.</source>
        <translation>保留了 %1：它在 tfsetup 寫入後被修改過。</translation>
    </message>
    <message numerus="yes">
        <source>Kept %n file(s) tfsetup did not make (or that changed since), so the folder stays:</source>
        <translation>
            <numerusform>保留了 %n 個不是 tfsetup 建立的（或之後被修改過的）檔案，因此該資料夾會保留：</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 is not an environment made by tfsetup (it has no valid environment.json), so tfsetup removes nothing from it. Delete it yourself if you are sure.</source>
        <translation>%1 不是 tfsetup 建立的環境（沒有有效的 environment.json），因此 tfsetup 不會從中刪除任何內容。如果確定，請自行刪除。</translation>
    </message>
    <message>
        <source>%1 is a link to another folder. tfsetup removes nothing through links; remove the link yourself, or give the real folder.</source>
        <translation>%1 是指向另一個資料夾的連結。tfsetup 不會透過連結刪除任何內容；請自行刪除該連結，或指定真實的資料夾。</translation>
    </message>
    <message>
        <source>%1 could not be removed: it is in use. Close every program started from it (Python, Jupyter, shells) and try again.</source>
        <translation>無法刪除 %1：它正在被使用。請關閉從它啟動的所有程式（Python、Jupyter、終端機）後重試。</translation>
    </message>
    <message>
        <source>The Jupyter kernel and menu entry stay: they start %1, so they belong to the environment this folder was copied from.</source>
        <translation>Jupyter 核心和選單項目保留：它們啟動的是 %1，屬於這個資料夾複製自的那個環境。</translation>
    </message>
    <message>
        <source>%1 cannot be removed while %2 exists: tfsetup needs that name for the removal and does not touch a folder it did not make. Rename or move that folder, then try again.</source>
        <translation>%2 存在時無法刪除 %1：刪除過程需要用到這個名稱，而 tfsetup 不會動不是它建立的資料夾。請先重新命名或移走那個資料夾，然後重試。</translation>
    </message>
</context>
<context>
    <name>RepairReport</name>
    <message>
        <source>Every recorded file of %1 is in place and unchanged.</source>
        <translation>%1 中記錄的每個檔案都在原位且未被改動。</translation>
    </message>
    <message numerus="yes">
        <source>%n recorded file(s) of %1 were not as installed:</source>
        <translation>
            <numerusform>%1 中有 %n 個已記錄的檔案與安裝時不一致：</numerusform>
        </translation>
    </message>
    <message>
        <source>missing</source>
        <translation>缺失</translation>
    </message>
    <message>
        <source>changed</source>
        <translation>已被改動</translation>
    </message>
    <message>
        <source>moved to %1</source>
        <translation>已被移到 %1</translation>
    </message>
    <message>
        <source>would move it back</source>
        <translation>將移回原處</translation>
    </message>
    <message>
        <source>moved back</source>
        <translation>已移回原處</translation>
    </message>
    <message>
        <source>would take it again from %1</source>
        <translation>將從 %1 重新取得</translation>
    </message>
    <message>
        <source>taken again from %1</source>
        <translation>已從 %1 重新提取</translation>
    </message>
    <message>
        <source>would write it again</source>
        <translation>將重新寫入</translation>
    </message>
    <message>
        <source>written again</source>
        <translation>已重新寫入</translation>
    </message>
    <message>
        <source>would link it again</source>
        <translation>將重新連結</translation>
    </message>
    <message>
        <source>linked again</source>
        <translation>已重新連結</translation>
    </message>
    <message>
        <source>Would download again: %1</source>
        <translation>將重新下載：%1</translation>
    </message>
    <message>
        <source>Downloaded again: %1</source>
        <translation>已重新下載：%1</translation>
    </message>
    <message>
        <source>Still not as recorded: %1</source>
        <translation>仍與記錄不符：%1</translation>
    </message>
    <message>
        <source>Nothing was changed (--dry-run).</source>
        <translation>沒有做任何更改（--dry-run）。</translation>
    </message>
    <message>
        <source>The environment is repaired.</source>
        <translation>環境已修復。</translation>
    </message>
    <message>
        <source>The Python package %1 %2 is not as pip installed it:</source>
        <translation>Python 套件 %1 %2 與 pip 安裝時不一致：</translation>
    </message>
    <message>
        <source>its record names a place outside the environment (not read)</source>
        <translation>它的記錄指向環境之外的位置（未讀取）</translation>
    </message>
    <message>
        <source>would reinstall it from the package index</source>
        <translation>將從套件索引重新安裝它</translation>
    </message>
    <message>
        <source>reinstalled from the package index</source>
        <translation>已從套件索引重新安裝</translation>
    </message>
    <message>
        <source>would reinstall it from %1</source>
        <translation>將從 %1 重新安裝它</translation>
    </message>
    <message>
        <source>reinstalled from %1</source>
        <translation>已從 %1 重新安裝</translation>
    </message>
</context>
<context>
    <name>Repairer</name>
    <message>
        <source>The repair was cancelled. Nothing was changed.</source>
        <translation>修復已取消。沒有做任何更改。</translation>
    </message>
    <message>
        <source>Cannot write %1. Check the free space and that the environment folder is yours, then repair again.</source>
        <translation>無法寫入 %1。請檢查剩餘空間，並確認環境資料夾屬於你，然後再次修復。</translation>
    </message>
    <message>
        <source>The environment record names the Jupyter kernel &quot;%1&quot;, which is not a name tfsetup gives a kernel. The record is damaged or was not written by tfsetup, so repair changes nothing. Install the environment again.</source>
        <translation>環境記錄中的 Jupyter 核心名為「%1」，這不是 tfsetup 會給核心起的名字。該記錄已損壞或不是 tfsetup 寫的，所以修復不做任何更改。請重新安裝該環境。</translation>
    </message>
    <message>
        <source>The environment record names %1 as the folder of its Jupyter kernel, but tfsetup registers this environment&apos;s kernel only in %2. The record is damaged or belongs to another environment, so repair changes nothing. Install the environment again.</source>
        <translation>環境記錄把 %1 寫作其 Jupyter 核心的資料夾，但 tfsetup 只在 %2 中註冊此環境的核心。該記錄已損壞或屬於另一個環境，所以修復不做任何更改。請重新安裝該環境。</translation>
    </message>
    <message>
        <source>Your Jupyter kernel folder %1 is a link to another folder, so repair does not write there and changes nothing. Remove the link and repair again, or install the environment again.</source>
        <translation>你的 Jupyter 核心資料夾 %1 是指向另一個資料夾的連結，所以修復不會寫入那裡，也不做任何更改。請刪除該連結後再修復，或重新安裝該環境。</translation>
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
        <translation>系統：%1</translation>
    </message>
    <message>
        <source>System: %1, %2</source>
        <translation>系統：%1，%2</translation>
    </message>
    <message>
        <source>No NVIDIA GPU was found. TensorFlow can still run on the CPU.</source>
        <translation>沒有找到 NVIDIA 顯示卡（GPU）。TensorFlow 仍然可以在 CPU 上執行。</translation>
    </message>
    <message>
        <source>Your GPU: %1 (compute capability unknown)</source>
        <translation>你的顯示卡：%1（運算能力未知）</translation>
    </message>
    <message>
        <source>Your GPU: %1, compute capability %2</source>
        <translation>你的顯示卡：%1，運算能力 %2</translation>
    </message>
    <message>
        <source>, %1 GiB of memory</source>
        <translation>，顯示記憶體 %1 GiB</translation>
    </message>
    <message>
        <source>Other graphics: %1 (%2); TensorFlow&apos;s CUDA build cannot use it.</source>
        <translation>其他顯示卡：%1（%2）；TensorFlow 的 CUDA 版本無法使用它。</translation>
    </message>
    <message>
        <source>NVIDIA driver %1</source>
        <translation>NVIDIA 驅動程式 %1</translation>
    </message>
    <message>
        <source>NVIDIA driver %1 supports CUDA up to %2</source>
        <translation>NVIDIA 驅動程式 %1，最高支援 CUDA %2</translation>
    </message>
    <message>
        <source>No working NVIDIA driver was found. Install the driver for your GPU from NVIDIA first.</source>
        <translation>沒有找到可用的 NVIDIA 驅動程式。請先從 NVIDIA 官網為你的顯示卡安裝驅動程式。</translation>
    </message>
    <message>
        <source>unknown processor</source>
        <translation>未知處理器</translation>
    </message>
    <message>
        <source>Processor: %1 (whether it has the AVX instructions TensorFlow needs could not be checked)</source>
        <translation>處理器：%1（無法檢查它是否支援 TensorFlow 所需的 AVX 指令）</translation>
    </message>
    <message>
        <source>Processor: %1, with the AVX instructions TensorFlow needs</source>
        <translation>處理器：%1，支援 TensorFlow 所需的 AVX 指令</translation>
    </message>
    <message>
        <source>Processor: %1. It lacks AVX, which official TensorFlow builds since 1.6 need.</source>
        <translation>處理器：%1。它不支援 AVX，而從 1.6 版起的官方 TensorFlow 版本都需要 AVX。</translation>
    </message>
    <message>
        <source>No Python was found; tfsetup can install one.</source>
        <translation>沒有找到 Python；tfsetup 可以幫你安裝。</translation>
    </message>
    <message>
        <source>Python found: %1</source>
        <translation>已找到 Python：%1</translation>
    </message>
    <message>
        <source>No CUDA toolkit is installed (tfsetup can bring the parts TensorFlow needs).</source>
        <translation>沒有安裝 CUDA 工具包（tfsetup 可以提供 TensorFlow 所需的部分）。</translation>
    </message>
    <message>
        <source>CUDA toolkit %1 in %2</source>
        <translation>CUDA 工具包 %1，位於 %2</translation>
    </message>
    <message>
        <source>cuDNN %1 in %2</source>
        <translation>cuDNN %1，位於 %2</translation>
    </message>
    <message>
        <source>The Microsoft Visual C++ runtime is missing (%1).</source>
        <translation>缺少 Microsoft Visual C++ 執行階段函式庫（%1）。</translation>
    </message>
    <message>
        <source>tfsetup could not ask the NVIDIA driver library (NVML) about your GPU.</source>
        <translation>tfsetup 無法透過 NVIDIA 驅動程式函式庫（NVML）查詢你的顯示卡資訊。</translation>
    </message>
    <message>
        <source>tfsetup could not ask the CUDA driver about your GPU.</source>
        <translation>tfsetup 無法透過 CUDA 驅動程式查詢你的顯示卡資訊。</translation>
    </message>
    <message>
        <source>The nvidia-smi tool that comes with the NVIDIA driver did not answer.</source>
        <translation>NVIDIA 驅動程式附帶的 nvidia-smi 工具沒有回應。</translation>
    </message>
    <message>
        <source>tfsetup could not read the list of devices plugged into the computer.</source>
        <translation>tfsetup 無法讀取連線到這台電腦的裝置清單。</translation>
    </message>
    <message>
        <source>tfsetup could not check every Python installation.</source>
        <translation>tfsetup 無法檢查所有的 Python 安裝。</translation>
    </message>
    <message>
        <source>The check &quot;%1&quot; did not work.</source>
        <translation>檢查項「%1」沒有成功。</translation>
    </message>
    <message>
        <source>What could not be checked:</source>
        <translation>無法檢查的項目：</translation>
    </message>
    <message>
        <source>nvidia-smi, the tool that comes with the NVIDIA driver, is not installed here.</source>
        <translation>這裡沒有安裝 nvidia-smi（NVIDIA 驅動程式附帶的工具）。</translation>
    </message>
    <message>
        <source>Microsoft Visual C++ runtime: present (its version is not registered)</source>
        <translation>Microsoft Visual C++ 執行階段函式庫：已安裝（未登記版本）</translation>
    </message>
    <message>
        <source>Microsoft Visual C++ runtime: present, version %1</source>
        <translation>Microsoft Visual C++ 執行階段函式庫：已安裝，版本 %1</translation>
    </message>
    <message>
        <source>The Microsoft Visual C++ runtime %1 is registered, but %2 is missing.</source>
        <translation>Microsoft Visual C++ 執行階段函式庫 %1 已登記，但缺少 %2。</translation>
    </message>
</context>
<context>
    <name>RouteNames</name>
    <message>
        <source>Processor only (no GPU)</source>
        <translation>僅使用處理器（不使用 GPU）</translation>
    </message>
    <message>
        <source>NVIDIA GPU, CUDA as pip wheels with NVIDIA&apos;s CUDA packages</source>
        <translation>NVIDIA GPU，透過 NVIDIA 的 CUDA 套件以 pip wheel 檔案形式安裝 CUDA</translation>
    </message>
    <message>
        <source>NVIDIA GPU inside WSL2 (Linux in Windows), CUDA as pip wheels</source>
        <translation>WSL2（Windows 中的 Linux）內的 NVIDIA GPU，以 pip wheel 檔案形式安裝 CUDA</translation>
    </message>
    <message>
        <source>NVIDIA GPU on Windows, CUDA libraries from NVIDIA&apos;s archives</source>
        <translation>Windows 上的 NVIDIA GPU，CUDA 函式庫來自 NVIDIA 的歸檔檔案</translation>
    </message>
    <message>
        <source>NVIDIA GPU, CUDA toolkit libraries from NVIDIA&apos;s archives</source>
        <translation>NVIDIA GPU，CUDA 工具包函式庫來自 NVIDIA 的歸檔檔案</translation>
    </message>
    <message>
        <source>AMD GPU with ROCm (experimental)</source>
        <translation>AMD GPU，使用 ROCm（實驗性）</translation>
    </message>
    <message>
        <source>DirectX 12 GPU with DirectML (experimental)</source>
        <translation>DirectX 12 GPU，使用 DirectML（實驗性）</translation>
    </message>
    <message>
        <source>Apple GPU with Metal</source>
        <translation>Apple GPU，使用 Metal</translation>
    </message>
    <message>
        <source>Another GPU route (experimental)</source>
        <translation>其他 GPU 安裝方式（實驗性）</translation>
    </message>
    <message>
        <source>Another GPU route</source>
        <translation>其他 GPU 安裝方式</translation>
    </message>
    <message>
        <source>Processor only</source>
        <translation>僅處理器</translation>
    </message>
    <message>
        <source>GPU, CUDA from pip</source>
        <translation>GPU，CUDA 來自 pip</translation>
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
        <translation>GPU，CUDA 歸檔檔案</translation>
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
        <translation>%1 沒有發布校驗和，因此 tfsetup 無法校驗下載的檔案。請在可信的網路中用 tfsetup bundle --trust-on-first-use 製作一個離線包，或選擇其他方案。</translation>
    </message>
    <message>
        <source>%1 has no web address tfsetup can download from. Check the mirror settings.</source>
        <translation>%1 沒有 tfsetup 可以下載的網址。請檢查鏡像站設定。</translation>
    </message>
    <message>
        <source>Python %1 (64-bit) is needed to make the environment, and none was found. Install it, then scan this computer again.</source>
        <translation>建立環境需要 Python %1（64 位），但沒有找到。請安裝它，然後重新掃描這台電腦。</translation>
    </message>
    <message>
        <source>%1 must be installed by its own installer, which this wizard cannot run yet. Choose the portable route, or install it yourself and scan again.</source>
        <translation>%1 必須用它自己的安裝程式安裝，而本精靈目前還無法執行該安裝程式。請選擇可攜式路線，或自行安裝後重新掃描。</translation>
    </message>
    <message>
        <source>%1 has no SHA-256 checksum, so the installer cannot check it. Choose another plan.</source>
        <translation>%1 沒有 SHA-256 校驗和，因此安裝程式無法校驗它。請選擇其他方案。</translation>
    </message>
    <message>
        <source>%1 has not been downloaded yet. Go back to the download step.</source>
        <translation>%1 還沒有下載。請返回下載步驟。</translation>
    </message>
    <message>
        <source>Give a full folder path that starts with a drive, like C:\tfsetup-envs.</source>
        <translation>請提供以磁碟機代號開頭的完整資料夾路徑，例如 C:\tfsetup-envs。</translation>
    </message>
    <message>
        <source>Give a full folder path that starts with /, like /home/you/tfsetup-envs.</source>
        <translation>請提供以 / 開頭的完整資料夾路徑，例如 /home/you/tfsetup-envs。</translation>
    </message>
    <message>
        <source>This folder has characters outside English letters and digits. Some Python packages and NVIDIA tools fail in such folders on Windows; a folder like C:\tfsetup-envs is safer.</source>
        <translation>此資料夾的路徑中含有英文字母和數字以外的字元。在 Windows 上，有些 Python 套件和 NVIDIA 工具在這樣的資料夾中會出錯；使用 C:\tfsetup-envs 這樣的資料夾更穩妥。</translation>
    </message>
    <message>
        <source>This folder path is long (%1 characters). Windows limits paths to %2 characters unless long paths are enabled, and pip places files deep inside the environment. Choose a shorter folder.</source>
        <translation>這個資料夾路徑較長（%1 個字元）。除非啟用了長路徑支援，否則 Windows 限制路徑不超過 %2 個字元，而 pip 會把檔案放在環境內很深的位置。請選擇一個較短的資料夾。</translation>
    </message>
    <message>
        <source>Trusted on first use: no checksum is published anywhere; this SHA-256 was recorded when the file was downloaded on %1.</source>
        <translation>首次使用時信任：任何地方都沒有公布它的校驗和；這個 SHA-256 是在 %1 下載該檔案時記錄的。</translation>
    </message>
    <message>
        <source>The offline bundle %1 does not hold %2, which this plan needs. Make the bundle again with tfsetup bundle on a computer with internet.</source>
        <translation>離線包 %1 中沒有此方案所需的 %2。請在能上網的電腦上用 tfsetup bundle 重新制作離線包。</translation>
    </message>
    <message>
        <source>The offline bundle holds no pip wheels, so pip downloads %1 from %2; that needs the network. For an install without network, make the bundle without --no-wheelhouse.</source>
        <translation>離線包中沒有 pip 的 wheel 檔案，所以 pip 要從 %2 下載 %1，這需要網路。若要在無網路時安裝，請製作離線包時不要加 --no-wheelhouse。</translation>
    </message>
    <message>
        <source>The offline bundle %1 does not hold %2, which its lock names. Make the bundle again with tfsetup bundle on a computer with internet.</source>
        <translation>離線包 %1 中沒有其鎖定檔案所列的 %2。請在能上網的電腦上用 tfsetup bundle 重新制作離線包。</translation>
    </message>
</context>
<context>
    <name>SetupSession</name>
    <message>
        <source>The saved setup was written by another version of tfsetup and cannot be continued.</source>
        <translation>儲存的安裝進度由另一個版本的 tfsetup 寫入，無法繼續。</translation>
    </message>
    <message>
        <source>The saved setup is incomplete and cannot be continued.</source>
        <translation>儲存的安裝進度不完整，無法繼續。</translation>
    </message>
    <message>
        <source>The setup&apos;s progress could not be saved in %1; it cannot be continued after a restart.</source>
        <translation>安裝進度無法儲存到 %1；重新啟動後將無法繼續這次安裝。</translation>
    </message>
</context>
<context>
    <name>SimpleIndex</name>
    <message>
        <source>The package index sent a page for %1 larger than any real project page (more than %2 MB or %3 files). Check the package index address.</source>
        <translation>套件索引為 %1 傳送的頁面比任何真實的項目頁面都大（超過 %2 MB 或 %3 個檔案）。請檢查套件索引的網址。</translation>
    </message>
    <message>
        <source>The package index answered %1 with something that is not a package list. Check the package index address.</source>
        <translation>套件索引對 %1 的回答不是套件清單。請檢查套件索引的網址。</translation>
    </message>
</context>
<context>
    <name>SmokeResult</name>
    <message>
        <source>Import TensorFlow</source>
        <translation>匯入 TensorFlow</translation>
    </message>
    <message>
        <source>Find the GPU</source>
        <translation>查詢 GPU</translation>
    </message>
    <message>
        <source>Run a convolution (cuDNN)</source>
        <translation>執行卷積（cuDNN）</translation>
    </message>
    <message>
        <source>Compute on the GPU</source>
        <translation>在 GPU 上計算</translation>
    </message>
    <message>
        <source>Check the devices</source>
        <translation>檢查裝置</translation>
    </message>
    <message>
        <source>Run a convolution</source>
        <translation>執行卷積</translation>
    </message>
    <message>
        <source>Compute on the processor</source>
        <translation>在處理器上計算</translation>
    </message>
    <message>
        <source>The environment&apos;s Python could not be started: %1. Run tfsetup repair to rewrite the launchers.</source>
        <translation>無法啟動該環境的 Python：%1。請執行 tfsetup repair 重新寫入啟動指令碼。</translation>
    </message>
    <message>
        <source>The check did not finish in time. TensorFlow may be compiling GPU code for this card the first time (this can take many minutes); run tfsetup verify again.</source>
        <translation>檢查沒有在規定時間內完成。TensorFlow 可能正在首次為這張顯示卡編譯 GPU 程式碼（這可能需要很多分鐘）；請再次執行 tfsetup verify。</translation>
    </message>
    <message>
        <source>Python stopped with &quot;Illegal instruction&quot; while loading TensorFlow. This processor probably lacks an instruction set (AVX) the official TensorFlow packages require; use an older TensorFlow built without it or another computer.</source>
        <translation>載入 TensorFlow 時 Python 因「Illegal instruction」（非法指令）而停止。這個處理器可能缺少官方 TensorFlow 安裝套件所需的指令集（AVX）；請使用不依賴該指令集建置的舊版 TensorFlow，或換一台電腦。</translation>
    </message>
    <message>
        <source>Python stopped before the check could report (exit code %1). The details below show its last words; run tfsetup doctor with them.</source>
        <translation>檢查還沒來得及報告結果，Python 就已結束（結束代碼 %1）。下方的詳細資訊顯示了它最後的輸出；請帶上這些資訊執行 tfsetup doctor。</translation>
    </message>
    <message>
        <source>TensorFlow is not installed in this environment&apos;s Python. Run tfsetup repair, or install the environment again.</source>
        <translation>該環境的 Python 中沒有安裝 TensorFlow。請執行 tfsetup repair，或重新安裝該環境。</translation>
    </message>
    <message>
        <source>TensorFlow could not be imported because the library %1 is missing. Run tfsetup repair, or add the folder that holds it to the environment&apos;s library path.</source>
        <translation>無法匯入 TensorFlow，因為缺少函式庫 %1。請執行 tfsetup repair，或把包含它的資料夾新增到該環境的函式庫路徑中。</translation>
    </message>
    <message>
        <source>Windows could not load a DLL TensorFlow needs. Install the Microsoft Visual C++ Redistributable (x64); if that does not help, run tfsetup doctor.</source>
        <translation>Windows 無法載入 TensorFlow 需要的某個 DLL。請安裝 Microsoft Visual C++ 可轉散發套件（x64）；如果仍然不行，請執行 tfsetup doctor。</translation>
    </message>
    <message>
        <source>TensorFlow was built against an older NumPy than the one installed. Install the NumPy version this TensorFlow release names (tfsetup repair does).</source>
        <translation>TensorFlow 建置時所用的 NumPy 比目前安裝的版本舊。請安裝此 TensorFlow 版本指定的 NumPy 版本（tfsetup repair 會這樣做）。</translation>
    </message>
    <message>
        <source>TensorFlow could not be imported: %1. Run tfsetup doctor with the details below.</source>
        <translation>無法匯入 TensorFlow：%1。請根據下面的詳細資訊執行 tfsetup doctor。</translation>
    </message>
    <message>
        <source>TensorFlow %1 imported in %2 s</source>
        <translation>TensorFlow %1 匯入耗時 %2 秒</translation>
    </message>
    <message>
        <source>TensorFlow could not list its devices: %1. Run tfsetup doctor with the details below.</source>
        <translation>TensorFlow 無法列出它的裝置：%1。請帶上下面的詳細資訊執行 tfsetup doctor。</translation>
    </message>
    <message>
        <source>This TensorFlow package was built without GPU support (TensorFlow 2.11 and newer on native Windows, or a CPU-only package). Use WSL2 or TensorFlow 2.10 on Windows, or the GPU package on Linux.</source>
        <translation>此 TensorFlow 安裝套件在建置時沒有 GPU 支援（原生 Windows 上的 TensorFlow 2.11 及更新版本，或僅支援 CPU 的安裝套件）。請在 Windows 上使用 WSL2 或 TensorFlow 2.10，在 Linux 上使用 GPU 版安裝套件。</translation>
    </message>
    <message>
        <source>TensorFlow could not load %1, so it ignores the GPU. Run tfsetup repair, or add the folder that holds these files to the environment&apos;s library path.</source>
        <translation>TensorFlow 無法載入 %1，因此不會使用 GPU。請執行 tfsetup repair，或把存放這些檔案的資料夾新增到環境的函式庫搜尋路徑中。</translation>
    </message>
    <message>
        <source>The NVIDIA driver did not start (%1). Check that the NVIDIA driver is installed and the GPU is enabled, then restart the computer.</source>
        <translation>NVIDIA 驅動程式沒有啟動（%1）。請檢查 NVIDIA 驅動程式是否已安裝、GPU 是否已啟用，然後重新啟動電腦。</translation>
    </message>
    <message>
        <source>TensorFlow imported but sees no GPU. Run tfsetup doctor to find out which part is missing.</source>
        <translation>TensorFlow 已匯入，但看不到任何 GPU。請執行 tfsetup doctor，找出缺少的是哪一部分。</translation>
    </message>
    <message>
        <source>No GPU, as planned: TensorFlow uses the processor</source>
        <translation>按計劃不使用 GPU：TensorFlow 使用處理器（CPU）執行</translation>
    </message>
    <message>
        <source>TensorFlow sees %1</source>
        <translation>TensorFlow 偵測到 %1</translation>
    </message>
    <message>
        <source>Memory growth could not be switched on, so TensorFlow may reserve all GPU memory at once: %1</source>
        <translation>無法開啟顯示記憶體按需增長，因此 TensorFlow 可能會一次性佔用全部 GPU 顯示記憶體：%1</translation>
    </message>
    <message>
        <source>The GPU ran out of memory. Close other programs that use the GPU (including other Jupyter notebooks) and run the check again.</source>
        <translation>GPU 顯示記憶體不足。請關閉其他正在使用 GPU 的程式（包括其他 Jupyter notebook），然後重新執行檢查。</translation>
    </message>
    <message>
        <source>This TensorFlow build has no code for this GPU&apos;s architecture. Choose a TensorFlow release that supports the card (tfsetup plan lists them).</source>
        <translation>此 TensorFlow 版本不包含適用於這個 GPU 架構的程式碼。請選擇支援這張顯示卡的 TensorFlow 版本（tfsetup plan 會列出）。</translation>
    </message>
    <message>
        <source>The convolution did not run; see the details below.</source>
        <translation>卷積沒有執行；請檢視下面的詳細資訊。</translation>
    </message>
    <message>
        <source>TensorFlow found cuDNN %1 but was built with cuDNN %2; it needs the same major version and at least that minor version. Install cuDNN %2 or newer of that major version (tfsetup repair).</source>
        <translation>TensorFlow 找到的是 cuDNN %1，但它是用 cuDNN %2 建置的；它需要主版本號相同、次版本號不低於該版本的 cuDNN。請安裝同一主版本中 %2 或更新的 cuDNN（tfsetup repair）。</translation>
    </message>
    <message>
        <source>The GPU works but cuDNN could not be used, so convolutions fail. cuDNN is missing, incomplete, or a different version than TensorFlow needs; run tfsetup repair.</source>
        <translation>GPU 可以工作，但無法使用 cuDNN，因此卷積運算會失敗。cuDNN 缺失、不完整，或者版本與 TensorFlow 所需的不同；請執行 tfsetup repair。</translation>
    </message>
    <message>
        <source>The convolution failed: %1. Run tfsetup doctor with the details below.</source>
        <translation>卷積失敗：%1。請根據下面的詳細資訊執行 tfsetup doctor。</translation>
    </message>
    <message>
        <source>The convolution ran on %1 instead of the GPU. Run tfsetup doctor.</source>
        <translation>卷積運算在 %1 上執行，而不是在 GPU 上。請執行 tfsetup doctor。</translation>
    </message>
    <message>
        <source>Convolution in %1 s on %2</source>
        <translation>卷積耗時 %1 秒，執行於 %2</translation>
    </message>
    <message>
        <source>The convolution gave a wrong result. The GPU or its driver is unreliable; update the driver and run the check again.</source>
        <translation>卷積結果錯誤。GPU 或其驅動程式不可靠；請更新驅動程式，然後重新檢查。</translation>
    </message>
    <message>
        <source>The matrix product failed: %1. Run tfsetup doctor with the details below.</source>
        <translation>矩陣乘法失敗：%1。請帶上下方的詳細資訊執行 tfsetup doctor。</translation>
    </message>
    <message>
        <source>The matrix product ran on %1 instead of the GPU. Run tfsetup doctor.</source>
        <translation>矩陣乘法執行在 %1 上，而不是 GPU 上。請執行 tfsetup doctor。</translation>
    </message>
    <message>
        <source>The matrix product gave a wrong result. The GPU or its driver is unreliable; update the driver and run the check again.</source>
        <translation>矩陣乘法結果錯誤。GPU 或其驅動程式不可靠；請更新驅動程式，然後重新檢查。</translation>
    </message>
    <message>
        <source>%1×%1 matrix product in %2 s (first run %3 s)</source>
        <translation>%1×%1 矩陣乘法耗時 %2 秒（首次執行 %3 秒）</translation>
    </message>
    <message>
        <source>the processor</source>
        <translation>處理器</translation>
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
        <translation>%1 的運算能力未知，因此 tfsetup 無法判斷它是否適用於 TensorFlow %2；請在那台電腦上直接執行 tfsetup detect。</translation>
    </message>
    <message>
        <source>The catalog does not say which GPUs TensorFlow %1 supports.</source>
        <translation>知識庫中沒有說明 TensorFlow %1 支援哪些 GPU。</translation>
    </message>
    <message>
        <source>TensorFlow %1 (CUDA %2) runs on compute capability %3 and newer; the %4 has %5.</source>
        <translation>TensorFlow %1（CUDA %2）需要運算能力 %3 或更高；%4 的運算能力是 %5。</translation>
    </message>
    <message>
        <source>TensorFlow %1 is built with CUDA %2, which targets compute capability up to %3; the %4 (%5) is newer than any CUDA the catalog knows.</source>
        <translation>TensorFlow %1 是用 CUDA %2 建置的，它最高支援運算能力 %3；%4（%5）太新，知識庫中已知的 CUDA 版本都不支援它。</translation>
    </message>
    <message>
        <source>TensorFlow %1 has GPU code for compute capability %2 only; none of it runs on the %3 (%4).</source>
        <translation>TensorFlow %1 只包含面向運算能力 %2 的 GPU 程式碼，其中沒有能在 %3（%4）上執行的。</translation>
    </message>
    <message>
        <source>TensorFlow %1 has no machine code for the %2 (compute capability %3): the driver compiles its PTX for %4 when TensorFlow starts, which takes minutes the first time.</source>
        <translation>TensorFlow %1 沒有適用於 %2（運算能力 %3）的機器碼：TensorFlow 啟動時，驅動程式會編譯其面向運算能力 %4 的 PTX 程式碼，第一次啟動需要幾分鐘。</translation>
    </message>
    <message>
        <source>TensorFlow %1 is built with CUDA %2, which predates the %3 (compute capability %4; CUDA %2 targets up to %5): code compiled while TensorFlow runs goes through the driver&apos;s PTX JIT, so the first start is slow and some operations are reported to fail.</source>
        <translation>TensorFlow %1 是用 CUDA %2 建置的，而 CUDA %2 發布時還沒有 %3（運算能力 %4；CUDA %2 最高支援 %5）：TensorFlow 執行時編譯的程式碼要經過驅動程式的 PTX JIT，所以第一次啟動較慢，而且有報告稱部分操作會失敗。</translation>
    </message>
    <message>
        <source>tfsetup could not confirm %1 from a primary source; the plan assumes it.</source>
        <translation>關於「%1」，tfsetup 無法從一手來源確認；本方案暫按此假定。</translation>
    </message>
    <message>
        <source>WSL1 has no GPU access. Convert this distribution to WSL2 (wsl --set-version &lt;distribution&gt; 2).</source>
        <translation>WSL1 無法使用 GPU。請把這個發行版轉換為 WSL2（wsl --set-version &lt;distribution&gt; 2）。</translation>
    </message>
    <message>
        <source>GPU support in WSL2 needs Windows 10 build %1 or newer; this Windows is build %2. Update Windows.</source>
        <translation>WSL2 中的 GPU 支援需要 Windows 10 內部版本 %1 或更高；此 Windows 的內部版本是 %2。請更新 Windows。</translation>
    </message>
    <message>
        <source>There is no official TensorFlow package for %1 on %2.</source>
        <translation>沒有適用於 %1（%2）的官方 TensorFlow 安裝套件。</translation>
    </message>
    <message>
        <source>Official TensorFlow packages use AVX instructions since TensorFlow %1; this processor (%2) has no AVX.</source>
        <translation>從 TensorFlow %1 起，官方 TensorFlow 安裝套件都使用 AVX 指令；此處理器（%2）不支援 AVX。</translation>
    </message>
    <message>
        <source>name unknown</source>
        <translation>名稱未知</translation>
    </message>
    <message>
        <source>TensorFlow %1 has no GPU support on native Windows: the last release with it is %2. Use WSL2 for newer releases, or TensorFlow %2 here.</source>
        <translation>TensorFlow %1 在原生 Windows 上不支援 GPU：最後一個支援 GPU 的版本是 %2。要使用更新的版本，請改用 WSL2，或在這裡使用 TensorFlow %2。</translation>
    </message>
    <message>
        <source>that TensorFlow %1 is published for %2 on %3</source>
        <translation>TensorFlow %1 提供適用於 %2（%3）的版本</translation>
    </message>
    <message>
        <source>the package name %1 for TensorFlow %2</source>
        <translation>TensorFlow %2 的套件名稱 %1</translation>
    </message>
    <message>
        <source>TensorFlow %1 supports Python %2; you asked for Python %3.</source>
        <translation>TensorFlow %1 支援 Python %2；而你指定的是 Python %3。</translation>
    </message>
    <message>
        <source>Install Python %1 (TensorFlow %2 supports Python %3).</source>
        <translation>安裝 Python %1（TensorFlow %2 支援 Python %3）。</translation>
    </message>
    <message>
        <source>Install Python %1: TensorFlow %2 supports Python %3, and this machine has %4.</source>
        <translation>安裝 Python %1：TensorFlow %2 支援 Python %3，而本機上的是 %4。</translation>
    </message>
    <message>
        <source>which GPU architectures TensorFlow %1&apos;s packages contain</source>
        <translation>TensorFlow %1 的安裝套件包含哪些 GPU 架構</translation>
    </message>
    <message>
        <source>%1 (compute capability %2)</source>
        <translation>%1（運算能力 %2）</translation>
    </message>
    <message>
        <source>TensorFlow will not use the %1.</source>
        <translation>TensorFlow 不會使用 %1。</translation>
    </message>
    <message>
        <source>TensorFlow %1 needs CUDA %2, and PTX JIT needs the driver CUDA %2 shipped with, %3 or newer on %4; yours is %5.</source>
        <translation>TensorFlow %1 需要 CUDA %2，而 PTX JIT 需要 CUDA %2 隨附的驅動程式，即 %4 上的 %3 或更新版本；你的是 %5。</translation>
    </message>
    <message>
        <source>TensorFlow %1 needs CUDA %2, which needs driver %3 or newer on %4; yours is %5.</source>
        <translation>TensorFlow %1 需要 CUDA %2，而 CUDA %2 在 %4 上需要 %3 或更新版本的驅動程式；你的是 %5。</translation>
    </message>
    <message>
        <source>TensorFlow %1 needs CUDA %2; your driver supports CUDA up to %3. It needs driver %4 or newer on %5.</source>
        <translation>TensorFlow %1 需要 CUDA %2；你的驅動程式最高只支援 CUDA %3。在 %5 上需要 %4 或更新版本的驅動程式。</translation>
    </message>
    <message>
        <source>Install the NVIDIA driver, %1 or newer (TensorFlow %2 needs CUDA %3).</source>
        <translation>安裝 %1 或更新版本的 NVIDIA 驅動程式（TensorFlow %2 需要 CUDA %3）。</translation>
    </message>
    <message>
        <source>Update the NVIDIA driver to %1 or newer.</source>
        <translation>將 NVIDIA 驅動程式更新到 %1 或更新版本。</translation>
    </message>
    <message>
        <source>Install CUDA %1 (TensorFlow %2 opens %3).</source>
        <translation>安裝 CUDA %1（TensorFlow %2 會載入 %3）。</translation>
    </message>
    <message>
        <source>Install cuDNN %1 (TensorFlow %2 opens %3).</source>
        <translation>安裝 cuDNN %1（TensorFlow %2 會載入 %3）。</translation>
    </message>
    <message>
        <source>Install the Microsoft Visual C++ Redistributable for Visual Studio 2015-2022 (x64); TensorFlow needs msvcp140.dll.</source>
        <translation>安裝 Microsoft Visual C++ 可轉散發套件（Visual Studio 2015-2022，x64）；TensorFlow 需要 msvcp140.dll。</translation>
    </message>
    <message>
        <source>Install WSL2 with a Linux distribution (wsl --install) and run tfsetup inside it: TensorFlow %1 uses the GPU there, while native Windows GPU support ended with TensorFlow %2.</source>
        <translation>安裝 WSL2 和一個 Linux 發行版（wsl --install），然後在其中執行 tfsetup：TensorFlow %1 在那裡可以使用 GPU，而原生 Windows 上的 GPU 支援止於 TensorFlow %2。</translation>
    </message>
    <message>
        <source>Install AMD ROCm for your GPU first; AMD lists which Radeon and Instinct GPUs each ROCm release supports.</source>
        <translation>請先為你的 GPU 安裝 AMD ROCm；AMD 官方列出了每個 ROCm 版本支援哪些 Radeon 和 Instinct GPU。</translation>
    </message>
    <message>
        <source>TensorFlow %1&apos;s tested configuration runs natively on your %2.</source>
        <translation>TensorFlow %1 的官方測試組態可以在你的 %2 上原生執行。</translation>
    </message>
    <message>
        <source>TensorFlow %1 runs on your %2 inside WSL2; native Windows GPU support ended with TensorFlow %3.</source>
        <translation>TensorFlow %1 在 WSL2 中使用你的 %2 執行；原生 Windows 上的 GPU 支援止於 TensorFlow %3。</translation>
    </message>
    <message>
        <source>TensorFlow %1 can use your %2 only through PTX JIT: slow first start.</source>
        <translation>TensorFlow %1 只能透過 PTX JIT 使用你的 %2：第一次啟動會比較慢。</translation>
    </message>
    <message>
        <source>TensorFlow %1 runs on the CPU.</source>
        <translation>TensorFlow %1 在 CPU 上執行。</translation>
    </message>
    <message>
        <source>No GPU route fits this machine, so TensorFlow %1 runs on the CPU.</source>
        <translation>沒有適合本機的 GPU 路線，因此 TensorFlow %1 將在 CPU 上執行。</translation>
    </message>
    <message>
        <source>CUDA %1 and cuDNN %2 come as pip packages, so only the NVIDIA driver (%3 or newer) must be installed.</source>
        <translation>CUDA %1 和 cuDNN %2 以 pip 套件的形式提供，所以只需要安裝 NVIDIA 驅動程式（%3 或更新版本）。</translation>
    </message>
    <message>
        <source>It needs CUDA %1, cuDNN %2 and driver %3 or newer.</source>
        <translation>它需要 CUDA %1、cuDNN %2 以及 %3 或更新版本的驅動程式。</translation>
    </message>
    <message>
        <source>It uses the installed Python %1.</source>
        <translation>它使用已安裝的 Python %1。</translation>
    </message>
    <message>
        <source>It needs Python %1, which tfsetup installs.</source>
        <translation>它需要 Python %1，tfsetup 會幫你安裝。</translation>
    </message>
    <message>
        <source>TensorFlow %1 is newer and listed as an alternative, but the catalog could not confirm all of its facts.</source>
        <translation>TensorFlow %1 版本更新，已列為備選方案，但知識庫無法確認它的全部資訊。</translation>
    </message>
    <message>
        <source>The hardware report does not name the operating system; the plan assumes Linux. Give --os to choose.</source>
        <translation>硬體報告中沒有註明作業系統；本方案假定為 Linux。可以用 --os 指定。</translation>
    </message>
    <message>
        <source>The catalog has no TensorFlow release %1 for this machine&apos;s routes.</source>
        <translation>知識庫中沒有適用於本機可用路線的 TensorFlow %1 版本。</translation>
    </message>
    <message>
        <source>No TensorFlow release in the catalog can use your %1 here; the rejected combinations say why.</source>
        <translation>知識庫中沒有哪個 TensorFlow 版本能在這裡使用你的 %1；被排除的組合中說明了原因。</translation>
    </message>
    <message>
        <source>Official TensorFlow packages need a processor with AVX. Use a newer computer or a hosted notebook service.</source>
        <translation>官方 TensorFlow 安裝套件需要支援 AVX 的處理器。請換一台較新的電腦，或使用雲端 Notebook 服務。</translation>
    </message>
    <message>
        <source> or </source>
        <comment>joins processor architectures: x86_64 or arm64</comment>
        <translation> 或 </translation>
    </message>
    <message>
        <source>TensorFlow %1 on the processor only: the fallback that works without the GPU, slower but with nothing to install for the graphics card.</source>
        <translation>TensorFlow %1 只使用處理器：這是不使用 GPU 也能工作的備選方案，速度較慢，但無需為顯示卡安裝任何東西。</translation>
    </message>
    <message>
        <source>TensorFlow %1 has no official package for %2 on %3: the last release for it is %4.</source>
        <translation>TensorFlow %1 沒有適用於 %3 上 %2 的官方套件：它的最後一個版本是 %4。</translation>
    </message>
    <message>
        <source>%1 or newer</source>
        <comment>a Python range open at the top</comment>
        <translation>%1 或更新</translation>
    </message>
    <message>
        <source>%1 or older</source>
        <comment>a Python range open at the bottom</comment>
        <translation>%1 或更舊</translation>
    </message>
    <message>
        <source>tfsetup could not read this Windows build number; GPU support in WSL2 needs Windows 10 build %1 or newer (winver shows the build).</source>
        <translation>tfsetup 無法讀取這個 Windows 版本號；WSL2 中的 GPU 支援需要 Windows 10 版本 %1 或更新（winver 會顯示版本號）。</translation>
    </message>
    <message>
        <source>“%1” runs on %2; this machine runs %3.</source>
        <translation>「%1」執行於 %2；這台機器執行的是 %3。</translation>
    </message>
    <message>
        <source>This is WSL2, where the GPU driver is the Windows one: “%1” does not work here; the GPU inside WSL2 does.</source>
        <translation>這裡是 WSL2，GPU 驅動程式由 Windows 提供：「%1」在這裡無法使用，而 WSL2 內的 GPU 安裝方式可以。</translation>
    </message>
    <message>
        <source>“%1” is for Windows machines and for WSL2 itself; this is plain Linux.</source>
        <translation>「%1」適用於 Windows 機器和 WSL2 本身；這裡是普通 Linux。</translation>
    </message>
    <message>
        <source>“%1” runs on Windows and inside WSL2, not on plain Linux.</source>
        <translation>「%1」可在 Windows 上和 WSL2 內執行，不能在普通 Linux 上執行。</translation>
    </message>
    <message>
        <source>“%1” needs a %2 processor; this machine is %3.</source>
        <translation>「%1」需要 %2 處理器；這台機器是 %3。</translation>
    </message>
    <message>
        <source>No NVIDIA GPU was found; “%1” needs one.</source>
        <translation>未找到 NVIDIA GPU；「%1」需要 NVIDIA GPU。</translation>
    </message>
    <message>
        <source>“%1” needs an NVIDIA GPU; this machine has %2.</source>
        <translation>「%1」需要 NVIDIA GPU；這台機器配備的是 %2。</translation>
    </message>
    <message>
        <source>“%1” needs an AMD GPU; none was found.</source>
        <translation>「%1」需要 AMD GPU，但未找到。</translation>
    </message>
    <message>
        <source>“%1” needs a Mac with Apple silicon.</source>
        <translation>「%1」需要配備 Apple 晶片的 Mac。</translation>
    </message>
    <message>
        <source>“%1” needs a DirectX 12 GPU; none was found.</source>
        <translation>「%1」需要支援 DirectX 12 的 GPU，但未找到。</translation>
    </message>
    <message>
        <source>every detail of “%1”</source>
        <translation>「%1」的全部細節</translation>
    </message>
    <message>
        <source>Prepare “%1” (%2).</source>
        <translation>準備「%1」（%2）。</translation>
    </message>
    <message>
        <source>“%1” is offered as an experiment: tfsetup cannot confirm that it supports your GPU.</source>
        <translation>「%1」是實驗性的：tfsetup 無法確認它是否支援你的 GPU。</translation>
    </message>
    <message>
        <source>TensorFlow %1 uses your GPU through “%2”.</source>
        <translation>TensorFlow %1 透過「%2」使用你的 GPU。</translation>
    </message>
    <message>
        <source>TensorFlow %1 on “%2”, an experimental route.</source>
        <translation>TensorFlow %1，使用「%2」（實驗性安裝方式）。</translation>
    </message>
    <message>
        <source>TensorFlow %1 supports Python %4, and “%2” needs Python %3: no Python fits both.</source>
        <translation>TensorFlow %1 支援 Python %4，而「%2」需要 Python %3：沒有同時滿足兩者的 Python 版本。</translation>
    </message>
    <message>
        <source>%1 %2, the plug-in&apos;s last release (%3), has packages for Python %4 only.</source>
        <translation>%1 %2 是該外掛的最後一個版本（%3），只提供 Python %4 的安裝套件。</translation>
    </message>
    <message>
        <source>The %4 (compute capability %5) is newer than TensorFlow %1&apos;s GPU code: its packages are built with CUDA %2, which targets compute capability up to %3, and code for the %4 must be built with CUDA %6 or newer. Installing a newer CUDA yourself does not change TensorFlow&apos;s packages.</source>
        <translation>%4（運算能力 %5）比 TensorFlow %1 的 GPU 程式碼更新：TensorFlow %1 的安裝套件用 CUDA %2 建置，最高只面向運算能力 %3，而 %4 的程式碼必須用 CUDA %6 或更新版本建置。自己安裝更新的 CUDA 不會改變 TensorFlow 的安裝套件。</translation>
    </message>
    <message>
        <source>%1 %2, the plug-in&apos;s last release (%3), does not work with TensorFlow %4: importing TensorFlow fails while it loads the plug-in. The newest TensorFlow it works with is %5.</source>
        <translation>%1 %2 是該外掛的最後一個版本（%3），不能與 TensorFlow %4 一起使用：匯入 TensorFlow 時載入該外掛會失敗。它能配合的最新 TensorFlow 是 %5。</translation>
    </message>
    <message>
        <source>%1 %2, the plug-in&apos;s last release (%3), works with TensorFlow up to %5; TensorFlow %4 came later and is not known to work with it.</source>
        <translation>%1 %2 是該外掛的最後一個版本（%3），最高可配合 TensorFlow %5；TensorFlow %4 發布在它之後，沒有記錄表明兩者能一起使用。</translation>
    </message>
    <message>
        <source>You asked for Python %1.</source>
        <translation>你指定的是 Python %1。</translation>
    </message>
    <message>
        <source>TensorFlow %1 supports Python %2.</source>
        <translation>TensorFlow %1 支援 Python %2。</translation>
    </message>
    <message>
        <source>No Python fits both.</source>
        <translation>沒有同時滿足兩者的 Python 版本。</translation>
    </message>
    <message>
        <source>%1 (%2; its last driver branch is R%3)</source>
        <translation>%1（%2 架構；最後支援它的驅動分支是 R%3）</translation>
    </message>
    <message>
        <source>Take a driver of the R%1 branch or older: NVIDIA&apos;s later drivers no longer support %2 GPUs such as your %3.</source>
        <translation>請選擇 R%1 分支或更早的驅動：NVIDIA 之後的驅動不再支援 %2 架構的 GPU，例如你的 %3。</translation>
    </message>
    <message>
        <source>Driver %1 or newer, which TensorFlow %2 needs, no longer supports your %3: it stops working for every program on this machine, not only for TensorFlow.</source>
        <translation>TensorFlow %2 需要的 %1 或更新版本的驅動不再支援你的 %3：這台機器上的所有程式都將無法使用它，而不只是 TensorFlow。</translation>
    </message>
    <message>
        <source>It installs beside your CUDA %1, which stays as it is for other programs: this environment&apos;s launcher puts CUDA %2 first, for this environment only.</source>
        <translation>它會安裝在你現有的 CUDA %1 旁邊，CUDA %1 保持不變，其他程式照常使用；只有這個環境的啟動指令碼會把 CUDA %2 放在最前面。</translation>
    </message>
    <message>
        <source>To keep every GPU working, take the first alternative instead: TensorFlow %1 (%2) runs with the driver you have.</source>
        <translation>要讓每塊 GPU 都繼續可用，請改選第一個備選方案：TensorFlow %1（%2）用你現有的驅動即可執行。</translation>
    </message>
    <message>
        <source>To keep every GPU working, take the first alternative instead: TensorFlow %1 (%2) needs no driver that drops one.</source>
        <translation>要讓每塊 GPU 都繼續可用，請改選第一個備選方案：TensorFlow %1（%2）不需要會放棄任何一塊 GPU 的驅動。</translation>
    </message>
    <message>
        <source>The hardware report describes a %1 machine; this plan is for %2, as --os asks. It plans for the report&apos;s processor and GPUs; the report&apos;s Pythons, NVIDIA driver, CUDA and cuDNN belong to %1, so the plan treats them as not installed on %2.</source>
        <translation>硬體報告描述的是一台 %1 機器；按 --os 的要求，這個方案面向 %2。方案按報告中的處理器和 GPU 來制定；報告中的 Python、NVIDIA 驅動、CUDA 和 cuDNN 屬於 %1，所以方案把它們視為在 %2 上未安裝。</translation>
    </message>
    <message>
        <source>No TensorFlow release on “%2” can use your %1 here; plan without --route to see every way.</source>
        <translation>「%2」上沒有哪個 TensorFlow 版本能在這裡使用你的 %1；去掉 --route 重新制定方案，可以看到所有路線。</translation>
    </message>
    <message>
        <source>No TensorFlow release in the catalog can use your %1 here.</source>
        <translation>知識函式庫中沒有哪個 TensorFlow 版本能在這裡使用你的 %1。</translation>
    </message>
</context>
<context>
    <name>SourceCatalog</name>
    <message>
        <source>The sources catalog %1 cannot be read. Reinstall tfsetup.</source>
        <translation>無法讀取下載來源表 %1。請重新安裝 tfsetup。</translation>
    </message>
    <message>
        <source>The sources catalog is not valid JSON. Reinstall tfsetup.</source>
        <translation>下載來源表不是有效的 JSON。請重新安裝 tfsetup。</translation>
    </message>
    <message>
        <source>The sources catalog pins the relocatable Python %1 (python-build-standalone release %2) to the SHA-256 &quot;%3&quot;, which is not 64 lower-case hexadecimal digits. Correct that record in the sources catalog, or reinstall tfsetup.</source>
        <translation>下載來源表把可移植 Python %1（python-build-standalone 發布 %2）固定為 SHA-256「%3」，這不是 64 位小寫十六進位數字。請在下載來源表中更正該記錄，或重新安裝 tfsetup。</translation>
    </message>
    <message>
        <source>is not a list</source>
        <translation>不是清單</translation>
    </message>
    <message>
        <source>is not an object</source>
        <translation>不是物件</translation>
    </message>
    <message>
        <source>must name an origin whose files a mirror copies (nvidia, python, python-build-standalone); PyPI mirrors are chosen in the options</source>
        <translation>必須指定鏡像站所複製檔案的來源（nvidia、python、python-build-standalone）；PyPI 鏡像站在選項中選擇</translation>
    </message>
    <message>
        <source>must be an http://, https:// or file:// address</source>
        <translation>必須是 http://、https:// 或 file:// 網址</translation>
    </message>
    <message>
        <source>must be text</source>
        <translation>必須是文字</translation>
    </message>
    <message>
        <source>The sources catalog&apos;s mirror list is not usable: &quot;%1&quot; %2. Correct the &quot;mirrors&quot; list of the catalog (each entry: an &quot;origin&quot; such as nvidia and an http://, https:// or file:// &quot;url&quot;), or reinstall tfsetup.</source>
        <translation>來源知識函式庫的鏡像站清單無法使用：&quot;%1&quot; %2。請更正知識函式庫的 &quot;mirrors&quot; 清單（每一項：一個 &quot;origin&quot;，例如 nvidia，以及一個 http://、https:// 或 file:// 的 &quot;url&quot;），或重新安裝 tfsetup。</translation>
    </message>
</context>
<context>
    <name>SystemView</name>
    <message>
        <source>Cannot read the environment file %1. Check the path and that it is readable.</source>
        <translation>無法讀取環境檔案 %1。請檢查路徑以及該檔案是否可讀。</translation>
    </message>
    <message>
        <source>Line %1 of the environment file %2 is not KEY=VALUE. Fix or remove that line.</source>
        <translation>環境檔案 %2 的第 %1 行不是 KEY=VALUE 格式。請修正或刪除該行。</translation>
    </message>
    <message>
        <source>The folder %1 given as the system root does not exist. Give an existing folder.</source>
        <translation>作為系統根目錄指定的資料夾 %1 不存在。請指定一個已存在的資料夾。</translation>
    </message>
</context>
<context>
    <name>TextInput</name>
    <message>
        <source>%1 looks like UTF-16 text but is damaged. Save it again as UTF-8 (in PowerShell: Out-File -Encoding utf8) and try again.</source>
        <translation>%1 看起來是 UTF-16 文字，但已損壞。請重新另存為 UTF-8（在 PowerShell 中：Out-File -Encoding utf8）後重試。</translation>
    </message>
    <message>
        <source>%1 is not text tfsetup can read (not UTF-8, UTF-16 or this computer&apos;s code page). Open it in an editor, save it as UTF-8 and try again.</source>
        <translation>%1 不是 tfsetup 能讀取的文字（既不是 UTF-8、UTF-16，也不是本機的內碼表）。請用編輯器開啟，另存為 UTF-8 後重試。</translation>
    </message>
</context>
<context>
    <name>TfLogRules</name>
    <message>
        <source>The list of TensorFlow log messages (%1) cannot be read. Reinstall tfsetup.</source>
        <translation>無法讀取 TensorFlow 日誌訊息清單（%1）。請重新安裝 tfsetup。</translation>
    </message>
    <message>
        <source>The list of TensorFlow log messages is damaged. Reinstall tfsetup.</source>
        <translation>TensorFlow 日誌訊息清單已損壞。請重新安裝 tfsetup。</translation>
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
        <translation>%1 分鐘</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 小時 %2 分鐘</translation>
    </message>
</context>
<context>
    <name>UpgradeOutcome</name>
    <message>
        <source>Upgraded %1 to TensorFlow %2.
</source>
        <translation>已將 %1 升級到 TensorFlow %2。
</translation>
    </message>
</context>
<context>
    <name>UpgradeProposal</name>
    <message>
        <source>Give the environment folder to upgrade, for example %1.</source>
        <translation>請指定要升級的環境資料夾，例如 %1。</translation>
    </message>
    <message>
        <source>There is no environment folder %1. Give the folder that holds environment.json (tfsetup list shows them).</source>
        <translation>沒有環境資料夾 %1。請指定包含 environment.json 的資料夾（tfsetup list 會列出它們）。</translation>
    </message>
    <message>
        <source>%1 was not made by tfsetup (it holds no environment.json), so tfsetup does not upgrade it. Make a new environment with the wizard or tfsetup install instead.</source>
        <translation>%1 不是 tfsetup 建立的（其中沒有 environment.json），因此 tfsetup 不會升級它。請改用精靈或 tfsetup install 建立新環境。</translation>
    </message>
    <message>
        <source>The record of %1 does not say which route and TensorFlow it has, so tfsetup cannot tell what is newer. Run tfsetup repair --env %1 first.</source>
        <translation>%1 的記錄沒有說明它的路線和 TensorFlow 版本，因此 tfsetup 無法判斷什麼更新。請先執行 tfsetup repair --env %1。</translation>
    </message>
    <message>
        <source>  TensorFlow %1 → %2 (route %3)
</source>
        <translation>  TensorFlow %1 → %2（路線 %3）
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
        <translation>無</translation>
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
        <translation>  下載：尚不清楚（%1）
</translation>
    </message>
    <message>
        <source>  Your own files in the environment are kept; the current version stays in use until the new one is complete.
</source>
        <translation>  環境中你自己的檔案會保留；在新版本完成之前，目前版本照常可用。
</translation>
    </message>
    <message>
        <source>  The %1 route: %2
</source>
        <translation>  %1 路線：%2
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
            <numerusform>  下載：%n 個檔案，%1 MB，每個都會核對校驗和（快取中已有的檔案不會再次下載）
</numerusform>
        </translation>
    </message>
    <message>
        <source>  Python packages: %1 (locked by pip&apos;s resolver; each wheel is checked against its hash)
</source>
        <translation>  Python 套件：%1（由 pip 的解析器鎖定；每個 wheel 都會核對其雜湊值）
</translation>
    </message>
</context>
<context>
    <name>VerifyReport</name>
    <message>
        <source>The library probe tfsetup-probe is not next to tfsetup (%1). Reinstall tfsetup.</source>
        <translation>函式庫探測程式 tfsetup-probe 不在 tfsetup 旁邊（%1）。請重新安裝 tfsetup。</translation>
    </message>
    <message>
        <source>tfsetup cannot write to the temporary folder; free some disk space.</source>
        <translation>tfsetup 無法寫入暫存資料夾；請釋放一些磁碟空間。</translation>
    </message>
    <message>
        <source>The environment&apos;s launcher %1 could not be started: %2. Run tfsetup repair to rewrite it.</source>
        <translation>無法啟動該環境的啟動指令碼 %1：%2。請執行 tfsetup repair 重新生成它。</translation>
    </message>
    <message>
        <source>Loading the GPU libraries did not finish in time%1.</source>
        <translation>載入 GPU 函式庫未能在規定時間內完成%1。</translation>
    </message>
    <message>
        <source>Loading %1 crashed the library probe: that file is damaged or not a genuine NVIDIA library. Run tfsetup repair.</source>
        <translation>載入 %1 時函式庫探測程式崩潰了：該檔案已損壞，或者不是真正的 NVIDIA 函式庫。請執行 tfsetup repair。</translation>
    </message>
    <message>
        <source>The library probe gave no report (exit code %1).</source>
        <translation>函式庫探測程式沒有給出報告（結束代碼 %1）。</translation>
    </message>
    <message>
        <source>Load the GPU libraries</source>
        <translation>載入 GPU 函式庫</translation>
    </message>
    <message>
        <source>%1 of %2 libraries loaded</source>
        <translation>已載入 %1 / %2 個函式庫</translation>
    </message>
    <message>
        <source>TensorFlow itself found working libraries, so this only matters to other programs that use this library path.</source>
        <translation>TensorFlow 本身找到了可用的函式庫，所以這只會影響使用此函式庫路徑的其他程式。</translation>
    </message>
    <message>
        <source>The environment works: TensorFlow ran on the expected device.</source>
        <translation>環境工作正常：TensorFlow 在預期的裝置上執行。</translation>
    </message>
    <message>
        <source>Verification failed at &quot;%1&quot;. Details: tfsetup verify --json.</source>
        <translation>驗證在「%1」這一步失敗。詳細資訊：tfsetup verify --json。</translation>
    </message>
    <message>
        <source>GPU test kernel through the driver</source>
        <translation>透過驅動程式執行 GPU 測試核心</translation>
    </message>
    <message>
        <source>cuBLAS matrix multiplication on the GPU</source>
        <translation>在 GPU 上進行 cuBLAS 矩陣乘法</translation>
    </message>
    <message>
        <source>cuDNN convolution on the GPU</source>
        <translation>在 GPU 上進行 cuDNN 卷積</translation>
    </message>
    <message>
        <source>no GPU found (%1)</source>
        <translation>未找到 GPU（%1）</translation>
    </message>
    <message>
        <source>the NVIDIA driver library did not load</source>
        <translation>NVIDIA 驅動程式函式庫未能載入</translation>
    </message>
    <message>
        <source>the library did not load</source>
        <translation>該函式庫未能載入</translation>
    </message>
    <message>
        <source>the GPU could not be used</source>
        <translation>無法使用 GPU</translation>
    </message>
    <message>
        <source>an earlier step did not finish in time</source>
        <translation>前面的某一步沒有按時完成</translation>
    </message>
    <message>
        <source>%1: correct</source>
        <translation>%1：正確</translation>
    </message>
    <message>
        <source>%1: failed in %2: %3</source>
        <translation>%1：在 %2 中失敗：%3</translation>
    </message>
    <message>
        <source>%1: not run, %2</source>
        <translation>%1：未執行，%2</translation>
    </message>
    <message>
        <source>the GPU computed correctly with the driver, cuBLAS and cuDNN</source>
        <translation>GPU 透過驅動程式、cuBLAS 和 cuDNN 計算正確</translation>
    </message>
    <message>
        <source>The GPU, its driver, cuBLAS and cuDNN computed correctly in this environment. If TensorFlow still does not use the GPU, the cause is in TensorFlow&apos;s own setup, not in these libraries.</source>
        <translation>在這個環境中，GPU、其驅動程式、cuBLAS 和 cuDNN 都計算正確。如果 TensorFlow 仍然不使用 GPU，原因在 TensorFlow 自身的設定，而不在這些函式庫。</translation>
    </message>
</context>
<context>
    <name>VersionParsers</name>
    <message>
        <source>Could not read the version from %1. The file may be damaged or from an unsupported release; reinstall that component if the setup needs it.</source>
        <translation>無法從 %1 讀取版本號。該檔案可能已損壞，或來自不受支援的版本；如果安裝需要該元件，請重新安裝它。</translation>
    </message>
</context>
<context>
    <name>WheelCheck</name>
    <message>
        <source>Whether PyPI has a wheel of %1 for Python %2 was not checked: tfsetup reads only &quot;name==version&quot; requirements.</source>
        <translation>未檢查 PyPI 上是否有適用於 Python %2 的 %1 wheel：tfsetup 只識別「名稱==版本」形式的相依需求。</translation>
    </message>
    <message>
        <source>Whether PyPI has a wheel of %1 for Python %2 on %3 was not checked (%4); pip will tell when it installs.</source>
        <translation>未檢查 PyPI 上是否有適用於 %3 上 Python %2 的 %1 wheel（%4）；pip 安裝時會給出結果。</translation>
    </message>
    <message>
        <source>PyPI has no release of %1 matching %2, so pip cannot install it. Choose another TensorFlow version or check the plan.</source>
        <translation>PyPI 上沒有與 %2 相符的 %1 版本，pip 無法安裝它。請選擇其他 TensorFlow 版本，或檢查方案。</translation>
    </message>
    <message>
        <source>%1 %2 has no wheel for %3 at all, so pip cannot install it there. Choose another TensorFlow version or route.</source>
        <translation>%1 %2 完全沒有適用於 %3 的 wheel，pip 無法在那裡安裝它。請選擇其他 TensorFlow 版本或安裝路線。</translation>
    </message>
    <message>
        <source>%1 %2 has no wheel for Python %3 on %4; its %4 wheels are for Python %5. Choose Python %6.</source>
        <translation>%1 %2 沒有適用於 %4 上 Python %3 的 wheel；它的 %4 wheel 只支援 Python %5。請選擇 Python %6。</translation>
    </message>
</context>
<context>
    <name>WorkLock</name>
    <message>
        <source>Another install or repair of %1 is running. Wait until it has finished, then try again.</source>
        <translation>%1 的另一個安裝或修復正在進行。請等它完成後再試。</translation>
    </message>
    <message>
        <source>Cannot write %1. Check the free space and that the install folder is yours.</source>
        <translation>無法寫入 %1。請檢查剩餘空間，並確認安裝資料夾屬於你。</translation>
    </message>
    <message>
        <source>Another install or repair of %1 runs on the computer %3 (process %2), or was stopped there. Wait until it has finished. If nothing runs there any more, delete %4, then try again.</source>
        <translation>%1 的另一個安裝或修復正在電腦 %3 上執行（程序 %2），或在那裡被中斷。請等它結束。如果那裡已經沒有在執行，請刪除 %4，然後重試。</translation>
    </message>
    <message>
        <source>Cannot write %1: the install folder is on a disk that is read-only here. Choose another folder (--prefix), or mount that disk writable.</source>
        <translation>無法寫入 %1：安裝資料夾所在的磁碟在這裡是只讀的。請選擇其他資料夾（--prefix），或以可寫方式掛載該磁碟。</translation>
    </message>
    <message>
        <source>Cannot write %1: the disk of the install folder is full. Free some space there or choose a folder on another disk, then try again.</source>
        <translation>無法寫入 %1：安裝資料夾所在的磁碟已滿。請在那裡釋放一些空間，或選擇其他磁碟上的資料夾，然後重試。</translation>
    </message>
    <message>
        <source>%1 is locked by %2, which names no running install or repair (it is damaged or a link to another file). If none is running, delete %2, then try again.</source>
        <translation>%1 被 %2 鎖定，但它沒有指明任何正在執行的安裝或修復（它已損壞，或是指向其他檔案的連結）。如果確實沒有在執行，請刪除 %2，然後重試。</translation>
    </message>
</context>
<context>
    <name>tfsetup::core::Doctor</name>
    <message>
        <source>ERROR</source>
        <translation>錯誤</translation>
    </message>
    <message>
        <source>WARNING</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>INFO</source>
        <translation>資訊</translation>
    </message>
    <message>
        <source>System</source>
        <translation>系統</translation>
    </message>
    <message>
        <source>Processor</source>
        <translation>處理器</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>NVIDIA driver</source>
        <translation>NVIDIA 驅動程式</translation>
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
        <translation>環境</translation>
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
        <translation>未發現問題。</translation>
    </message>
    <message>
        <source>This machine</source>
        <translation>本機</translation>
    </message>
    <message>
        <source>Findings: %1 errors, %2 warnings, %3 notes</source>
        <translation>發現的問題：%1 個錯誤，%2 個警告，%3 條提示</translation>
    </message>
    <message>
        <source>Cannot write the report to %1. Choose a folder you can write to.</source>
        <translation>無法把報告寫入 %1。請選擇一個你有寫入權限的資料夾。</translation>
    </message>
    <message>
        <source>No NVIDIA GPU was found, so TensorFlow will run on the CPU.</source>
        <translation>沒有找到 NVIDIA GPU，因此 TensorFlow 將在 CPU 上執行。</translation>
    </message>
    <message>
        <source>Nothing to do for CPU work. For GPU work you need a machine with an NVIDIA GPU (or a cloud notebook).</source>
        <translation>如果只在 CPU 上執行，無需任何操作。要在 GPU 上執行，你需要一台裝有 NVIDIA GPU 的電腦（或雲端 Notebook）。</translation>
    </message>
    <message>
        <source>The NVIDIA GPU %1 was found, but no working NVIDIA driver.</source>
        <translation>找到了 NVIDIA GPU %1，但沒有找到可用的 NVIDIA 驅動程式。</translation>
    </message>
    <message>
        <source>NVIDIA driver %1 is older than %2, the oldest that runs CUDA %3, which TensorFlow %4 uses.</source>
        <translation>NVIDIA 驅動程式 %1 版本過舊：TensorFlow %4 使用的 CUDA %3 至少需要 %2 版驅動程式。</translation>
    </message>
    <message>
        <source>TensorFlow %1 never uses the GPU on native Windows: GPU support ended with TensorFlow %2. Installing CUDA or cuDNN will not change that.</source>
        <translation>TensorFlow %1 在原生 Windows 上從不使用 GPU：GPU 支援止於 TensorFlow %2。安裝 CUDA 或 cuDNN 也不會改變這一點。</translation>
    </message>
    <message>
        <source>Use TensorFlow %1 with Python up to the version it supports, or run a newer TensorFlow inside WSL2 (tfsetup plan --route wsl2).</source>
        <translation>請使用 TensorFlow %1 並搭配它所支援的 Python 版本（不要更高），或在 WSL2 中執行更新的 TensorFlow（tfsetup plan --route wsl2）。</translation>
    </message>
    <message>
        <source>The environment&apos;s Python %1 is outside the range TensorFlow %2 supports (%3).</source>
        <translation>該環境的 Python %1 不在 TensorFlow %2 支援的範圍內（%3）。</translation>
    </message>
    <message>
        <source>TensorFlow %1 is built with CUDA %2, but the CUDA toolkits here are %3.</source>
        <translation>TensorFlow %1 是用 CUDA %2 建置的，但這裡的 CUDA 工具包是 %3。</translation>
    </message>
    <message>
        <source>%1 CUDA toolkits are installed (%2); the order of their folders on the search path decides which libraries load.</source>
        <translation>已安裝 %1 個 CUDA 工具包（%2）；它們的資料夾在搜尋路徑中的順序決定了會載入哪些函式庫。</translation>
    </message>
    <message>
        <source>Nothing to do unless another finding names a library from the wrong toolkit. tfsetup&apos;s launchers put the right folder first.</source>
        <translation>無需處理，除非其他發現的問題指出某個函式庫來自錯誤的工具包。tfsetup 的啟動指令碼會把正確的資料夾放在最前面。</translation>
    </message>
    <message>
        <source>TensorFlow %1 needs CUDA %2 (%3), but only another CUDA&apos;s runtime is on the search path (%4).</source>
        <translation>TensorFlow %1 需要 CUDA %2（%3），但搜尋路徑中只有其他版本 CUDA 的執行階段函式庫（%4）。</translation>
    </message>
    <message>
        <source>TensorFlow %1 cannot load %2 of the CUDA %3 libraries it needs (%4), so it will run on the CPU.</source>
        <translation>TensorFlow %1 無法載入它所需的 CUDA %3 函式庫中的 %2 個（%4），因此將在 CPU 上執行。</translation>
    </message>
    <message>
        <source>Install CUDA %1 (tfsetup can fetch the official files) or let tfsetup repair the environment.</source>
        <translation>安裝 CUDA %1（tfsetup 可以取得官方檔案），或讓 tfsetup 修復該環境。</translation>
    </message>
    <message>
        <source>The files exist but their folder is not searched: put it on %1 before other CUDA folders, or start Python through tfsetup&apos;s launcher, which does that.</source>
        <translation>這些檔案存在，但它們所在的資料夾不在搜尋範圍內：請把它加到 %1 中，並放在其他 CUDA 資料夾之前；或者透過 tfsetup 的啟動指令碼啟動 Python，它會自動完成這一步。</translation>
    </message>
    <message>
        <source>cuDNN (%1) is installed at %2, but that folder is not on the search path, so TensorFlow cannot load it.</source>
        <translation>cuDNN（%1）安裝在 %2，但該資料夾不在搜尋路徑中，因此 TensorFlow 無法載入它。</translation>
    </message>
    <message>
        <source>Put %1 on %2, or start Python through tfsetup&apos;s launcher.</source>
        <translation>把 %1 新增到 %2 中，或透過 tfsetup 的啟動指令碼啟動 Python。</translation>
    </message>
    <message>
        <source>TensorFlow %1 needs cuDNN %2 (%3), but only another cuDNN major version is on the search path (%4).</source>
        <translation>TensorFlow %1 需要 cuDNN %2（%3），但搜尋路徑中只有其他主版本的 cuDNN（%4）。</translation>
    </message>
    <message>
        <source>cuDNN %1 (%2) is not installed, so TensorFlow %3 will run on the CPU.</source>
        <translation>沒有安裝 cuDNN %1（%2），因此 TensorFlow %3 將在 CPU 上執行。</translation>
    </message>
    <message>
        <source>Install cuDNN %1 for CUDA %2 (tfsetup can fetch the official archive) or let tfsetup repair the environment.</source>
        <translation>安裝適用於 CUDA %2 的 cuDNN %1（tfsetup 可以取得官方壓縮檔），或讓 tfsetup 修復該環境。</translation>
    </message>
    <message>
        <source>The cuDNN at %1 is incomplete: %2 of its parts are missing (%3), so convolutions fail even though cuDNN loads.</source>
        <translation>%1 處的 cuDNN 不完整：缺少 %2 個元件（%3），因此即使 cuDNN 能夠載入，卷積運算也會失敗。</translation>
    </message>
    <message>
        <source>Copy every file of the cuDNN archive&apos;s %1 folder next to %2, not only %3, or let tfsetup repair the environment.</source>
        <translation>請把 cuDNN 壓縮檔中 %1 資料夾裡的所有檔案都複製到 %2 旁邊，而不只是 %3；或者讓 tfsetup 修復該環境。</translation>
    </message>
    <message>
        <source>%1 copies of %2 are on the search path; only the first, %3, is ever loaded.</source>
        <translation>搜尋路徑上有 %1 份 %2；只有第一份（%3）會被載入。</translation>
    </message>
    <message>
        <source>Keep one copy: delete copies you put into System32 or other folders by hand, and order %1 so the toolkit TensorFlow needs comes first.</source>
        <translation>只保留一份副本：刪除你手動放到 System32 或其他資料夾中的副本，並調整 %1 的順序，讓 TensorFlow 需要的工具包排在最前面。</translation>
    </message>
    <message>
        <source>The path %1 contains non-ASCII characters; some Python packages and CUDA tools fail on such paths.</source>
        <translation>路徑 %1 含有非 ASCII 字元；某些 Python 套件和 CUDA 工具在這類路徑上會出錯。</translation>
    </message>
    <message>
        <source>Create the environment in a folder whose path has only English letters, digits and no spaces, e.g. C:\tf or ~/tf.</source>
        <translation>請在路徑中只含英文字母和數字、且沒有空格的資料夾中建立環境，例如 C:\tf 或 ~/tf。</translation>
    </message>
    <message>
        <source>The environment&apos;s path is %1 characters long and Windows long paths are off: files deep inside TensorFlow may exceed Windows&apos; %2-character limit and fail to install or load.</source>
        <translation>該環境的路徑長度為 %1 個字元，而 Windows 長路徑支援未開啟：TensorFlow 內部很深的檔案可能超過 Windows 的 %2 個字元限制，導致安裝或載入失敗。</translation>
    </message>
    <message>
        <source>Use a short folder such as C:\tf, or enable long paths (LongPathsEnabled = 1) as an administrator.</source>
        <translation>請使用較短的資料夾，例如 C:\tf，或以管理員身份啟用長路徑（LongPathsEnabled = 1）。</translation>
    </message>
    <message>
        <source>The Jupyter kernel &quot;%1&quot; starts %2, which no longer exists; notebooks with this kernel do not start.</source>
        <translation>Jupyter 核心「%1」啟動的是 %2，但它已不存在；使用此核心的 notebook 無法啟動。</translation>
    </message>
    <message>
        <source>Remove the kernel (jupyter kernelspec remove %1) or let tfsetup rewrite it for your environment.</source>
        <translation>請刪除該核心（jupyter kernelspec remove %1），或讓 tfsetup 為你的環境重寫它。</translation>
    </message>
    <message>
        <source>The Jupyter kernel &quot;%1&quot; runs a different environment than the terminal: a package or library that works in one may be missing in the other.</source>
        <translation>Jupyter 核心「%1」執行的環境與終端機中的不同：在一邊能用的套件或函式庫，在另一邊可能缺失。</translation>
    </message>
    <message>
        <source>Pick the kernel of the environment you installed TensorFlow in (Kernel &gt; Change kernel), and run the doctor with --env on it.</source>
        <translation>選擇你安裝了 TensorFlow 的那個環境的核心（Kernel &gt; Change kernel），並對該環境加上 --env 執行 doctor。</translation>
    </message>
    <message>
        <source>Jupyter kernels exist, but none runs the environment %1: notebooks will not see its TensorFlow.</source>
        <translation>已有 Jupyter 核心，但沒有一個執行的是環境 %1：Notebook 將看不到其中的 TensorFlow。</translation>
    </message>
    <message>
        <source>Let tfsetup write a kernel for this environment, or run &quot;python -m ipykernel install --user&quot; with the environment&apos;s Python.</source>
        <translation>讓 tfsetup 為此環境寫入一個核心，或用該環境的 Python 執行 &quot;python -m ipykernel install --user&quot;。</translation>
    </message>
    <message>
        <source>Nothing to do.</source>
        <translation>無需處理。</translation>
    </message>
    <message>
        <source>TensorFlow could not load some CUDA libraries, so it runs on the CPU.</source>
        <translation>TensorFlow 無法載入部分 CUDA 函式庫，因此它在 CPU 上執行。</translation>
    </message>
    <message>
        <source>TensorFlow could not load the CUDA library %1, so it runs on the CPU.</source>
        <translation>TensorFlow 無法載入 CUDA 函式庫 %1，因此在 CPU 上執行。</translation>
    </message>
    <message>
        <source>TensorFlow could not load the cuDNN library %1, so it runs on the CPU.</source>
        <translation>TensorFlow 無法載入 cuDNN 函式庫 %1，因此在 CPU 上執行。</translation>
    </message>
    <message>
        <source>TensorFlow loaded cuDNN %1 but was built with cuDNN %2; it needs the same major version and an equal or newer minor version.</source>
        <translation>TensorFlow 載入了 cuDNN %1，但它是用 cuDNN %2 建置的；它需要相同的主版本號，以及相同或更高的次版本號。</translation>
    </message>
    <message>
        <source>The cuDNN found is not the version this TensorFlow was built with.</source>
        <translation>找到的 cuDNN 不是建置此 TensorFlow 時使用的版本。</translation>
    </message>
    <message>
        <source>The CUDA installed is not the version this TensorFlow was built with.</source>
        <translation>已安裝的 CUDA 不是建置此 TensorFlow 時所用的版本。</translation>
    </message>
    <message>
        <source>The NVIDIA driver is too old for the CUDA version TensorFlow uses.</source>
        <translation>NVIDIA 驅動程式版本過舊，不支援 TensorFlow 所用的 CUDA 版本。</translation>
    </message>
    <message>
        <source>TensorFlow found no usable NVIDIA GPU: the driver is missing or not running, or there is no NVIDIA GPU.</source>
        <translation>TensorFlow 沒有找到可用的 NVIDIA GPU：驅動程式缺失或沒有執行，或者沒有 NVIDIA GPU。</translation>
    </message>
    <message>
        <source>pip found no TensorFlow for this Python version (%1).</source>
        <translation>pip 沒有找到適用於此 Python 版本（%1）的 TensorFlow。</translation>
    </message>
    <message>
        <source>This TensorFlow has no ready-made GPU code for compute capability %1; the driver compiles it on first use, which can take 30 minutes or more.</source>
        <translation>此 TensorFlow 沒有為運算能力 %1 預先編譯好的 GPU 程式碼；驅動程式會在首次使用時編譯，這可能需要 30 分鐘或更久。</translation>
    </message>
    <message>
        <source>TensorFlow ignores this GPU: its compute capability %1 is below the %2 this TensorFlow needs.</source>
        <translation>TensorFlow 忽略了這個 GPU：它的運算能力 %1 低於此 TensorFlow 所需的 %2。</translation>
    </message>
    <message>
        <source>This processor lacks the %1 instructions the official TensorFlow builds use, so TensorFlow stops as soon as it is imported.</source>
        <translation>此處理器不支援官方 TensorFlow 版本所用的 %1 指令，因此 TensorFlow 一匯入就會結束。</translation>
    </message>
    <message>
        <source>Windows could not load TensorFlow&apos;s native module: the Microsoft Visual C++ runtime (%1) is missing.</source>
        <translation>Windows 無法載入 TensorFlow 的原生模組：缺少 Microsoft Visual C++ 執行階段函式庫（%1）。</translation>
    </message>
    <message>
        <source>The GPU ran out of memory.</source>
        <translation>GPU 顯示記憶體不足。</translation>
    </message>
    <message>
        <source>TensorFlow created a GPU device: the GPU is in use.</source>
        <translation>TensorFlow 已建立 GPU 裝置：GPU 正在使用中。</translation>
    </message>
    <message>
        <source>TensorFlow reported a problem (%1).</source>
        <translation>TensorFlow 報告了一個問題（%1）。</translation>
    </message>
    <message>
        <source>Run &quot;tfsetup doctor --env DIR&quot; on the environment to see where %1 is expected and which copies exist, then let tfsetup repair it. Do not download single DLL files from websites.</source>
        <translation>請對該環境執行 &quot;tfsetup doctor --env DIR&quot;，檢視 %1 應該位於何處以及現有哪些副本，然後讓 tfsetup 修復它。不要從網站下載單個 DLL 檔案。</translation>
    </message>
    <message>
        <source>Install the cuDNN version listed for this TensorFlow (tfsetup plan shows it) and remove older cuDNN copies that come first on the search path.</source>
        <translation>安裝此 TensorFlow 對應的 cuDNN 版本（tfsetup plan 會顯示），並刪除搜尋路徑上排在前面的舊版 cuDNN 副本。</translation>
    </message>
    <message>
        <source>Install the CUDA version this TensorFlow was built with, or choose a TensorFlow that matches the CUDA you have (tfsetup plan).</source>
        <translation>請安裝建置此 TensorFlow 時所用的 CUDA 版本，或選擇與你現有 CUDA 相符的 TensorFlow（tfsetup plan）。</translation>
    </message>
    <message>
        <source>Install or update the NVIDIA driver from nvidia.com (or your Linux distribution&apos;s driver package), restart, and check that nvidia-smi lists the GPU.</source>
        <translation>請從 nvidia.com（或你的 Linux 發行版的驅動程式套件）安裝或更新 NVIDIA 驅動程式，重新啟動後檢查 nvidia-smi 是否列出了該 GPU。</translation>
    </message>
    <message>
        <source>Create the environment with a Python version this TensorFlow supports (tfsetup plan lists them).</source>
        <translation>使用此 TensorFlow 支援的 Python 版本建立環境（tfsetup plan 會列出）。</translation>
    </message>
    <message>
        <source>Wait for the first run to finish once: later runs reuse the compiled code. Or choose a TensorFlow built for this GPU (tfsetup plan).</source>
        <translation>請耐心等第一次執行完成：之後的執行會重複使用已編譯的程式碼。或者選擇為這個 GPU 建置的 TensorFlow（tfsetup plan）。</translation>
    </message>
    <message>
        <source>Run &quot;tfsetup plan&quot; to choose a TensorFlow and route that work on this machine.</source>
        <translation>請執行 &quot;tfsetup plan&quot;，選擇能在本機上執行的 TensorFlow 版本和路線。</translation>
    </message>
    <message>
        <source>Install the latest Microsoft Visual C++ Redistributable for Visual Studio 2015-2022 (x64) from microsoft.com, then start a new terminal.</source>
        <translation>從 microsoft.com 安裝最新的 Microsoft Visual C++ 可轉散發套件（Visual Studio 2015-2022，x64），然後開啟一個新的終端機。</translation>
    </message>
    <message>
        <source>Use a smaller batch size, close other programs using the GPU (nvidia-smi lists them), or set TF_FORCE_GPU_ALLOW_GROWTH=true so TensorFlow takes memory only as needed.</source>
        <translation>請減小批次大小（batch size），關閉其他正在使用 GPU 的程式（nvidia-smi 會列出它們），或設定 TF_FORCE_GPU_ALLOW_GROWTH=true，讓 TensorFlow 按需佔用顯示記憶體。</translation>
    </message>
    <message>
        <source>TensorRT is an optional NVIDIA inference library; TensorFlow works on the GPU without it. This message is harmless.</source>
        <translation>TensorRT 是 NVIDIA 的一個可選推論函式庫；沒有它，TensorFlow 也能在 GPU 上執行。此訊息無害。</translation>
    </message>
    <message>
        <source>TensorFlow&apos;s own note that a missing CUDA runtime does not matter on a machine without a GPU. Harmless by itself.</source>
        <translation>這是 TensorFlow 自己的提示：在沒有 GPU 的電腦上，缺少 CUDA 執行階段函式庫並不要緊。本身無害。</translation>
    </message>
    <message>
        <source>A notice about optional CPU instructions (AVX2, FMA, …) TensorFlow could use with a custom build. Harmless.</source>
        <translation>這是一條關於可選 CPU 指令（AVX2、FMA 等）的提示，TensorFlow 在自行編譯的版本中可以使用這些指令。無需理會。</translation>
    </message>
    <message>
        <source>A notice that oneDNN speed-ups are on; results may differ in the last digits. Harmless.</source>
        <translation>這是 oneDNN 加速已開啟的提示；計算結果的最後幾位數字可能略有不同。無害。</translation>
    </message>
    <message>
        <source>The firmware or kernel does not say which NUMA node the GPU sits on, so TensorFlow assumes node 0. Harmless on a desktop or laptop.</source>
        <translation>韌體或核心沒有說明 GPU 位於哪個 NUMA 節點，因此 TensorFlow 假定為節點 0。在桌上型或筆記型電腦上無害。</translation>
    </message>
    <message>
        <source>Two parts of TensorFlow registered the same CUDA plugin; the second is ignored. Harmless, the GPU still works.</source>
        <translation>TensorFlow 的兩個部分註冊了同一個 CUDA 外掛；第二個會被忽略。無需理會，GPU 仍然可以正常工作。</translation>
    </message>
    <message>
        <source>TensorFlow looked for a GPU and CUDA libraries; this environment is meant to run on the CPU, so these messages are expected and harmless.</source>
        <translation>TensorFlow 尋找了 GPU 和 CUDA 函式庫；此環境本來就是在 CPU 上執行的，因此出現這些訊息是正常的，無害。</translation>
    </message>
    <message>
        <source>A harmless notice.</source>
        <translation>無害的提示。</translation>
    </message>
    <message>
        <source>The cuDNN that loads (%1, version %2) needs zlibwapi.dll, but no folder of the search path has it, so cuDNN fails the first time TensorFlow uses it.</source>
        <translation>會被載入的 cuDNN（%1，版本 %2）需要 zlibwapi.dll，但搜尋路徑中的資料夾都沒有它，因此 TensorFlow 第一次使用 cuDNN 時就會失敗。</translation>
    </message>
    <message>
        <source>Use the cuDNN your TensorFlow was tested with (tfsetup&apos;s repair puts back the one it installed), or place a zlibwapi.dll you trust next to %1. NVIDIA does not ship zlibwapi.dll, and tfsetup does not download it from unofficial sites.</source>
        <translation>請使用你的 TensorFlow 經過測試的 cuDNN（tfsetup 的修復功能會放回它安裝過的那一份），或者把一個你信任的 zlibwapi.dll 放到 %1 旁邊。NVIDIA 不提供 zlibwapi.dll，tfsetup 也不會從非官方網站下載它。</translation>
    </message>
    <message>
        <source>Use cuDNN %1, which TensorFlow %2 was tested with and which does not need zlibwapi.dll: let tfsetup repair the environment or install cuDNN %1. Or place a zlibwapi.dll you trust next to %3. NVIDIA does not ship zlibwapi.dll, and tfsetup does not download it from unofficial sites.</source>
        <translation>請使用 cuDNN %1：TensorFlow %2 用它測試過，而且它不需要 zlibwapi.dll。可以讓 tfsetup 修復環境，或安裝 cuDNN %1。也可以把一個你信任的 zlibwapi.dll 放到 %3 旁邊。NVIDIA 不提供 zlibwapi.dll，tfsetup 也不會從非官方網站下載它。</translation>
    </message>
    <message>
        <source>cuDNN could not find zlibwapi.dll, which cuDNN 8.3 and newer need on Windows, so the first GPU computation that uses cuDNN stops the program.</source>
        <translation>cuDNN 找不到 zlibwapi.dll；在 Windows 上，cuDNN 8.3 及更新版本需要它，因此第一次用到 cuDNN 的 GPU 運算就會讓程式停止。</translation>
    </message>
    <message>
        <source>Run &quot;tfsetup doctor --env DIR&quot; to see which cuDNN loads, then use the cuDNN your TensorFlow was tested with (8.1 for TensorFlow 2.5 to 2.10 on Windows), which needs no zlibwapi.dll; tfsetup repair puts it back. Or place a zlibwapi.dll you trust next to cudnn64_8.dll. NVIDIA does not ship it; do not download it from random websites.</source>
        <translation>執行「tfsetup doctor --env DIR」查看載入的是哪個 cuDNN，然後改用你的 TensorFlow 經過測試的 cuDNN（Windows 上 TensorFlow 2.5 到 2.10 對應 8.1），它不需要 zlibwapi.dll；tfsetup 的修復功能會把它放回去。也可以把一個你信任的 zlibwapi.dll 放到 cudnn64_8.dll 旁邊。NVIDIA 不提供這個檔案；不要從來歷不明的網站下載。</translation>
    </message>
    <message>
        <source>Run &quot;tfsetup doctor --env DIR&quot; on the environment to see which CUDA libraries are expected where and which copies exist, then let tfsetup repair it. Do not download single DLL files from websites.</source>
        <translation>對該環境執行「tfsetup doctor --env 目錄」，檢視哪些 CUDA 函式庫應在何處以及現有哪些副本，然後讓 tfsetup 修復。不要從網站下載單個 DLL 檔案。</translation>
    </message>
    <message>
        <source>TensorFlow looks for the CUDA %1 library %2, but the CUDA installed here is %3.</source>
        <translation>TensorFlow 在找 CUDA %1 的函式庫 %2，但這裡安裝的 CUDA 是 %3。</translation>
    </message>
    <message>
        <source>Install CUDA %1 beside the one you have (tfsetup can fetch the official files), or use a TensorFlow built for CUDA %2: %3.</source>
        <translation>在現有 CUDA 之外再安裝 CUDA %1（tfsetup 可以取得官方檔案），或使用為 CUDA %2 建置的 TensorFlow：%3。</translation>
    </message>
    <message>
        <source>Install CUDA %1 beside the one you have (tfsetup can fetch the official files); no TensorFlow release was tested with CUDA %2.</source>
        <translation>在現有 CUDA 之外再安裝 CUDA %1（tfsetup 可以取得官方檔案）；沒有任何 TensorFlow 版本用 CUDA %2 測試過。</translation>
    </message>
    <message>
        <source>TensorFlow looks for the CUDA %1 library %2 and does not find it: CUDA %1 is not installed, or only another CUDA version is.</source>
        <translation>TensorFlow 在找 CUDA %1 的函式庫 %2，但沒有找到：CUDA %1 未安裝，或者只安裝了其他版本的 CUDA。</translation>
    </message>
    <message>
        <source>This TensorFlow needs exactly CUDA %1: install it beside any other CUDA (tfsetup can fetch the official files), or choose the TensorFlow built for the CUDA you have (tfsetup plan).</source>
        <translation>這個 TensorFlow 需要的正是 CUDA %1：在其他 CUDA 之外另行安裝它（tfsetup 可以取得官方檔案），或選擇為你已有的 CUDA 建置的 TensorFlow（tfsetup plan）。</translation>
    </message>
    <message>
        <source>TensorFlow could not load cuDNN, so it runs on the CPU.</source>
        <translation>TensorFlow 無法載入 cuDNN，所以在 CPU 上執行。</translation>
    </message>
    <message>
        <source>Run &quot;tfsetup doctor --env DIR&quot; on the environment to see where cuDNN is expected and which copies exist, then let tfsetup repair it. Do not download single DLL files from websites.</source>
        <translation>對該環境執行「tfsetup doctor --env 目錄」，檢視 cuDNN 應在何處以及現有哪些副本，然後讓 tfsetup 修復。不要從網站下載單個 DLL 檔案。</translation>
    </message>
    <message>
        <source>cuDNN loaded, but its part %1 could not be loaded (%2), so the first convolution fails.</source>
        <translation>cuDNN 已載入，但它的組成部分 %1 無法載入（%2），所以第一次卷積就會失敗。</translation>
    </message>
    <message>
        <source>Copy every file of the cuDNN archive&apos;s bin (Windows) or lib (Linux) folder next to the cuDNN that loads, not only the main file, or let tfsetup repair the environment. On Windows, error 126 also means a DLL that part needs (zlibwapi.dll, the Visual C++ runtime) is missing.</source>
        <translation>把 cuDNN 壓縮檔中 bin（Windows）或 lib（Linux）資料夾裡的所有檔案都複製到已載入的 cuDNN 旁邊，而不只是主檔案，或讓 tfsetup 修復該環境。在 Windows 上，錯誤 126 也可能表示該部分依賴的 DLL（zlibwapi.dll、Visual C++ 執行階段函式庫）缺失。</translation>
    </message>
    <message>
        <source>The GPU code in this TensorFlow (PTX) was made by a newer CUDA compiler than the NVIDIA driver understands, so the driver cannot compile it for the GPU.</source>
        <translation>這個 TensorFlow 中的 GPU 程式碼（PTX）由比 NVIDIA 驅動所能理解的更新的 CUDA 編譯器生成，所以驅動無法為 GPU 編譯它。</translation>
    </message>
    <message>
        <source>This TensorFlow has no GPU code this GPU can run (&quot;no kernel image&quot; / invalid PTX): the GPU is newer than the CUDA the wheel was built with, or older than its lowest architecture.</source>
        <translation>這個 TensorFlow 沒有這個 GPU 能執行的 GPU 程式碼（「no kernel image」 / 無效 PTX）：GPU 比建置該 wheel 所用的 CUDA 更新，或比它支援的最低架構更舊。</translation>
    </message>
    <message>
        <source>Use a TensorFlow release built with a CUDA that knows this GPU (tfsetup plan picks one from the GPU&apos;s compute capability); for GPUs newer than every release, run a nightly or NVIDIA&apos;s TensorFlow container.</source>
        <translation>使用用認識這個 GPU 的 CUDA 建置的 TensorFlow 版本（tfsetup plan 會根據 GPU 的運算能力選擇）；對於比所有發布版都新的 GPU，請使用 nightly 版本或 NVIDIA 的 TensorFlow 容器。</translation>
    </message>
    <message>
        <source>TensorFlow stopped with an illegal instruction as soon as it was imported: the processor lacks the AVX instructions the official builds use (older or low-power CPUs, some virtual machines).</source>
        <translation>TensorFlow 一匯入就因非法指令而停止：處理器缺少官方版本使用的 AVX 指令（較舊或低功耗的 CPU、某些虛擬機器）。</translation>
    </message>
    <message>
        <source>Check the processor (tfsetup detect shows AVX). Without AVX, use TensorFlow 1.5 or a community build without AVX, or a machine or cloud notebook with a newer CPU; in a virtual machine, pass the host CPU&apos;s features through.</source>
        <translation>檢查處理器（tfsetup detect 會顯示是否有 AVX）。沒有 AVX 時，請使用 TensorFlow 1.5 或不含 AVX 的社群版本，或換用 CPU 更新的電腦或雲端筆記本；在虛擬機器中，請把宿主 CPU 的特性透傳給虛擬機器。</translation>
    </message>
    <message>
        <source>Windows could not initialise TensorFlow&apos;s native module (&quot;A dynamic link library (DLL) initialization routine failed&quot;); with the Visual C++ runtime present, this means the processor lacks the AVX instructions TensorFlow needs.</source>
        <translation>Windows 無法初始化 TensorFlow 的原生模組（「動態連結函式庫(DLL)初始化例程失敗」）；在已有 Visual C++ 執行階段函式庫的情況下，這表示處理器缺少 TensorFlow 所需的 AVX 指令。</translation>
    </message>
    <message>
        <source>Check the processor (tfsetup detect shows AVX). Without AVX, use a machine or cloud notebook with a newer CPU; reinstalling TensorFlow or the Visual C++ runtime does not help.</source>
        <translation>檢查處理器（tfsetup detect 會顯示是否有 AVX）。沒有 AVX 時，請換用 CPU 更新的電腦或雲端筆記本；重新安裝 TensorFlow 或 Visual C++ 執行階段函式庫都沒有用。</translation>
    </message>
    <message>
        <source>Windows could not load TensorFlow&apos;s native module (DLL load failed): usually the Microsoft Visual C++ runtime is missing, or the processor lacks AVX.</source>
        <translation>Windows 無法載入 TensorFlow 的原生模組（DLL load failed）：通常是缺少 Microsoft Visual C++ 執行階段函式庫，或者處理器缺少 AVX。</translation>
    </message>
    <message>
        <source>Install the latest Microsoft Visual C++ Redistributable for Visual Studio 2015-2022 (x64) from microsoft.com and start a new terminal; if that does not help, check that the processor has AVX (tfsetup detect).</source>
        <translation>從 microsoft.com 安裝最新的 Microsoft Visual C++ Redistributable for Visual Studio 2015-2022（x64），然後開啟新的終端機；如果仍然不行，請檢查處理器是否有 AVX（tfsetup detect）。</translation>
    </message>
    <message>
        <source>cuBLAS or cuDNN could not get GPU memory for its work space: another process (or an earlier TensorFlow in the same notebook) holds the GPU&apos;s memory.</source>
        <translation>cuBLAS 或 cuDNN 無法為其工作區獲得 GPU 記憶體：另一個程序（或同一筆記本中先前的 TensorFlow）佔用著 GPU 記憶體。</translation>
    </message>
    <message>
        <source>Let TensorFlow take memory as needed: set TF_FORCE_GPU_ALLOW_GROWTH=true (or call tf.config.experimental.set_memory_growth) before the first GPU operation, close other programs or notebook kernels using the GPU (nvidia-smi lists them), and use a smaller batch.</source>
        <translation>讓 TensorFlow 按需佔用記憶體：在第一次 GPU 操作之前設定 TF_FORCE_GPU_ALLOW_GROWTH=true（或呼叫 tf.config.experimental.set_memory_growth），關閉其他使用 GPU 的程式或筆記本核心（nvidia-smi 會列出它們），並減小批次大小。</translation>
    </message>
    <message>
        <source>XLA could not find CUDA&apos;s libdevice (nvvm/libdevice/libdevice.10.bc), so compiled (jit_compile / XLA) GPU code cannot be built.</source>
        <translation>XLA 找不到 CUDA 的 libdevice（nvvm/libdevice/libdevice.10.bc），因此無法建置編譯型（jit_compile / XLA）GPU 程式碼。</translation>
    </message>
    <message>
        <source>Install the CUDA toolkit&apos;s nvvm part (pip: nvidia-cuda-nvcc-cu11/cu12 in the environment) and point XLA at its folder: set XLA_FLAGS=--xla_gpu_cuda_data_dir=&lt;CUDA folder that holds nvvm/libdevice&gt;. tfsetup&apos;s launcher sets it for its environments.</source>
        <translation>安裝 CUDA 工具包的 nvvm 部分（pip：在環境中安裝 nvidia-cuda-nvcc-cu11/cu12），並讓 XLA 指向它的資料夾：設定 XLA_FLAGS=--xla_gpu_cuda_data_dir=&lt;包含 nvvm/libdevice 的 CUDA 資料夾&gt;。tfsetup 的啟動器會為它的環境設定好。</translation>
    </message>
    <message>
        <source>XLA could not run CUDA&apos;s ptxas (missing, or older than the CUDA TensorFlow was built with), so it falls back to the driver or fails to compile GPU code.</source>
        <translation>XLA 無法執行 CUDA 的 ptxas（缺失，或比建置 TensorFlow 所用的 CUDA 更舊），所以會退回由驅動編譯，或無法編譯 GPU 程式碼。</translation>
    </message>
    <message>
        <source>Install a ptxas of the CUDA version TensorFlow was built with (pip: nvidia-cuda-nvcc-cu11/cu12 in the environment, or the CUDA toolkit) and put its bin folder first on PATH; tfsetup&apos;s launcher does that for its environments.</source>
        <translation>安裝與建置 TensorFlow 所用 CUDA 版本相同的 ptxas（pip：在環境中安裝 nvidia-cuda-nvcc-cu11/cu12，或安裝 CUDA 工具包），並把它的 bin 資料夾放在 PATH 最前面；tfsetup 的啟動器會為它的環境這樣做。</translation>
    </message>
    <message>
        <source>A module compiled for NumPy 1.x is imported with NumPy 2 installed, so TensorFlow (or a package it uses) fails to import.</source>
        <translation>一個為 NumPy 1.x 編譯的模組在裝有 NumPy 2 的環境中被匯入，所以 TensorFlow（或它使用的包）匯入失敗。</translation>
    </message>
    <message>
        <source>Install a NumPy 1.x in the environment (pip install &quot;numpy&lt;2&quot;), or upgrade TensorFlow and the module the traceback names to releases built for NumPy 2.</source>
        <translation>在環境中安裝 NumPy 1.x（pip install &quot;numpy&lt;2&quot;），或把 TensorFlow 以及回溯資訊中提到的模組升級到為 NumPy 2 建置的版本。</translation>
    </message>
    <message>
        <source>The installed protobuf is newer than the code TensorFlow (or a package it uses) was generated for (&quot;Descriptors cannot be created directly&quot;).</source>
        <translation>已安裝的 protobuf 比 TensorFlow（或它使用的包）生成程式碼時所用的版本更新（「Descriptors cannot be created directly」）。</translation>
    </message>
    <message>
        <source>Install a protobuf of the 3.20 series or older in the environment (pip install &quot;protobuf&lt;3.21&quot;), or a TensorFlow patch release that pins protobuf; setting PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python also works, but slowly.</source>
        <translation>在環境中安裝 3.20 系列或更早的 protobuf（pip install &quot;protobuf&lt;3.21&quot;），或安裝固定了 protobuf 版本的 TensorFlow 補丁版本；設定 PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python 也可以，但會很慢。</translation>
    </message>
    <message>
        <source>A path with non-ASCII characters (often a Chinese user or folder name) was read in the wrong encoding (UnicodeDecodeError), so a tool failed on it.</source>
        <translation>含有非 ASCII 字元的路徑（常見的是中文使用者名稱或資料夾名）被用錯誤的編碼讀取（UnicodeDecodeError），導致某個工具出錯。</translation>
    </message>
    <message>
        <source>pip could not write a file of TensorFlow because its path is longer than Windows allows without long paths.</source>
        <translation>pip 無法寫入 TensorFlow 的某個檔案，因為它的路徑超過了 Windows 在未開啟長路徑時允許的長度。</translation>
    </message>
    <message>
        <source>This log comes from another machine than this one, so it is read on its own terms: its findings are about that machine, not this one.</source>
        <translation>這份日誌來自另一台機器，而不是這台，所以按它自身的情況來讀：其中的結論針對那台機器，而不是這台。</translation>
    </message>
    <message>
        <source>To check that machine itself, run tfsetup doctor there, or give its tfsetup detect --json with --hardware.</source>
        <translation>要檢查那台機器本身，請在那裡執行 tfsetup doctor，或用 --hardware 提供它的 tfsetup detect --json 輸出。</translation>
    </message>
    <message>
        <source>The log was said to come from this computer, but it does not match it: check which computer it comes from. Both the machine&apos;s findings and the log&apos;s are shown.</source>
        <translation>你說這份日誌來自這台電腦，但它與這台電腦不符：請確認它來自哪台電腦。機器檢查的結論和日誌的結論都會列出。</translation>
    </message>
    <message>
        <source>If the log comes from another computer, read it with --log-from other (or answer so on the Repair page); to check that computer, run tfsetup doctor there.</source>
        <translation>如果日誌來自另一台電腦，請用 --log-from other 來讀（或在「修復」頁面上這樣回答）；要檢查那台電腦，請在那裡執行 tfsetup doctor。</translation>
    </message>
    <message>
        <source>This machine was not checked: the log comes from another machine.</source>
        <translation>沒有檢查這台機器：日誌來自另一台機器。</translation>
    </message>
    <message>
        <source>The machine of the hardware file</source>
        <translation>硬體檔案所描述的機器</translation>
    </message>
    <message>
        <source>The log&apos;s machine</source>
        <translation>日誌所在的機器</translation>
    </message>
    <message>
        <source>Windows could not load a DLL that TensorFlow&apos;s native module needs. The Visual C++ runtime and AVX are both present here, so it is most likely a CUDA or cuDNN DLL of the version this TensorFlow was built with.</source>
        <translation>Windows 無法載入 TensorFlow 原生模組所需的某個 DLL。這裡的 Visual C++ 執行階段函式庫和 AVX 都有，所以最可能缺的是與建置這個 TensorFlow 所用版本相同的 CUDA 或 cuDNN DLL。</translation>
    </message>
    <message>
        <source>The log</source>
        <translation>日誌</translation>
    </message>
    <message>
        <source>Cannot read the log %1. Check the path, or paste the log into a text file first.</source>
        <translation>無法讀取日誌 %1。請檢查路徑，或先把日誌貼上到一個文字檔案中。</translation>
    </message>
    <message>
        <source>cuDNN could not start (CUDNN_STATUS_NOT_INITIALIZED). With no memory error in the log, this is most often a cuDNN or CUDA that does not fit this TensorFlow, or a driver too old for them.</source>
        <translation>cuDNN 無法啟動（CUDNN_STATUS_NOT_INITIALIZED）。日誌中沒有顯示記憶體錯誤時，最常見的原因是 cuDNN 或 CUDA 與這個 TensorFlow 不相符，或者驅動程式對它們來說太舊。</translation>
    </message>
    <message>
        <source>Install the CUDA and cuDNN versions listed for this TensorFlow (tfsetup plan shows them), remove other cuDNN copies that come first on the search path, and update the NVIDIA driver. If another program holds the GPU&apos;s memory, close it or set TF_FORCE_GPU_ALLOW_GROWTH=true.</source>
        <translation>請安裝這個 TensorFlow 所列的 CUDA 和 cuDNN 版本（tfsetup plan 會顯示），刪除在搜尋路徑上排在前面的其他 cuDNN 副本，並更新 NVIDIA 驅動程式。如果有其他程式佔用了 GPU 顯示記憶體，請關閉它或設定 TF_FORCE_GPU_ALLOW_GROWTH=true。</translation>
    </message>
    <message>
        <source>TensorFlow says the NVIDIA driver %1 is probably too old for the CUDA version it uses.</source>
        <translation>TensorFlow 表示 NVIDIA 驅動程式 %1 對它使用的 CUDA 版本來說可能太舊。</translation>
    </message>
    <message>
        <source>The environment is set to use GPU %1, but this machine has %2 NVIDIA GPU(s) (numbered from 0): TensorFlow started through its launchers will not see GPU %1.</source>
        <translation>該環境設定為使用 GPU %1，但本機只有 %2 張 NVIDIA GPU（從 0 開始編號）：透過其啟動指令碼啟動的 TensorFlow 將看不到 GPU %1。</translation>
    </message>
    <message>
        <source>Install the environment again and choose the GPUs this machine has (tfsetup install --gpus), or run &quot;tfsetup doctor --env %1&quot; on the computer it was made for.</source>
        <translation>請重新安裝該環境並選擇本機擁有的 GPU（tfsetup install --gpus），或在為其建立該環境的那台電腦上執行「tfsetup doctor --env %1」。</translation>
    </message>
    <message>
        <source>Windows could not load a DLL that TensorFlow&apos;s native module needs (DLL load failed). The Visual C++ runtime is present, so it is not that, and the log does not say which DLL failed.</source>
        <translation>Windows 無法載入 TensorFlow 原生模組所需的某個 DLL（DLL load failed）。Visual C++ 執行階段函式庫已安裝，所以原因不在它，而日誌沒有說明是哪個 DLL 載入失敗。</translation>
    </message>
    <message>
        <source>Run &quot;tfsetup verify&quot; in the environment: it loads TensorFlow&apos;s native module and names the DLL that fails (a CUDA or cuDNN DLL for a GPU build, or a processor without AVX).</source>
        <translation>請在該環境中執行「tfsetup verify」：它會載入 TensorFlow 的原生模組，並指出失敗的 DLL（GPU 版本的 CUDA 或 cuDNN DLL，或者處理器不支援 AVX）。</translation>
    </message>
    <message>
        <source>TensorFlow lists no GPU and printed nothing about CUDA. That is what every TensorFlow after %1 does on native Windows, where GPU support ended with TensorFlow %1.</source>
        <translation>TensorFlow 沒有列出任何 GPU，也沒有輸出任何有關 CUDA 的資訊。在原生 Windows 上，%1 之後的每個 TensorFlow 都是這樣：原生 Windows 的 GPU 支援止於 TensorFlow %1。</translation>
    </message>
    <message>
        <source>On native Windows, use TensorFlow %1 (with a Python it supports) or run a newer TensorFlow inside WSL2 (tfsetup plan --route wsl2). Elsewhere, run &quot;tfsetup doctor --env DIR&quot; on the environment to see why TensorFlow finds no GPU.</source>
        <translation>在原生 Windows 上，請使用 TensorFlow %1（配合它支援的 Python），或在 WSL2 中執行更新的 TensorFlow（tfsetup plan --route wsl2）。在其他系統上，請對該環境執行「tfsetup doctor --env DIR」，檢視 TensorFlow 為何找不到 GPU。</translation>
    </message>
    <message>
        <source>The installed Keras does not fit this TensorFlow or this code: Keras 3 (the default from TensorFlow 2.16) cannot run code or load models made for Keras 2 (tf.keras), and a separately installed Keras must match the TensorFlow release.</source>
        <translation>已安裝的 Keras 與這個 TensorFlow 或這段程式碼不相符：Keras 3（TensorFlow 2.16 起的預設版本）無法執行為 Keras 2（tf.keras）編寫的程式碼或載入其模型，而單獨安裝的 Keras 必須與 TensorFlow 的版本一致。</translation>
    </message>
    <message>
        <source>For Keras 2 code with TensorFlow 2.16 or newer: pip install tf-keras (the release matching TensorFlow) and set TF_USE_LEGACY_KERAS=1. With an older TensorFlow: install the Keras of the same release (pip install &quot;keras&lt;3&quot;, the same minor version as TensorFlow). Or move the code to Keras 3.</source>
        <translation>在 TensorFlow 2.16 或更新版本上執行 Keras 2 程式碼：pip install tf-keras（與 TensorFlow 對應的版本）並設定 TF_USE_LEGACY_KERAS=1。較舊的 TensorFlow：安裝同一版本的 Keras（pip install &quot;keras&lt;3&quot;，與 TensorFlow 的次版本號相同）。或者把程式碼遷移到 Keras 3。</translation>
    </message>
    <message>
        <source>A file whose path has non-ASCII characters could not be opened: %1. TensorFlow and h5py on Windows often cannot open such paths.</source>
        <translation>無法開啟一個路徑中含有非 ASCII 字元（如中文）的檔案：%1。Windows 上的 TensorFlow 和 h5py 常常無法開啟這樣的路徑。</translation>
    </message>
    <message>
        <source>Move the model, checkpoint or data to a folder whose path has only English letters, digits and no spaces (e.g. C:\tf\models), or rename the folders on the way, then load it from there.</source>
        <translation>請把模型、檢查點或資料移到路徑中只有英文字母和數字、沒有空格的資料夾（例如 C:\tf\models），或者重新命名路徑上的資料夾，然後從那裡載入。</translation>
    </message>
    <message>
        <source>%1 of the files tfsetup installed in %2 are missing or changed: %3.</source>
        <translation>tfsetup 安裝在 %2 中的檔案有 %1 個缺失或被改動：%3。</translation>
    </message>
    <message>
        <source>Run &quot;tfsetup repair --env %1&quot;: it puts back exactly these files from their verified sources.</source>
        <translation>請執行「tfsetup repair --env %1」：它會從經過校驗的來源準確恢復這些檔案。</translation>
    </message>
    <message>
        <source>Files of the NVIDIA packages pip installed in %1 are missing or changed (%2): %3.</source>
        <translation>pip 安裝在 %1 中的 NVIDIA 套件有檔案缺失或被改動（%2）：%3。</translation>
    </message>
    <message>
        <source>The environment&apos;s record %1 cannot be read, so the doctor checked the folder without knowing what was installed in it.</source>
        <translation>無法讀取該環境的記錄 %1，因此醫生在不知道其中安裝了什麼的情況下檢查了該資料夾。</translation>
    </message>
    <message>
        <source>Install the environment again (tfsetup install into %1 or a new folder): repair works from the record and cannot check this environment.</source>
        <translation>請重新安裝該環境（用 tfsetup install 安裝到 %1 或一個新資料夾）：修復依據的是環境記錄，無法檢查這個環境。</translation>
    </message>
    <message>
        <source>Loading the environment&apos;s GPU libraries through its launcher found a problem: %1</source>
        <translation>透過啟動指令碼載入該環境的 GPU 函式庫時發現了問題：%1</translation>
    </message>
    <message>
        <source>Run &quot;tfsetup verify --env %1&quot; for every step, and &quot;tfsetup repair --env %1&quot; to put the environment&apos;s files back.</source>
        <translation>請執行「tfsetup verify --env %1」檢視每一步，並執行「tfsetup repair --env %1」恢復該環境的檔案。</translation>
    </message>
    <message>
        <source>The libraries were looked for on disk but not loaded: the library probe did not run (%1).</source>
        <translation>只在磁碟上尋找了這些函式庫，沒有載入它們：函式庫探測程式沒有執行（%1）。</translation>
    </message>
    <message>
        <source>Run &quot;tfsetup verify --env %1&quot; to load them as TensorFlow does.</source>
        <translation>請執行「tfsetup verify --env %1」，像 TensorFlow 那樣載入它們。</translation>
    </message>
    <message>
        <source>The log&apos;s machine shows no NVIDIA GPU and no working NVIDIA driver, so TensorFlow runs on the CPU. On a machine without a GPU this message is expected and harmless.</source>
        <translation>寫出該日誌的機器上沒有 NVIDIA GPU，也沒有可用的 NVIDIA 驅動程式，因此 TensorFlow 在 CPU 上執行。在沒有 GPU 的機器上，這條訊息是正常且無害的。</translation>
    </message>
    <message>
        <source>Nothing to do on a machine meant for the CPU. If that machine should have an NVIDIA GPU, check there that nvidia-smi lists it.</source>
        <translation>對於本來就用 CPU 的機器，無需任何操作。如果那台機器應該有 NVIDIA GPU，請在那台機器上檢查 nvidia-smi 是否列出了它。</translation>
    </message>
    <message>
        <source>This log</source>
        <translation>此日誌</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>結論</translation>
    </message>
    <message>
        <source>The log shows what went wrong (%1).</source>
        <translation>日誌顯示了出錯的原因（%1）。</translation>
    </message>
    <message>
        <source>Nothing is wrong in this log: its messages are harmless notices or show the GPU at work.</source>
        <translation>此日誌中沒有問題：其中的訊息是無害的提示，或者表明 GPU 正在工作。</translation>
    </message>
    <message>
        <source>The log holds no message the doctor knows, so it cannot say what went wrong. Run &quot;tfsetup doctor --env DIR&quot; on the machine that wrote it.</source>
        <translation>日誌中沒有醫生認識的訊息，所以無法判斷出了什麼問題。請在寫出該日誌的機器上執行「tfsetup doctor --env DIR」。</translation>
    </message>
    <message>
        <source>present</source>
        <translation>已安裝</translation>
    </message>
    <message>
        <source>missing</source>
        <translation>缺失</translation>
    </message>
    <message>
        <source>Visual C++ runtime</source>
        <translation>Visual C++ 執行階段函式庫</translation>
    </message>
    <message>
        <source>Route</source>
        <translation>路線</translation>
    </message>
    <message>
        <source>Its CUDA / cuDNN</source>
        <translation>環境的 CUDA / cuDNN</translation>
    </message>
    <message>
        <source>Its GPUs</source>
        <translation>環境使用的 GPU</translation>
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
        <translation>%1 的下載任務缺少網址、校驗和或儲存位置。</translation>
    </message>
    <message>
        <source>The download was cancelled.</source>
        <translation>下載已取消。</translation>
    </message>
    <message>
        <source>The download of %1 was stopped. What arrived is kept; starting it again resumes it.</source>
        <translation>%1 的下載已停止。已下載的部分會保留，再次開始即可繼續下載。</translation>
    </message>
    <message>
        <source>The disk is full while saving %1. Free some space (it needs %2 MB) or choose another folder, then try again; the download resumes.</source>
        <translation>儲存 %1 時磁碟已滿。請釋放一些空間（需要 %2 MB）或選擇其他資料夾，然後重試；下載會從中斷處繼續。</translation>
    </message>
    <message>
        <source>You may not write to the folder of %1. Choose a folder in your own user folder.</source>
        <translation>你沒有權限寫入 %1 所在的資料夾。請選擇你自己使用者資料夾中的某個位置。</translation>
    </message>
    <message>
        <source>Saving %1 failed. Check the disk and the folder&apos;s permissions.</source>
        <translation>儲存 %1 失敗。請檢查磁碟以及該資料夾的權限。</translation>
    </message>
    <message>
        <source>%1 does not match its official %2 checksum, so it was not used. The bad file was set aside as %3. Try again later or another mirror; if it keeps happening, something between you and the server changes the file.</source>
        <translation>%1 與官方 %2 校驗和不符，因此沒有使用。損壞的檔案已另存為 %3。請稍後重試或換一個鏡像站；如果問題反覆出現，說明你和伺服器之間有某個環節修改了檔案。</translation>
    </message>
    <message>
        <source>%1 could not be downloaded from any mirror.</source>
        <translation>無法從任何鏡像站下載 %1。</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a speed floor. Give the lowest acceptable speed in bytes per second, optionally with k or M and a number of seconds: 10k:60 drops a mirror that stays below 10 KiB/s for a minute; 0 turns the floor off.</source>
        <translation>「%1」不是有效的速度下限。請給出以位元組每秒計的最低可接受速度，可加 k 或 M 以及秒數：10k:60 表示一分鐘內一直低於 10 KiB/s 就放棄該鏡像站；0 表示關閉下限。</translation>
    </message>
    <message>
        <source>%1 comes too slowly from %2 (below %3/s for %4 s), and no other source is left: it goes on from there, keeping the %5 already downloaded.</source>
        <translation>%1 從 %2 下載得太慢（%4 秒內低於 %3/s），而且沒有其他來源可用：將從那裡繼續下載，保留已下載的 %5。</translation>
    </message>
    <message>
        <source>%1 came too slowly from %2 (below %3/s for %4 s), so that mirror was dropped; the download continues from %5, keeping the %6 already downloaded.</source>
        <translation>%1 從 %2 下載得太慢（%4 秒內低於 %3/s），所以放棄了該鏡像站；下載從 %5 繼續，保留已下載的 %6。</translation>
    </message>
    <message>
        <source>The download of %1 has no full path to be saved at (&quot;%2&quot;). Give the whole path of the file, starting from the top of the disk.</source>
        <translation>%1 的下載沒有可儲存到的完整路徑（「%2」）。請給出檔案的完整路徑，從磁碟的根開始。</translation>
    </message>
</context>
<context>
    <name>tfsetup::core::IndexBridge</name>
    <message>
        <source>tfsetup could not open a local port for pip (%1). A firewall or security program may block programs from listening on 127.0.0.1; allow tfsetup, then try again.</source>
        <translation>tfsetup 無法為 pip 開啟本地埠（%1）。防火牆或安全軟體可能阻止程式在 127.0.0.1 上監聽；請允許 tfsetup，然後重試。</translation>
    </message>
    <message>
        <source>No package index lists %1.</source>
        <translation>沒有任何套件索引列出 %1。</translation>
    </message>
    <message>
        <source>The package index served metadata for %1 that does not match the checksum it lists. The index or a proxy on the way changes files; try another mirror.</source>
        <translation>套件索引為 %1 提供的元資料與其列出的校驗和不符。該索引或途中的代理修改了檔案；請換一個鏡像站。</translation>
    </message>
    <message>
        <source>The package index gives no dependency list for %1, so tfsetup reads it from the wheel itself (fetched once and kept in the download folder).</source>
        <translation>套件索引沒有提供 %1 的依賴清單，所以 tfsetup 從 wheel 檔案本身讀取（只下載一次並儲存在下載資料夾中）。</translation>
    </message>
</context>
<context>
    <name>tfsetup::core::Installer</name>
    <message>
        <source>Checking the downloaded files</source>
        <translation>正在檢查已下載的檔案</translation>
    </message>
    <message>
        <source>Unpacking CUDA and cuDNN</source>
        <translation>正在解壓縮 CUDA 和 cuDNN</translation>
    </message>
    <message>
        <source>Putting the libraries in place</source>
        <translation>正在放置函式庫檔案</translation>
    </message>
    <message>
        <source>Creating the Python environment</source>
        <translation>正在建立 Python 環境</translation>
    </message>
    <message>
        <source>Installing TensorFlow with pip</source>
        <translation>正在用 pip 安裝 TensorFlow</translation>
    </message>
    <message>
        <source>Writing the launchers</source>
        <translation>正在寫入啟動指令碼</translation>
    </message>
    <message>
        <source>Writing the environment record</source>
        <translation>正在寫入環境記錄</translation>
    </message>
    <message>
        <source>Verifying every file</source>
        <translation>正在驗證每個檔案</translation>
    </message>
    <message>
        <source>Switching to the new environment</source>
        <translation>正在切換到新環境</translation>
    </message>
    <message>
        <source>Registering the Jupyter kernel and shortcut</source>
        <translation>正在註冊 Jupyter 核心和捷徑</translation>
    </message>
    <message>
        <source>Choose a folder and an environment name without slashes, not starting with a dot.</source>
        <translation>請選擇一個資料夾，以及不含斜槓、不以點開頭的環境名稱。</translation>
    </message>
    <message>
        <source>The install folder %1 cannot be used.</source>
        <translation>無法使用安裝資料夾 %1。</translation>
    </message>
    <message>
        <source>TensorFlow %1 (%2)</source>
        <translation>TensorFlow %1（%2）</translation>
    </message>
    <message>
        <source>The folder %1 already exists and was not made by tfsetup. Choose another environment name, or move that folder away.</source>
        <translation>資料夾 %1 已存在，且不是由 tfsetup 建立的。請換一個環境名稱，或把該資料夾移走。</translation>
    </message>
    <message>
        <source>The downloaded file %1 is missing or no longer matches its checksum. Download it again.</source>
        <translation>下載的檔案 %1 缺失，或已與其校驗和不符。請重新下載。</translation>
    </message>
    <message>
        <source>Two of NVIDIA&apos;s archives contain %1. The downloaded archives do not belong together; plan again.</source>
        <translation>NVIDIA 的兩個壓縮檔中都包含 %1。下載的壓縮檔不屬於同一套；請重新制定方案。</translation>
    </message>
    <message>
        <source>The cuDNN archive %1 lacks files that must be installed together (%2). Download the complete archive from NVIDIA again.</source>
        <translation>cuDNN 壓縮檔 %1 缺少必須一起安裝的檔案（%2）。請重新從 NVIDIA 下載完整的壓縮檔。</translation>
    </message>
    <message>
        <source>Python could not create the environment. On Debian and Ubuntu install the package python3-venv; on Windows repair the Python installation.</source>
        <translation>Python 無法建立環境。在 Debian 和 Ubuntu 上請安裝 python3-venv 套件；在 Windows 上請修復 Python 安裝。</translation>
    </message>
    <message>
        <source>A file changed between unpacking and checking. The disk may be failing or another program (an antivirus) altered it; try again.</source>
        <translation>有檔案在解壓縮後、校驗前發生了變化。可能是磁碟出現故障，或有其他程式（如防毒軟體）修改了它；請重試。</translation>
    </message>
    <message>
        <source>The environment %1 is in use. Close every program started from it (Python, Jupyter, shells) and install again.</source>
        <translation>環境 %1 正在使用中。請關閉從該環境啟動的所有程式（Python、Jupyter、命令列視窗），然後重新安裝。</translation>
    </message>
    <message>
        <source>The Jupyter kernel could not be registered in %1. Start Jupyter with start-jupyter instead.</source>
        <translation>無法在 %1 中註冊 Jupyter 核心。請改用 start-jupyter 啟動 Jupyter。</translation>
    </message>
    <message>
        <source>The menu entry could not be written to %1.</source>
        <translation>無法將選單項目寫入 %1。</translation>
    </message>
    <message>
        <source>The Python archive %1 is not laid out as a relocatable Python (everything in one folder named python). Download it again from the official release.</source>
        <translation>Python 壓縮檔 %1 的結構不是可遷移的 Python（所有內容都在一個名為 python 的資料夾中）。請從官方發布頁面重新下載。</translation>
    </message>
    <message>
        <source>The Python archive %1 has no %2. Download it again from the official release.</source>
        <translation>Python 壓縮檔 %1 中沒有 %2。請從官方發布頁面重新下載。</translation>
    </message>
    <message>
        <source>The Python %1 installer did not finish (%2). Start %3 yourself to see why, or install Python %1 from python.org, then scan this computer again.</source>
        <translation>Python %1 安裝程式沒有完成（%2）。請自行執行 %3 查看原因，或者從 python.org 安裝 Python %1，然後重新掃描這台電腦。</translation>
    </message>
    <message>
        <source>exit code %1</source>
        <translation>結束代碼 %1</translation>
    </message>
    <message>
        <source>The hash-locked requirements file does not pin %1, which the environment&apos;s Jupyter kernel needs. Add %1 with its hashes to the lock file (or make the offline bundle again), then install again.</source>
        <translation>雜湊鎖定的依賴檔案沒有固定 %1，而該環境的 Jupyter 核心需要它。請把 %1 連同其雜湊值加入鎖定檔案（或重新生成離線包），然後重新安裝。</translation>
    </message>
    <message>
        <source>The disk holding %1 is full (or your disk quota is used up), so %2 could not be written. Free some space or choose a folder on another disk, then install again.</source>
        <translation>%1 所在的磁碟已滿（或你的磁碟配額已用完），因此無法寫入%2。請釋放一些空間或選擇另一個磁碟上的資料夾，然後重新安裝。</translation>
    </message>
    <message>
        <source>%1 is a link to another folder. tfsetup does not install through links, so that folder&apos;s files are not touched. Remove the link, or give the real folder with --prefix.</source>
        <translation>%1 是指向另一個資料夾的連結。tfsetup 不會透過連結進行安裝，因此那個資料夾中的檔案不會被改動。請刪除該連結，或者用 --prefix 指定真實的資料夾。</translation>
    </message>
    <message>
        <source>the unpacked libraries</source>
        <translation>解壓縮後的函式庫</translation>
    </message>
    <message>
        <source>the Python environment</source>
        <translation>Python 環境</translation>
    </message>
    <message>
        <source>the Python packages</source>
        <translation>Python 套件</translation>
    </message>
    <message>
        <source>The Python %1 could not be started (%2), so no environment was made. Choose a Python that is installed (in a lab profile: &quot;interpreter&quot;), or install it, then try again.</source>
        <translation>無法啟動 Python %1（%2），所以沒有建立環境。請選擇已安裝的 Python（在實驗室設定檔中為「interpreter」），或先安裝它，然後重試。</translation>
    </message>
    <message>
        <source>No package list was made for this environment, so pip has nothing verified to install. Start the setup again from the Options page (tfsetup install: run it again).</source>
        <translation>沒有為此環境生成套件清單，所以 pip 沒有經過驗證的內容可安裝。請從「選項」頁重新開始設定（tfsetup install：重新執行）。</translation>
    </message>
    <message>
        <source>%1 has not been downloaded yet. Go back to the download step.</source>
        <translation>%1 尚未下載。請回到下載步驟。</translation>
    </message>
    <message>
        <source>A downloaded package no longer matches the hash it was verified with. The disk or another program changed it; run the install again.</source>
        <translation>一個已下載的套件與驗證時的雜湊值不再相符。磁碟或其他程式修改了它；請重新執行安裝。</translation>
    </message>
    <message>
        <source>pip could not install the verified packages. The log shows pip&apos;s own words.</source>
        <translation>pip 無法安裝經過驗證的套件。日誌中有 pip 自己的說明。</translation>
    </message>
    <message>
        <source>The Jupyter kernel name &quot;%1&quot; is not one Jupyter lists as it is: use lower-case letters a-z, digits, . _ and - only.</source>
        <translation>Jupyter 核心名稱「%1」無法被 Jupyter 原樣列出：只能使用小寫字母 a-z、數字以及 . _ -。</translation>
    </message>
</context>
<context>
    <name>tfsetup::core::LabSetup</name>
    <message>
        <source>The lab profile asks for the route &quot;%1&quot;, which this tfsetup does not know. Update tfsetup or ask the lab administrator.</source>
        <translation>實驗室設定檔要求使用安裝路線「%1」，這個版本的 tfsetup 不認識它。請更新 tfsetup 或詢問實驗室管理員。</translation>
    </message>
    <message>
        <source>The lab profile&apos;s cache folder %1 is not on this computer. Fix &quot;cache&quot; in the profile.</source>
        <translation>實驗室設定檔中的快取資料夾 %1 不在這台電腦上。請修改設定檔中的「cache」。</translation>
    </message>
    <message>
        <source>The installation was cancelled.</source>
        <translation>安裝已取消。</translation>
    </message>
    <message>
        <source>note: %1</source>
        <translation>注意：%1</translation>
    </message>
    <message>
        <source>The lab profile&apos;s route &quot;%1&quot; puts NVIDIA&apos;s CUDA libraries into the environment, but &quot;plan.cuda&quot; names no CUDA version. Add the CUDA version to the profile.</source>
        <translation>實驗室設定檔的路線「%1」會把 NVIDIA 的 CUDA 函式庫放進環境中，但「plan.cuda」沒有指定 CUDA 版本。請在設定檔中加上 CUDA 版本。</translation>
    </message>
    <message>
        <source>The lab profile asks for CUDA %1, which this tfsetup cannot install: it knows no NVIDIA libraries for that version. Correct &quot;plan.cuda&quot; or update tfsetup.</source>
        <translation>實驗室設定檔要求 CUDA %1，而此版本的 tfsetup 無法安裝它：它不知道該版本對應的 NVIDIA 函式庫。請修正「plan.cuda」或更新 tfsetup。</translation>
    </message>
    <message>
        <source>The environment would lack %1, which CUDA %2 needs, so TensorFlow could not use the GPU. Nothing was installed. Check the NVIDIA mirror or the offline bundle (it must hold NVIDIA&apos;s archives for CUDA %2), or correct the profile&apos;s plan.</source>
        <translation>該環境將缺少 CUDA %2 所需的 %1，TensorFlow 因此無法使用 GPU。沒有安裝任何內容。請檢查 NVIDIA 鏡像站或離線包（其中必須包含 CUDA %2 的 NVIDIA 壓縮檔），或修正設定檔中的方案。</translation>
    </message>
    <message>
        <source>The lab profile&apos;s route &quot;%1&quot; puts NVIDIA&apos;s CUDA libraries into the environment, but &quot;plan.cudnn&quot; names no cuDNN version, without which TensorFlow cannot use the GPU. Add the cuDNN version to the profile.</source>
        <translation>實驗室設定檔的路線「%1」會把 NVIDIA 的 CUDA 函式庫放進環境，但「plan.cudnn」沒有指定 cuDNN 版本，沒有它 TensorFlow 無法使用 GPU。請在設定檔中加上 cuDNN 版本。</translation>
    </message>
</context>
<context>
    <name>tfsetup::core::Locker</name>
    <message>
        <source>pip&apos;s answer could not be read. Update pip in this Python, or report this to the tfsetup developers with the log.</source>
        <translation>無法讀取 pip 的回答。請更新此 Python 中的 pip，或把日誌報告給 tfsetup 的開發者。</translation>
    </message>
    <message>
        <source>pip chose %1, which is not a wheel of the package index tfsetup gave it. tfsetup installs wheels only; choose another release.</source>
        <translation>pip 選擇了 %1，它不是 tfsetup 所給套件索引中的 wheel。tfsetup 只安裝 wheel；請選擇其他版本。</translation>
    </message>
    <message>
        <source>The Python %1 could not be started (%2), so the packages could not be chosen. Choose a Python that is installed (in a lab profile: &quot;interpreter&quot;), or install it, then try again.</source>
        <translation>無法啟動 Python %1（%2），因此無法選擇套件。請選擇一個已安裝的 Python（在實驗室設定檔中：&quot;interpreter&quot;），或先安裝它，然後重試。</translation>
    </message>
    <message>
        <source>The Python %1 has no pip new enough to choose the packages (%2.%3 or newer is needed), and without the network none can be fetched. Install pip for it (on Debian and Ubuntu: the package python3-pip), then try again.</source>
        <translation>Python %1 沒有足夠新的 pip 來選擇套件（需要 %2.%3 或更新版本），而沒有網路就無法取得。請為它安裝 pip（在 Debian 和 Ubuntu 上：套件 python3-pip），然後重試。</translation>
    </message>
    <message>
        <source>This Python has no pip new enough to choose the packages; fetching pip from the package index.</source>
        <translation>此 Python 沒有足夠新的 pip 來選擇套件；正在從套件索引取得 pip。</translation>
    </message>
    <message>
        <source>The Python %1 has no pip new enough to choose the packages, and the package index offers none for it. Install pip for it (on Debian and Ubuntu: the package python3-pip), then try again.</source>
        <translation>Python %1 沒有足夠新的 pip 來選擇套件，而套件索引也沒有適合它的 pip。請為它安裝 pip（在 Debian 和 Ubuntu 上：套件 python3-pip），然後重試。</translation>
    </message>
    <message>
        <source>The packages could not be chosen because the package index could not be read: %1</source>
        <translation>無法選擇套件，因為無法讀取套件索引：%1</translation>
    </message>
    <message>
        <source>The offline bundle does not hold %1, which this environment needs. Make the bundle again with tfsetup bundle --profile on a computer with internet.</source>
        <translation>離線包中沒有此環境所需的 %1。請在能上網的電腦上用 tfsetup bundle --profile 重新制作離線包。</translation>
    </message>
    <message>
        <source>The package index has no %1 for this Python on this computer. Choose another TensorFlow or Python release, or another package index.</source>
        <translation>套件索引中沒有適用於此電腦上此 Python 的 %1。請選擇其他 TensorFlow 或 Python 版本，或換一個套件索引。</translation>
    </message>
    <message>
        <source>pip found no set of package versions that fit together for these requirements (%1). Remove the extra package that conflicts, or choose another TensorFlow release.</source>
        <translation>pip 找不到一組能相互相容且滿足這些要求的套件版本（%1）。請移除造成衝突的額外套件，或選擇其他 TensorFlow 版本。</translation>
    </message>
    <message>
        <source>The lab&apos;s lock file does not pin every package with its hash. Ask the lab administrator for a complete lock file (pip-compile --generate-hashes).</source>
        <translation>實驗室的鎖定檔案沒有用雜湊值固定每個套件。請向實驗室管理員索取完整的鎖定檔案（pip-compile --generate-hashes）。</translation>
    </message>
    <message>
        <source>pip could not choose the packages. The log shows pip&apos;s own words.</source>
        <translation>pip 無法選擇套件。日誌中有 pip 自己的說明。</translation>
    </message>
    <message>
        <source>Choosing the packages was cancelled.</source>
        <translation>已取消選擇套件。</translation>
    </message>
    <message>
        <source>tfsetup cannot write into %1. Choose a download folder that is yours.</source>
        <translation>tfsetup 無法寫入 %1。請選擇一個屬於你的下載資料夾。</translation>
    </message>
    <message>
        <source>The Python %1 could not be started (%2).</source>
        <translation>無法啟動 Python %1（%2）。</translation>
    </message>
    <message>
        <source>pip&apos;s report</source>
        <translation>pip 的報告</translation>
    </message>
    <message>
        <source>%1: the package index publishes no checksum; SHA-256 %2 was recorded at its first download.</source>
        <translation>%1：套件索引沒有公布校驗和；首次下載時記錄的 SHA-256 為 %2。</translation>
    </message>
    <message>
        <source>The lab&apos;s lock file does not pin %1, which the packages it names need. Ask the lab administrator for a complete lock file (pip-compile --generate-hashes).</source>
        <translation>實驗室的鎖定檔案沒有固定 %1，而它所列的套件需要它。請向實驗室管理員索取完整的鎖定檔案（pip-compile --generate-hashes）。</translation>
    </message>
    <message>
        <source>A package from the mirror does not match the hash in the lab&apos;s lock file (%1). The mirror serves different files: ask the lab administrator.</source>
        <translation>鏡像站中的一個套件與實驗室鎖定檔案中的雜湊值不符（%1）。該鏡像站提供的是不同的檔案：請詢問實驗室管理員。</translation>
    </message>
</context>
<context>
    <name>tfsetup::core::Repairer</name>
    <message>
        <source>Checking every installed file</source>
        <translation>正在檢查每個已安裝的檔案</translation>
    </message>
    <message>
        <source>Getting the damaged files&apos; archives</source>
        <translation>正在取得損壞檔案所在的壓縮檔</translation>
    </message>
    <message>
        <source>Preparing the replacements</source>
        <translation>正在準備替換檔案</translation>
    </message>
    <message>
        <source>Putting the repaired files in place</source>
        <translation>正在放置修復後的檔案</translation>
    </message>
    <message>
        <source>Checking the Jupyter kernel</source>
        <translation>正在檢查 Jupyter 核心</translation>
    </message>
    <message>
        <source>Verifying the environment</source>
        <translation>正在驗證環境</translation>
    </message>
    <message>
        <source>%1 is not an environment made by tfsetup (it has no environment.json). Choose the environment&apos;s folder, or install a new one.</source>
        <translation>%1 不是由 tfsetup 建立的環境（其中沒有 environment.json）。請選擇環境所在的資料夾，或安裝一個新環境。</translation>
    </message>
    <message>
        <source>it came from the lab profile: install the profile again</source>
        <translation>它來自實驗室設定檔：請重新安裝該設定檔</translation>
    </message>
    <message>
        <source>tfsetup does not know where it came from: install the environment again</source>
        <translation>tfsetup 不知道它的來源：請重新安裝該環境</translation>
    </message>
    <message>
        <source>%1 is needed to repair the environment, but it is not among the earlier downloads and tfsetup does not know where to download it. Put the file in the download folder, or install the environment again.</source>
        <translation>修復該環境需要 %1，但它不在之前下載的檔案中，tfsetup 也不知道從哪裡下載它。請把該檔案放到下載資料夾中，或重新安裝該環境。</translation>
    </message>
    <message>
        <source>The archive %1 does not hold the file %2 as it was installed. The environment was made from other files; install it again.</source>
        <translation>壓縮檔 %1 中的檔案 %2 與安裝時的不一樣。該環境是用其他檔案建立的；請重新安裝它。</translation>
    </message>
    <message>
        <source>tfsetup cannot write %1 again for this environment. Install the environment again.</source>
        <translation>tfsetup 無法為此環境重新寫入 %1。請重新安裝該環境。</translation>
    </message>
    <message>
        <source>A replacement changed between unpacking and checking. The disk may be failing or another program (an antivirus) altered it; repair again.</source>
        <translation>某個替換檔案在解壓縮和校驗之間發生了變化。可能是磁碟出現故障，或是其他程式（如防毒軟體）修改了它；請再次修復。</translation>
    </message>
    <message>
        <source>%1 is in use. Close every program started from the environment (Python, Jupyter, shells) and repair again.</source>
        <translation>%1 正在使用中。請關閉從該環境啟動的所有程式（Python、Jupyter、命令列視窗），然後再次修復。</translation>
    </message>
    <message>
        <source>Would register the Jupyter kernel again in %1 (your user&apos;s Jupyter folder).</source>
        <translation>將在 %1（你的使用者 Jupyter 資料夾）中重新註冊 Jupyter 核心。</translation>
    </message>
    <message>
        <source>Registered the Jupyter kernel again in %1 (your user&apos;s Jupyter folder).</source>
        <translation>已在 %1（你的使用者 Jupyter 資料夾）中重新註冊 Jupyter 核心。</translation>
    </message>
    <message>
        <source>The Jupyter kernel could not be registered in %1. Start Jupyter with start-jupyter instead.</source>
        <translation>無法在 %1 中註冊 Jupyter 核心。請改用 start-jupyter 啟動 Jupyter。</translation>
    </message>
    <message>
        <source>The environment&apos;s Jupyter kernel is registered as installed.</source>
        <translation>該環境的 Jupyter 核心已按安裝時的樣子註冊。</translation>
    </message>
    <message>
        <source>The environment&apos;s launchers put its own libraries first. Start Python and Jupyter with start-python and start-jupyter.</source>
        <translation>環境的啟動指令碼會優先使用環境自帶的函式庫。請用 start-python 和 start-jupyter 啟動 Python 和 Jupyter。</translation>
    </message>
    <message>
        <source>%1 was restored from NVIDIA&apos;s archive.</source>
        <translation>%1 已從 NVIDIA 的壓縮檔中恢復。</translation>
    </message>
    <message>
        <source>The environment&apos;s own %1 is in place and unchanged.</source>
        <translation>該環境自身的 %1 在原位且未被改動。</translation>
    </message>
    <message>
        <source>%1 is outside the environment; tfsetup does not change system folders. %2</source>
        <translation>%1 位於環境之外；tfsetup 不會更改系統資料夾。%2</translation>
    </message>
    <message>
        <source>Verified after the repair.</source>
        <translation>修復後已驗證。</translation>
    </message>
    <message>
        <source>%1 in the environment lies behind a link to another folder, so repair does not write there. Remove the link (or install the environment again).</source>
        <translation>環境中的 %1 位於一個指向其他資料夾的連結之後，因此修復不會寫入那裡。請刪除該連結（或重新安裝該環境）。</translation>
    </message>
    <message>
        <source>The Jupyter kernel</source>
        <translation>Jupyter 核心</translation>
    </message>
    <message>
        <source>Would register the Jupyter kernel again in %1 (your user&apos;s Jupyter folder), keeping the kernel.json there as %2.</source>
        <translation>將在 %1（你使用者的 Jupyter 資料夾）中重新註冊 Jupyter 核心，原有的 kernel.json 保留為 %2。</translation>
    </message>
    <message>
        <source>Registered the Jupyter kernel again in %1 (your user&apos;s Jupyter folder); the kernel.json that was there is kept as %2.</source>
        <translation>已在 %1（你使用者的 Jupyter 資料夾）中重新註冊 Jupyter 核心；原來在那裡的 kernel.json 保留為 %2。</translation>
    </message>
    <message>
        <source>Reinstalling the damaged Python packages</source>
        <translation>正在重新安裝損壞的 Python 套件</translation>
    </message>
    <message>
        <source>No wheel of %1 %2 that matches what pip installed was found in the download folder, the offline bundle or the package index. Install the environment again.</source>
        <translation>在下載資料夾、離線包或套件索引中都沒有找到與 pip 安裝的 %1 %2 相符的 wheel。請重新安裝該環境。</translation>
    </message>
    <message>
        <source>pip could not reinstall %1 %2 (its own words are in the log). Install the environment again.</source>
        <translation>pip 無法重新安裝 %1 %2（它的原始輸出在日誌中）。請重新安裝該環境。</translation>
    </message>
    <message>
        <source>%1 %2 could not be put back whole (the log says which files and why). Install the environment again.</source>
        <translation>%1 %2 無法完整恢復（日誌中寫明瞭是哪些檔案以及原因）。請重新安裝該環境。</translation>
    </message>
    <message>
        <source>The Jupyter kernel in %1 is not this environment&apos;s, so repair leaves it as it is. Start Jupyter with start-jupyter, or install the environment again to register a kernel of its own.</source>
        <translation>%1 中的 Jupyter 核心不屬於本環境，修復不會改動它。請用 start-jupyter 啟動 Jupyter，或重新安裝本環境以註冊它自己的核心。</translation>
    </message>
</context>
<context>
    <name>tfsetup::core::SetupPipeline</name>
    <message>
        <source>The setup was cancelled; nothing was changed.</source>
        <translation>設定已取消；沒有做任何更改。</translation>
    </message>
    <message>
        <source>Python %1 (64-bit) is needed to choose the packages and make the environment, and none was found. Install it, then scan this computer again.</source>
        <translation>需要 Python %1（64 位）來選擇套件並建立環境，但沒有找到。請先安裝它，然後重新掃描此電腦。</translation>
    </message>
    <message>
        <source>Fetching Python %1 to choose the packages with its pip…</source>
        <translation>正在取得 Python %1，以便用它的 pip 選擇套件…</translation>
    </message>
    <message>
        <source>Looking up the official files for TensorFlow %1…</source>
        <translation>正在查詢 TensorFlow %1 的官方檔案…</translation>
    </message>
    <message>
        <source>tfsetup cannot write into the download folder %1. Choose a folder that is yours.</source>
        <translation>tfsetup 無法寫入下載資料夾 %1。請選擇一個屬於你的資料夾。</translation>
    </message>
    <message>
        <source>Checking that the offline bundle holds every package this environment needs…</source>
        <translation>正在檢查離線包是否包含此環境所需的每個套件…</translation>
    </message>
    <message>
        <source>Without the network the packages can only come from an offline bundle. Give one with --from (or on the Options page).</source>
        <translation>沒有網路時，套件只能來自離線包。請用 --from（或在「選項」頁）指定一個離線包。</translation>
    </message>
    <message>
        <source>The offline bundle %1 holds no Python packages, and without the network none can be fetched. Make the bundle again with tfsetup bundle on a computer with internet (without --no-wheelhouse).</source>
        <translation>離線包 %1 中沒有 Python 套件，而沒有網路就無法取得。請在能上網的電腦上用 tfsetup bundle 重新制作離線包（不要加 --no-wheelhouse）。</translation>
    </message>
    <message>
        <source>Choosing the Python packages with pip (from %1)…</source>
        <translation>正在用 pip 選擇 Python 套件（來自 %1）…</translation>
    </message>
    <message>
        <source>No checksum could be found or recorded for %1, so it cannot be checked. Try another package index.</source>
        <translation>找不到也無法記錄 %1 的校驗和，因此無法檢查它。請換一個套件索引。</translation>
    </message>
    <message>
        <source>The offline bundle %1 does not list %2. Make the bundle again.</source>
        <translation>離線包 %1 中沒有列出 %2。請重新制作離線包。</translation>
    </message>
    <message numerus="yes">
        <source>pip chose %n package(s), %1 in all.</source>
        <translation>
            <numerusform>pip 選擇了 %n 個套件，共 %1。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n file(s) to fetch, %1 in all; files already in the download folder are only checked.</source>
        <translation>
            <numerusform>需要取得 %n 個檔案，共 %1；下載資料夾中已有的檔案只做檢查。</numerusform>
        </translation>
    </message>
    <message>
        <source>Fetching %1 (%2)…</source>
        <translation>正在取得 %1（%2）…</translation>
    </message>
    <message>
        <source>Fetching %1…</source>
        <translation>正在取得 %1…</translation>
    </message>
    <message>
        <source>%1 (%2): already in the download folder, checksum verified.</source>
        <translation>%1（%2）：已在下載資料夾中，校驗和已驗證。</translation>
    </message>
    <message>
        <source>%1 (%2): downloaded from %3, checksum verified.</source>
        <translation>%1（%2）：已從 %3 下載，校驗和已驗證。</translation>
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
        <translation>升級已取消；環境保持原樣。</translation>
    </message>
    <message>
        <source>%1 was installed on the route &quot;%2&quot;, which this tfsetup does not know. Update tfsetup.</source>
        <translation>%1 是用路線 &quot;%2&quot; 安裝的，這個版本的 tfsetup 不認識該路線。請更新 tfsetup。</translation>
    </message>
    <message>
        <source>%1 was installed from a hash-locked requirements file (a lab profile), which pins its TensorFlow. Upgrade it with the lab&apos;s new profile: tfsetup install --profile FILE --yes.</source>
        <translation>%1 是用一個鎖定雜湊的依賴檔案（實驗室設定檔）安裝的，它固定了 TensorFlow 版本。請用實驗室新的設定檔升級：tfsetup install --profile FILE --yes。</translation>
    </message>
    <message>
        <source>TensorFlow %1 is not newer than the environment&apos;s %2. An upgrade only goes to a newer release; for another one, make a new environment.</source>
        <translation>TensorFlow %1 並不比環境中的 %2 新。升級只能升到更新的版本；如需其他版本，請建立新環境。</translation>
    </message>
    <message>
        <source>%1 was made for %2, and this machine runs %3. Upgrade it on the system it was made for.</source>
        <translation>%1 是為 %2 建立的，而本機執行的是 %3。請在建立它的系統上升級。</translation>
    </message>
    <message>
        <source>TensorFlow %1 does not support Python %2, which the environment has; the upgraded environment gets Python %3.</source>
        <translation>TensorFlow %1 不支援環境中的 Python %2；升級後的環境將使用 Python %3。</translation>
    </message>
    <message>
        <source>%1 has TensorFlow %2, which the solver ranks above the newer releases that would run here (%3); give --tf to upgrade to one of them anyway.</source>
        <translation>%1 的 TensorFlow %2 在求解器的排序中高於可在本機執行的更新版本（%3）；如仍要升級到其中之一，請使用 --tf 指定。</translation>
    </message>
    <message>
        <source>TensorFlow %1: %2</source>
        <translation>TensorFlow %1：%2</translation>
    </message>
    <message>
        <source>%1 has TensorFlow %2, the newest release tfsetup knows for the %3 route; there is nothing to upgrade.</source>
        <translation>%1 的 TensorFlow %2 已是 tfsetup 所知的 %3 路線上的最新版本；沒有可升級的內容。</translation>
    </message>
    <message>
        <source>No TensorFlow newer than %1 runs on this machine on the %2 route; %3 stays as it is.</source>
        <translation>在 %2 路線上，本機無法執行比 %1 更新的 TensorFlow；%3 保持原樣。</translation>
    </message>
    <message>
        <source>TensorFlow %1 cannot run on this machine on the %2 route; %3 stays as it is.</source>
        <translation>在 %2 路線上，TensorFlow %1 無法在本機執行；%3 保持原樣。</translation>
    </message>
    <message>
        <source>%1 can be upgraded from TensorFlow %2 to %3.</source>
        <translation>%1 可以從 TensorFlow %2 升級到 %3。</translation>
    </message>
    <message>
        <source>There is nothing to upgrade.</source>
        <translation>沒有可升級的內容。</translation>
    </message>
    <message>
        <source>%1 changed since the upgrade was proposed. Ask for the proposal again.</source>
        <translation>%1 在提出升級方案之後發生了變化。請重新取得升級方案。</translation>
    </message>
    <message>
        <source>Finding the files TensorFlow %1 needs…</source>
        <translation>正在查詢 TensorFlow %1 需要的檔案…</translation>
    </message>
    <message>
        <source>Verifying %1: loading its GPU libraries, then running TensorFlow…</source>
        <translation>正在驗證 %1：先載入它的 GPU 函式庫，再執行 TensorFlow…</translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::CatalogNotice</name>
    <message>
        <source>Checking for a catalog update…</source>
        <translation>正在檢查知識庫更新…</translation>
    </message>
    <message>
        <source>Catalog update version %1 of %2 is installed; tfsetup uses it from now on.</source>
        <translation>已安裝知識庫更新，版本 %1，日期 %2；tfsetup 從現在起使用它。</translation>
    </message>
    <message>
        <source>The knowledge catalog is up to date (version %1).</source>
        <translation>知識庫已是最新（版本 %1）。</translation>
    </message>
    <message>
        <source>Chec&amp;k for catalog updates</source>
        <translation>檢查知識庫更新(&amp;K)</translation>
    </message>
    <message>
        <source>Fetch the signed update of tfsetup&apos;s knowledge (TensorFlow&apos;s tested versions, NVIDIA&apos;s tables, GPUs) through the proxy above.</source>
        <translation>透過上面的代理取得 tfsetup 知識（TensorFlow 測試過的版本、NVIDIA 的對照表、GPU）的簽名更新。</translation>
    </message>
    <message>
        <source>The knowledge catalog is updated: version %1 of %2.</source>
        <translation>知識庫已更新：版本 %1，日期 %2。</translation>
    </message>
    <message>
        <source>The installed catalog update was refused, so tfsetup uses its built-in catalog: %1</source>
        <translation>已安裝的知識庫更新被拒絕，所以 tfsetup 使用內建知識庫：%1</translation>
    </message>
    <message>
        <source>tfsetup&apos;s release page has not published a catalog update yet; the built-in catalog (version %1) stays in use.</source>
        <translation>tfsetup 的發布頁面還沒有發布知識函式庫更新；繼續使用內建知識函式庫（版本 %1）。</translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::ChoosePage</name>
    <message>
        <source>tfsetup has not looked at your computer yet. Go back one page and let it scan.</source>
        <translation>tfsetup 還沒有檢查你的電腦。請返回上一頁，讓它進行掃描。</translation>
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
        <translation>更新驅動程式</translation>
    </message>
    <message>
        <source>NVIDIA driver</source>
        <translation>NVIDIA 驅動程式</translation>
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
        <translation>Visual C++ 執行階段函式庫</translation>
    </message>
    <message>
        <source>%1 (recommended)</source>
        <translation>%1（推薦）</translation>
    </message>
    <message>
        <source>none</source>
        <translation>無</translation>
    </message>
    <message>
        <source>nothing</source>
        <translation>無</translation>
    </message>
    <message>
        <source>any</source>
        <translation>任意</translation>
    </message>
    <message>
        <source>graphics card</source>
        <translation>顯示卡</translation>
    </message>
    <message>
        <source>TensorFlow %1 inside WSL2, using your %2, with Python %3.</source>
        <translation>在 WSL2 中執行 TensorFlow %1，使用你的 %2，Python 版本為 %3。</translation>
    </message>
    <message>
        <source>TensorFlow %1 using your %2, with Python %3.</source>
        <translation>使用你的 %2 執行 TensorFlow %1，搭配 Python %3。</translation>
    </message>
    <message>
        <source>TensorFlow %1 on the processor only (no GPU), with Python %2.</source>
        <translation>TensorFlow %1，僅使用處理器（不使用 GPU），Python %2。</translation>
    </message>
    <message>
        <source>Recommended: %1</source>
        <translation>推薦：%1</translation>
    </message>
    <message>
        <source>Your choice: %1</source>
        <translation>你的選擇：%1</translation>
    </message>
    <message>
        <source>The driver lets programs use your graphics card. Get it for your card from NVIDIA&apos;s driver download page (on Linux, from your distribution&apos;s driver tool), restart the computer, then run tfsetup again. Your files and programs stay as they are.</source>
        <translation>驅動程式讓程式能夠使用你的顯示卡。請從 NVIDIA 的驅動程式下載頁面取得適用於你顯示卡的驅動程式（Linux 上請使用發行版自帶的驅動程式工具），重新啟動電腦，然後再次執行 tfsetup。你的檔案和程式都會保持原樣。</translation>
    </message>
    <message>
        <source>WSL2 runs Linux inside Windows; newer TensorFlow releases use the GPU only there. Open PowerShell as administrator, run &quot;wsl --install&quot;, restart, then run tfsetup inside the Linux window.</source>
        <translation>WSL2 可以在 Windows 中執行 Linux；較新的 TensorFlow 版本只能在其中使用 GPU。請以管理員身份開啟 PowerShell，執行 &quot;wsl --install&quot;，重新啟動電腦，然後在 Linux 視窗中執行 tfsetup。</translation>
    </message>
    <message>
        <source>These are Microsoft system files that many Windows programs share; installing them changes nothing else.</source>
        <translation>這些是許多 Windows 程式共用的 Microsoft 系統檔案；安裝它們不會改變其他任何內容。</translation>
    </message>
    <message>
        <source>A lab computer or a hosted notebook service with a GPU works without installing anything here.</source>
        <translation>使用帶 GPU 的實驗室電腦或雲端 Notebook 服務，無需在這裡安裝任何東西。</translation>
    </message>
    <message>
        <source>No TensorFlow combination fits this computer as it is.</source>
        <translation>沒有適合這台電腦目前狀況的 TensorFlow 組合。</translation>
    </message>
    <message>
        <source>&quot;Not possible here&quot; below says why for each one.</source>
        <translation>下方的「在本機上不可行」中說明了每種組合不可行的原因。</translation>
    </message>
    <message>
        <source>Good to know:</source>
        <translation>須知：</translation>
    </message>
    <message>
        <source>The log file has the details: %1</source>
        <translation>記錄檔中有詳細資訊：%1</translation>
    </message>
    <message>
        <source>Your TensorFlow setup</source>
        <translation>你的 TensorFlow 安裝方案</translation>
    </message>
    <message>
        <source>tfsetup chose the combination that fits your computer best. You can pick another one below.</source>
        <translation>tfsetup 已選出最適合你電腦的組合。你也可以在下面選擇其他組合。</translation>
    </message>
    <message>
        <source>Working out what fits your computer…</source>
        <translation>正在找出適合你電腦的組合……</translation>
    </message>
    <message>
        <source>Do this first:</source>
        <translation>請先完成：</translation>
    </message>
    <message>
        <source>Possible combinations (%1)</source>
        <translation>可選的組合（%1）</translation>
    </message>
    <message>
        <source>Not possible here (%1)</source>
        <translation>在本機上不可行（%1）</translation>
    </message>
    <message>
        <source>Advanced</source>
        <translation>進階</translation>
    </message>
    <message>
        <source>TensorFlow</source>
        <translation>TensorFlow</translation>
    </message>
    <message>
        <source>Runs on</source>
        <translation>執行於</translation>
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
        <translation>需先準備</translation>
    </message>
    <message>
        <source>Possible combinations</source>
        <translation>可選的組合</translation>
    </message>
    <message>
        <source>Why not</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Combinations that do not fit this computer</source>
        <translation>不適合這台電腦的組合</translation>
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
        <translation>最適合這台電腦</translation>
    </message>
    <message>
        <source>&amp;Keep the NVIDIA driver as it is (for computers where you cannot install drivers)</source>
        <translation>保持 NVIDIA 驅動程式不變（適用於無法安裝驅動程式的電腦）(&amp;K)</translation>
    </message>
    <message>
        <source>A course may ask for a particular version. Combinations that do not fit it are listed under &quot;Not possible here&quot; with the reason.</source>
        <translation>課程可能要求使用特定版本。與之不相容的組合會列在「在本機上不可行」下，並附有原因。</translation>
    </message>
    <message>
        <source>Other combinations</source>
        <translation>其他組合</translation>
    </message>
    <message>
        <source>The chosen combination</source>
        <translation>選定的組合</translation>
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
        <translation>顯示全部(&amp;A)</translation>
    </message>
    <message>
        <source>Also lists older TensorFlow releases and every Python version of each combination.</source>
        <translation>同時列出較舊的 TensorFlow 版本，以及每種組合的所有 Python 版本。</translation>
    </message>
    <message>
        <source>Why this combination does not fit</source>
        <translation>為什麼此組合不適用</translation>
    </message>
    <message>
        <source>Shown now: %1 of %2 possible combinations, %3 of %4 that are not possible.</source>
        <translation>目前顯示：%2 個可行組合中的 %1 個，%4 個不可行組合中的 %3 個。</translation>
    </message>
    <message>
        <source>At a glance</source>
        <translation>概覽</translation>
    </message>
    <message>
        <source>Every TensorFlow release against every way to install it on this computer.</source>
        <translation>每個 TensorFlow 版本與這台電腦上每種安裝方式的對照。</translation>
    </message>
    <message>
        <source>Use the processor &amp;only, not the GPU</source>
        <translation>僅使用處理器，不使用 GPU(&amp;O)</translation>
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
        <translation>推薦</translation>
    </message>
    <message>
        <source>Works</source>
        <translation>可用</translation>
    </message>
    <message>
        <source>After a step</source>
        <translation>需額外步驟</translation>
    </message>
    <message>
        <source>Experimental</source>
        <translation>實驗性</translation>
    </message>
    <message>
        <source>%1: works with Python %2 once this is done:</source>
        <translation>%1：完成以下步驟後可配合 Python %2 使用：</translation>
    </message>
    <message>
        <source>%1: works on this computer, with Python %2.</source>
        <translation>%1：可在這台電腦上配合 Python %2 使用。</translation>
    </message>
    <message>
        <source>Recommended.</source>
        <translation>推薦。</translation>
    </message>
    <message>
        <source>Not possible</source>
        <translation>不可行</translation>
    </message>
    <message>
        <source>%1: not possible on this computer:</source>
        <translation>%1：在這台電腦上不可行：</translation>
    </message>
    <message>
        <source>%1: tfsetup does not offer this combination.</source>
        <translation>%1：tfsetup 不提供此組合。</translation>
    </message>
    <message>
        <source>Select a cell to see why.</source>
        <translation>選擇一個單元格以檢視原因。</translation>
    </message>
    <message>
        <source>Which TensorFlow releases work on this computer, on each route</source>
        <translation>在這台電腦上，每種安裝方式可用的 TensorFlow 版本</translation>
    </message>
    <message>
        <source>Rows are TensorFlow releases, columns are ways to install it. Each cell says whether it works as it is, after a step, or not at all.</source>
        <translation>行是 TensorFlow 版本，列是安裝方式。每個單元格說明該組合是直接可用、完成某個步驟後可用，還是完全不可用。</translation>
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
        <translation>連線被拒絕</translation>
    </message>
    <message>
        <source>proxy not reachable</source>
        <translation>無法連線代理</translation>
    </message>
    <message>
        <source>no answer in time</source>
        <translation>超時無回應</translation>
    </message>
    <message>
        <source>too slow</source>
        <translation>太慢</translation>
    </message>
    <message>
        <source>certificate not trusted</source>
        <translation>憑證不受信任</translation>
    </message>
    <message>
        <source>proxy asks for a password</source>
        <translation>代理要求密碼</translation>
    </message>
    <message>
        <source>the proxy could not reach it</source>
        <translation>代理無法連到它</translation>
    </message>
    <message>
        <source>the server refused the request</source>
        <translation>伺服器拒絕了請求</translation>
    </message>
    <message>
        <source>a web page instead (log in?)</source>
        <translation>傳回的是網頁（需要登入？）</translation>
    </message>
    <message>
        <source>folder missing</source>
        <translation>資料夾缺失</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失敗</translation>
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
        <translation>NVIDIA 鏡像站</translation>
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
        <translation>PyPI 鏡像站 %1</translation>
    </message>
    <message>
        <source>%1 not reachable</source>
        <translation>%1 無法連通</translation>
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
        <translation>%1 在 %2 毫秒內回應</translation>
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
        <translation>測試連線(&amp;C)</translation>
    </message>
    <message>
        <source>Checks whether PyPI (or the mirror above), NVIDIA and python.org answer through the proxy above, and how fast.</source>
        <translation>檢查 PyPI（或上面的鏡像站）、NVIDIA 和 python.org 透過上面的代理能否回應，以及速度如何。</translation>
    </message>
    <message>
        <source>Origin</source>
        <translation>來源</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>主機</translation>
    </message>
    <message>
        <source>Reachable</source>
        <translation>可連通</translation>
    </message>
    <message>
        <source>Latency</source>
        <translation>延遲</translation>
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
        <translation>連線測試結果</translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::DetectPage</name>
    <message>
        <source>Your computer</source>
        <translation>你的電腦</translation>
    </message>
    <message>
        <source>tfsetup looks at your graphics card, its driver, the processor and what is already installed. Nothing is changed on your computer.</source>
        <translation>tfsetup 會檢視你的顯示卡、顯示卡驅動程式、處理器以及已經安裝的軟體。不會對你的電腦做任何更改。</translation>
    </message>
    <message>
        <source>Looking at your computer… This takes a few seconds.</source>
        <translation>正在檢查你的電腦……需要幾秒鐘。</translation>
    </message>
    <message>
        <source>Scan a&amp;gain</source>
        <translation>重新掃描(&amp;G)</translation>
    </message>
    <message>
        <source>Scan again</source>
        <translation>重新掃描</translation>
    </message>
    <message>
        <source>&amp;Copy report</source>
        <translation>複製報告(&amp;C)</translation>
    </message>
    <message>
        <source>Copy report</source>
        <translation>複製報告</translation>
    </message>
    <message>
        <source>Copies what was found, as text and as JSON, for example to ask for help.</source>
        <translation>以文字和 JSON 兩種格式複製偵測結果，例如用來向別人求助。</translation>
    </message>
    <message>
        <source>Hide &amp;details</source>
        <translation>隱藏詳細資訊(&amp;D)</translation>
    </message>
    <message>
        <source>Show &amp;details</source>
        <translation>顯示詳細資訊(&amp;D)</translation>
    </message>
    <message>
        <source>Show details</source>
        <translation>顯示詳細資訊</translation>
    </message>
    <message>
        <source>Field</source>
        <translation>項目</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>值</translation>
    </message>
    <message>
        <source>Found by</source>
        <translation>偵測方式</translation>
    </message>
    <message>
        <source>Full report</source>
        <translation>完整報告</translation>
    </message>
    <message>
        <source>Some checks did not work. That is often harmless when another check found the same thing; &quot;Show details&quot; tells why.</source>
        <translation>有些檢查沒有成功。如果其他檢查已經找到了同樣的資訊，這通常沒有影響；點選「顯示詳細資訊」可以檢視原因。</translation>
    </message>
    <message>
        <source>The log file has everything tfsetup tried: %1</source>
        <translation>記錄檔記錄了 tfsetup 嘗試過的所有操作：%1</translation>
    </message>
    <message>
        <source>none found</source>
        <translation>未找到</translation>
    </message>
    <message numerus="yes">
        <source>%n found</source>
        <translation>
            <numerusform>找到 %n 個</numerusform>
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
        <translation>待校驗</translation>
    </message>
    <message>
        <source>Waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>Checking</source>
        <translation>正在校驗</translation>
    </message>
    <message>
        <source>%1/s</source>
        <translation>%1/s</translation>
    </message>
    <message>
        <source>Paused at %p%</source>
        <translation>已暫停（%p%）</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>已暫停</translation>
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
        <translation>已驗證（僅 MD5）</translation>
    </message>
    <message>
        <source>verified</source>
        <comment>checksum status</comment>
        <translation>已校驗</translation>
    </message>
    <message>
        <source>Rejected</source>
        <translation>已拒絕</translation>
    </message>
    <message>
        <source>mismatch</source>
        <comment>checksum status</comment>
        <translation>不相符</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失敗</translation>
    </message>
    <message>
        <source>already downloaded</source>
        <translation>已下載</translation>
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
            <numerusform>全部 %n 個檔案均已下載，校驗和驗證通過。</numerusform>
        </translation>
    </message>
    <message>
        <source>Downloads stopped. What arrived is kept: Resume continues where they stopped.</source>
        <translation>下載已停止。已下載的部分會保留：點選「繼續」會從停止處接著下載。</translation>
    </message>
    <message>
        <source>Paused. Resume continues where the downloads stopped.</source>
        <translation>已暫停。點選「繼續」可從中斷處繼續下載。</translation>
    </message>
    <message>
        <source>%1 of %2 downloaded</source>
        <translation>已下載 %1 / %2</translation>
    </message>
    <message>
        <source>%1 downloaded</source>
        <translation>已下載 %1</translation>
    </message>
    <message>
        <source>The log file has the details: %1</source>
        <translation>記錄檔中有詳細資訊：%1</translation>
    </message>
    <message>
        <source>Downloading</source>
        <translation>正在下載</translation>
    </message>
    <message>
        <source>tfsetup downloads the official files and checks each one against its published checksum. You can go back meanwhile; the downloads keep going.</source>
        <translation>tfsetup 只下載官方檔案，並逐一核對校驗和。下載時可以返回上一步，下載不會中斷。</translation>
    </message>
    <message>
        <source>File</source>
        <translation>檔案</translation>
    </message>
    <message>
        <source>Progress</source>
        <translation>進度</translation>
    </message>
    <message>
        <source>Speed</source>
        <translation>速度</translation>
    </message>
    <message>
        <source>Time left</source>
        <translation>剩餘時間</translation>
    </message>
    <message>
        <source>From</source>
        <translation>來源</translation>
    </message>
    <message>
        <source>Checksum</source>
        <translation>校驗和</translation>
    </message>
    <message>
        <source>Downloads</source>
        <translation>下載</translation>
    </message>
    <message>
        <source>There is nothing to download for this choice.</source>
        <translation>這個選擇沒有需要下載的內容。</translation>
    </message>
    <message>
        <source>&amp;Pause</source>
        <translation>暫停(&amp;P)</translation>
    </message>
    <message>
        <source>Pause downloads</source>
        <translation>暫停下載</translation>
    </message>
    <message>
        <source>&amp;Resume</source>
        <translation>繼續(&amp;R)</translation>
    </message>
    <message>
        <source>Resume downloads</source>
        <translation>繼續下載</translation>
    </message>
    <message>
        <source>Continues paused or stopped downloads where they stopped, and tries failed ones again.</source>
        <translation>從中斷處繼續已暫停或已停止的下載，並重試失敗的下載。</translation>
    </message>
    <message>
        <source>&amp;Stop downloads</source>
        <translation>停止下載(&amp;S)</translation>
    </message>
    <message>
        <source>Stop downloads</source>
        <translation>停止下載</translation>
    </message>
    <message>
        <source>Stops every download. What arrived is kept, so Resume does not start over.</source>
        <translation>停止所有下載。已下載的部分會保留，因此繼續下載時不會從頭開始。</translation>
    </message>
    <message>
        <source>Please note before the downloads:</source>
        <translation>下載前請注意：</translation>
    </message>
    <message>
        <source>Notes about the files</source>
        <translation>關於這些檔案的提示</translation>
    </message>
    <message>
        <source>The CUDA libraries below are CUDA %1&apos;s, standing in for CUDA %2, the version TensorFlow %3 was tested with.</source>
        <translation>下面的 CUDA 函式庫是 CUDA %1 的，用來代替 CUDA %2，即 TensorFlow %3 測試時所用的版本。</translation>
    </message>
    <message>
        <source>Why: %1</source>
        <translation>原因：%1</translation>
    </message>
    <message>
        <source>CUDA libraries of another release</source>
        <translation>另一個版本的 CUDA 函式庫</translation>
    </message>
    <message>
        <source>What comes down:</source>
        <translation>將要下載的內容：</translation>
    </message>
    <message numerus="yes">
        <source>NVIDIA&apos;s libraries: %n archive(s), %1</source>
        <translation>
            <numerusform>NVIDIA 的函式庫：%n 個壓縮檔，%1</numerusform>
        </translation>
    </message>
    <message>
        <source>Python %1: %2</source>
        <translation>Python %1：%2</translation>
    </message>
    <message numerus="yes">
        <source>Other files: %n file(s), %1</source>
        <translation>
            <numerusform>其他檔案：%n 個檔案，%1</numerusform>
        </translation>
    </message>
    <message>
        <source>During the install, pip fetches %1: about %2 for the TensorFlow wheel (an estimate, from PyPI&apos;s listing; the packages TensorFlow needs come on top).</source>
        <translation>安裝過程中，pip 會下載 %1：TensorFlow 的 wheel 約 %2（根據 PyPI 的清單估算；TensorFlow 所需的其他包另計）。</translation>
    </message>
    <message>
        <source>During the install, pip fetches %1 and the packages it needs; their size is known only then.</source>
        <translation>安裝過程中，pip 會下載 %1 及其所需的包；它們的大小要到那時才知道。</translation>
    </message>
    <message>
        <source>In all about %1</source>
        <translation>總計約 %1</translation>
    </message>
    <message>
        <source>In all %1, plus pip&apos;s packages</source>
        <translation>總計 %1，另加 pip 的包</translation>
    </message>
    <message>
        <source>In all %1</source>
        <translation>總計 %1</translation>
    </message>
    <message>
        <source>In all at least %1</source>
        <translation>總計至少 %1</translation>
    </message>
    <message>
        <source>(about %1 at the current %2/s).</source>
        <translation>（按目前 %2/s 計算約需 %1）。</translation>
    </message>
    <message>
        <source>(about %1 at %2/s; the real time shows once the downloads run).</source>
        <translation>（按 %2/s 計算約需 %1；開始下載後會顯示實際時間）。</translation>
    </message>
    <message>
        <source>What will be downloaded</source>
        <translation>將要下載的內容</translation>
    </message>
    <message numerus="yes">
        <source>Python packages (TensorFlow and what it needs, as pip&apos;s resolver chose them): %n wheel(s), %1</source>
        <translation>
            <numerusform>Python 套件（TensorFlow 及其依賴，由 pip 的依賴解析器選定）：%n 個 wheel，%1</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 (about %2)</source>
        <translation>%1（約 %2）</translation>
    </message>
    <message>
        <source>checked at install</source>
        <comment>checksum status</comment>
        <translation>安裝時校驗</translation>
    </message>
    <message>
        <source>Nothing to download: every file comes from the offline bundle %1.</source>
        <translation>無需下載：所有檔案都來自離線包 %1。</translation>
    </message>
    <message>
        <source>Nothing to download before the install: pip fetches the packages below during the install.</source>
        <translation>安裝前無需下載：pip 會在安裝過程中取得下列套件。</translation>
    </message>
    <message>
        <source>offline bundle</source>
        <translation>離線包</translation>
    </message>
    <message>
        <source>In the bundle</source>
        <translation>在離線包中</translation>
    </message>
    <message>
        <source>PyPI</source>
        <translation>PyPI</translation>
    </message>
    <message>
        <source>%1 and the packages it needs</source>
        <translation>%1 及其依賴的套件</translation>
    </message>
    <message>
        <source>With the install</source>
        <translation>安裝時取得</translation>
    </message>
    <message>
        <source>(%1/s, about %2 left)</source>
        <translation>（%1/s，約剩 %2）</translation>
    </message>
    <message>
        <source>(%1/s)</source>
        <translation>（%1/s）</translation>
    </message>
    <message>
        <source>Set a proxy or &amp;mirror…</source>
        <translation>設定代理或鏡像站(&amp;M)…</translation>
    </message>
    <message>
        <source>Download a&amp;gain</source>
        <translation>重新下載(&amp;G)</translation>
    </message>
    <message>
        <source>Open the &amp;log</source>
        <translation>開啟日誌(&amp;L)</translation>
    </message>
    <message numerus="yes">
        <source>From the offline bundle: %n file(s), %1, nothing to download.</source>
        <translation>
            <numerusform>來自離線包：%n 個檔案，%1，無需下載。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>From the offline bundle: %n file(s), at least %1, nothing to download.</source>
        <translation>
            <numerusform>來自離線包：%n 個檔案，至少 %1，無需下載。</numerusform>
        </translation>
    </message>
    <message>
        <source>From: %1</source>
        <translation>來源：%1</translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
    <message>
        <source>About the downloads</source>
        <translation>關於下載</translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::DownloadPreview</name>
    <message>
        <source>the offline bundle cannot serve this combination</source>
        <translation>離線包無法提供此組合</translation>
    </message>
    <message>
        <source>NVIDIA could not be reached; a proxy or mirror can be set on the next page</source>
        <translation>無法連線到 NVIDIA；可在下一頁設定代理或鏡像站</translation>
    </message>
    <message>
        <source>the lookup failed; the log has why</source>
        <translation>查詢失敗；原因見日誌</translation>
    </message>
    <message>
        <source>none</source>
        <translation>無</translation>
    </message>
    <message>
        <source>%1 (%2&apos;s files)</source>
        <comment>CUDA tested with (CUDA whose files are downloaded)</comment>
        <translation>%1（使用 %2 的檔案）</translation>
    </message>
    <message>
        <source>Total download: %1.</source>
        <translation>總下載量：%1。</translation>
    </message>
    <message numerus="yes">
        <source>Total download: at least %1; %n more file(s) of unknown size, plus the TensorFlow wheels, sized on the next page.</source>
        <translation>
            <numerusform>總下載量：至少 %1；另有 %n 個大小未知的檔案，以及 TensorFlow wheel 檔案（大小在下一頁顯示）。</numerusform>
        </translation>
    </message>
    <message>
        <source>Total download: %1, plus the TensorFlow wheels, sized on the next page.</source>
        <translation>總下載量：%1，另加 TensorFlow wheel 檔案（大小在下一頁顯示）。</translation>
    </message>
    <message>
        <source>Total download: the TensorFlow wheels, sized on the next page.</source>
        <translation>總下載量：TensorFlow wheel 檔案（大小在下一頁顯示）。</translation>
    </message>
    <message numerus="yes">
        <source>Total download: at least %1; %n more file(s) of unknown size.</source>
        <translation>
            <numerusform>總下載量：至少 %1；另有 %n 個大小未知的檔案。</numerusform>
        </translation>
    </message>
    <message>
        <source>Total download: looking up the size of each file…</source>
        <translation>總下載量：正在查詢每個檔案的大小…</translation>
    </message>
    <message>
        <source>Total download: not known yet (%1). tfsetup looks up each file and its size on the next page, before anything is downloaded.</source>
        <translation>總下載量：暫未知（%1）。tfsetup 會在下一頁查詢每個檔案及其大小，然後才開始下載。</translation>
    </message>
    <message>
        <source>Total download: not known yet. tfsetup looks up each file and its size on the next page, before anything is downloaded.</source>
        <translation>總下載量：暫未知。tfsetup 會在下一頁查詢每個檔案及其大小，然後才開始下載。</translation>
    </message>
    <message>
        <source>What will be downloaded:</source>
        <translation>將要下載的內容：</translation>
    </message>
    <message>
        <source>TensorFlow %1 with CUDA %2 and cuDNN %3, as pip packages (%4)</source>
        <translation>TensorFlow %1，使用 CUDA %2 和 cuDNN %3，以 pip 套件形式提供（%4）</translation>
    </message>
    <message>
        <source>TensorFlow %1, as a pip package (%2)</source>
        <translation>TensorFlow %1，以 pip 套件形式安裝（%2）</translation>
    </message>
    <message>
        <source>%1, as a pip package</source>
        <translation>%1，以 pip 套件形式安裝</translation>
    </message>
    <message>
        <source>CUDA %1 libraries from NVIDIA</source>
        <translation>來自 NVIDIA 的 CUDA %1 函式庫</translation>
    </message>
    <message>
        <source>CUDA %1 libraries from NVIDIA, standing in for CUDA %2 (NVIDIA publishes no portable archives of %2; the library names are the same)</source>
        <translation>來自 NVIDIA 的 CUDA %1 函式庫，用來代替 CUDA %2（NVIDIA 沒有發布 %2 的可攜式歸檔檔案；兩者的函式庫名稱相同）</translation>
    </message>
    <message>
        <source>CUDA %1 libraries from NVIDIA, standing in for CUDA %2: NVIDIA is not known to publish portable archives of %2 (if it does, those come instead)</source>
        <translation>來自 NVIDIA 的 CUDA %1 函式庫，用來代替 CUDA %2：目前不知道 NVIDIA 是否發布了 %2 的可攜式歸檔檔案（如果有，則改用它們）</translation>
    </message>
    <message>
        <source>cuDNN %1 libraries from NVIDIA</source>
        <translation>來自 NVIDIA 的 cuDNN %1 函式庫</translation>
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
        <translation>此環境沒有這個啟動指令碼。請再次執行 tfsetup 進行修復。</translation>
    </message>
    <message>
        <source>No terminal program was found. Open a terminal yourself and run:
%1</source>
        <translation>沒有找到終端機程式。請自己開啟一個終端機並執行：
%1</translation>
    </message>
    <message>
        <source>%1 could not be started. Open a terminal yourself and run:
%2</source>
        <translation>無法啟動 %1。請自己開啟一個終端機並執行：
%2</translation>
    </message>
    <message>
        <source>The environment summary is on the clipboard. Paste it into a help request or a lab report.</source>
        <translation>環境摘要已複製到剪貼簿。可以把它貼上到求助資訊或實驗報告中。</translation>
    </message>
    <message>
        <source>No environment was made.</source>
        <translation>沒有建立任何環境。</translation>
    </message>
    <message>
        <source>Done: TensorFlow works in your new environment.</source>
        <translation>完成：TensorFlow 已在你的新環境中正常工作。</translation>
    </message>
    <message>
        <source>Folder: %1</source>
        <translation>資料夾：%1</translation>
    </message>
    <message>
        <source>Launchers:</source>
        <translation>啟動指令碼：</translation>
    </message>
    <message>
        <source>To use it, start Python with %1, open a terminal with the environment below, or pick &quot;%2&quot; as the kernel in Jupyter.</source>
        <translation>要使用它，請用 %1 啟動 Python，或透過下方的環境開啟一個終端機，或在 Jupyter 中選擇「%2」作為核心。</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>準備就緒</translation>
    </message>
    <message>
        <source>How to start working with TensorFlow.</source>
        <translation>如何開始使用 TensorFlow。</translation>
    </message>
    <message>
        <source>Open a &amp;terminal</source>
        <translation>開啟終端機(&amp;T)</translation>
    </message>
    <message>
        <source>A terminal window where python and pip are the environment&apos;s own.</source>
        <translation>開啟一個終端機視窗，其中的 python 和 pip 都是該環境自帶的。</translation>
    </message>
    <message>
        <source>Start &amp;Jupyter</source>
        <translation>啟動 Jupyter(&amp;J)</translation>
    </message>
    <message>
        <source>&amp;Copy summary</source>
        <translation>複製摘要(&amp;C)</translation>
    </message>
    <message>
        <source>Copies ENVIRONMENT.md: versions, folders and launchers, for help requests.</source>
        <translation>複製 ENVIRONMENT.md：包括版本、資料夾和啟動指令碼，便於求助。</translation>
    </message>
    <message>
        <source>Starts JupyterLab (or the Jupyter Notebook the environment has) in a terminal window; close that window to stop it.</source>
        <translation>在終端機視窗中啟動 JupyterLab（或該環境中已有的 Jupyter Notebook）；關閉該視窗即可停止它。</translation>
    </message>
    <message>
        <source>Jupyter was not chosen on the Options page. The environment&apos;s kernel still works in a Jupyter started elsewhere.</source>
        <translation>沒有在「選項」頁中選擇 Jupyter。該環境的核心仍可以在別處啟動的 Jupyter 中使用。</translation>
    </message>
    <message>
        <source>The environment is installed, but the check failed: %1 Repair now finds the cause and puts back what it can.</source>
        <translation>環境已安裝，但檢查未透過：%1「立即修復」會查詢原因，並儘可能恢復。</translation>
    </message>
    <message>
        <source>The environment is installed, but the check failed. Repair now finds the cause and puts back what it can.</source>
        <translation>環境已安裝，但檢查未透過。「立即修復」會查詢原因，並儘可能恢復。</translation>
    </message>
    <message>
        <source>The environment is installed. It was not checked.</source>
        <translation>環境已安裝，但尚未檢查。</translation>
    </message>
    <message>
        <source>Nothing was installed</source>
        <translation>未安裝任何內容</translation>
    </message>
    <message>
        <source>Go back to choose what to install, or close the wizard.</source>
        <translation>返回上一步選擇要安裝的內容，或關閉精靈。</translation>
    </message>
    <message>
        <source>TensorFlow works. How to start working with it:</source>
        <translation>TensorFlow 可以正常使用。開始使用的方法：</translation>
    </message>
    <message>
        <source>Installed, but the check failed</source>
        <translation>已安裝，但檢查未透過</translation>
    </message>
    <message>
        <source>TensorFlow does not work in the new environment yet. Repair it now, or start it anyway to see for yourself.</source>
        <translation>TensorFlow 在新環境中還不能正常工作。請立即修復，或者仍然啟動它，自己看看情況。</translation>
    </message>
    <message>
        <source>Installed</source>
        <translation>已安裝</translation>
    </message>
    <message>
        <source>The environment&apos;s folder and launchers</source>
        <translation>環境的資料夾和啟動器</translation>
    </message>
    <message>
        <source>&amp;Repair now</source>
        <translation>立即修復(&amp;R)</translation>
    </message>
    <message>
        <source>Opens the Repair page on this environment: it finds the cause and puts back what it can.</source>
        <translation>為此環境開啟「修復」頁面：它會查詢原因，並儘可能恢復。</translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::GpuChooser</name>
    <message>
        <source>TensorFlow %1 cannot use this GPU: %2</source>
        <translation>TensorFlow %1 無法使用這個 GPU：%2</translation>
    </message>
    <message>
        <source>Slow first start: TensorFlow %1 has no ready-made code for this GPU, so the NVIDIA driver compiles it each time a program starts, which can take several minutes.</source>
        <translation>首次啟動較慢：TensorFlow %1 沒有為這個 GPU 預先編譯的程式碼，因此每次程式啟動時 NVIDIA 驅動程式都要編譯它，可能需要幾分鐘。</translation>
    </message>
    <message>
        <source>GPUs this environment uses (TensorFlow numbers the ticked ones from 0, in this order):</source>
        <translation>此環境使用的 GPU（TensorFlow 按此順序從 0 開始為勾選的 GPU 編號）：</translation>
    </message>
    <message>
        <source>Tick at least one GPU, or use the processor only (Advanced).</source>
        <translation>請至少勾選一塊 GPU，或只使用處理器（進階）。</translation>
    </message>
    <message>
        <source>GPUs this environment uses</source>
        <translation>此環境使用的 GPU</translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::InstallPage</name>
    <message>
        <source>Check the downloaded files</source>
        <translation>校驗下載的檔案</translation>
    </message>
    <message>
        <source>Unpack the archives</source>
        <translation>解開壓縮檔</translation>
    </message>
    <message>
        <source>Put each library where TensorFlow looks for it</source>
        <translation>把每個函式庫放到 TensorFlow 查詢它的位置</translation>
    </message>
    <message>
        <source>Create the Python environment</source>
        <translation>建立 Python 環境</translation>
    </message>
    <message>
        <source>Install TensorFlow with pip</source>
        <translation>用 pip 安裝 TensorFlow</translation>
    </message>
    <message>
        <source>Write the launchers</source>
        <translation>寫入啟動指令碼</translation>
    </message>
    <message>
        <source>Record what was installed</source>
        <translation>記錄安裝內容</translation>
    </message>
    <message>
        <source>Check the new environment</source>
        <translation>檢查新環境</translation>
    </message>
    <message>
        <source>Move the environment into place</source>
        <translation>把環境移動到最終位置</translation>
    </message>
    <message>
        <source>Register the Jupyter kernel</source>
        <translation>註冊 Jupyter 核心</translation>
    </message>
    <message>
        <source>Choose a plan and its options first: go back to those steps.</source>
        <translation>請先選擇方案及其選項：返回前面的步驟。</translation>
    </message>
    <message>
        <source>Creating %1 with TensorFlow %2.</source>
        <translation>正在建立 %1，使用 TensorFlow %2。</translation>
    </message>
    <message>
        <source>Stopping… the install undoes what it did so far.</source>
        <translation>正在停止……安裝程式會復原目前為止所做的操作。</translation>
    </message>
    <message>
        <source>This environment was already complete; nothing needed to change.</source>
        <translation>此環境已經是完整的，無需任何更改。</translation>
    </message>
    <message>
        <source>The environment is ready. Next checks that TensorFlow works in it.</source>
        <translation>環境已就緒。下一步將檢查 TensorFlow 能否在其中正常工作。</translation>
    </message>
    <message>
        <source>The install was stopped. Nothing was left behind; an environment that was there before is unchanged. Try again starts over.</source>
        <translation>安裝已停止。沒有留下任何檔案；之前已有的環境保持不變。點選「重試」會從頭開始。</translation>
    </message>
    <message>
        <source>Installing</source>
        <translation>正在安裝</translation>
    </message>
    <message>
        <source>tfsetup builds the environment in a separate folder and moves it into place only when everything worked.</source>
        <translation>tfsetup 會在一個單獨的資料夾中建置環境，只有在一切順利完成後才會把它移到目標位置。</translation>
    </message>
    <message>
        <source>Install steps</source>
        <translation>安裝步驟</translation>
    </message>
    <message>
        <source>Install log</source>
        <translation>安裝日誌</translation>
    </message>
    <message>
        <source>&amp;Stop install</source>
        <translation>停止安裝(&amp;S)</translation>
    </message>
    <message>
        <source>Stops the install and removes what it made so far.</source>
        <translation>停止安裝，並刪除目前已建立的內容。</translation>
    </message>
    <message>
        <source>&amp;Try again</source>
        <translation>重試(&amp;T)</translation>
    </message>
    <message>
        <source>Install progress</source>
        <translation>安裝進度</translation>
    </message>
    <message>
        <source>Now: %1…</source>
        <translation>正在進行：%1…</translation>
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
        <translation>失敗項</translation>
    </message>
    <message>
        <source>The log file: %1</source>
        <translation>記錄檔：%1</translation>
    </message>
    <message>
        <source>Installing. This takes a few minutes; Details shows pip&apos;s output as it comes.</source>
        <translation>正在安裝。這需要幾分鐘；「詳細資訊」會實時顯示 pip 的輸出。</translation>
    </message>
    <message>
        <source>&amp;Details</source>
        <translation>詳細資訊(&amp;D)</translation>
    </message>
    <message>
        <source>Shows what the install and pip printed.</source>
        <translation>顯示安裝程式和 pip 的輸出內容。</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>狀態</translation>
    </message>
    <message>
        <source>Install</source>
        <translation>安裝</translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::LabProfilePage</name>
    <message>
        <source>Lab profiles (*.json)</source>
        <translation>實驗室設定檔 (*.json)</translation>
    </message>
    <message>
        <source>Save the lab profile</source>
        <translation>儲存實驗室設定檔</translation>
    </message>
    <message>
        <source>Open a lab profile</source>
        <translation>開啟實驗室設定檔</translation>
    </message>
    <message>
        <source>Folder for the offline bundle</source>
        <translation>離線包所在資料夾</translation>
    </message>
    <message>
        <source>Lab profile</source>
        <translation>實驗室設定檔</translation>
    </message>
    <message>
        <source>Install exactly what your lab prepared, the same on every machine.</source>
        <translation>完全按照實驗室準備的內容安裝，每台電腦都一樣。</translation>
    </message>
    <message>
        <source>Open the profile your lab gave you: a file, or its address on the lab&apos;s server (http:// or https://).</source>
        <translation>開啟實驗室給你的設定檔：可以是一個檔案，也可以是它在實驗室伺服器上的網址（http:// 或 https://）。</translation>
    </message>
    <message>
        <source>lab.json or https://lab.example.edu/tfsetup/lab.json</source>
        <translation>lab.json 或 https://lab.example.edu/tfsetup/lab.json</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>瀏覽…</translation>
    </message>
    <message>
        <source>&amp;Open</source>
        <translation>開啟(&amp;O)</translation>
    </message>
    <message>
        <source>Install now without further questions</source>
        <translation>立即安裝，不再詢問</translation>
    </message>
    <message>
        <source>For the lab&apos;s administrator: save the choices made in this wizard as a profile, or write an offline bundle of the files for machines without internet.</source>
        <translation>供實驗室管理員使用：將在此精靈中所做的選擇儲存為設定檔，或為沒有網路的電腦生成包含所需檔案的離線包。</translation>
    </message>
    <message>
        <source>Prepare a profile…</source>
        <translation>準備設定檔…</translation>
    </message>
    <message>
        <source>Prepare an offline bundle…</source>
        <translation>準備離線包…</translation>
    </message>
    <message>
        <source>Choose a plan in a new setup first.</source>
        <translation>請先在新的安裝流程中選擇方案。</translation>
    </message>
    <message>
        <source>Choose a plan and its options in a new setup first.</source>
        <translation>請先在新的安裝流程中選擇方案及其選項。</translation>
    </message>
    <message>
        <source>Downloading the profile…</source>
        <translation>正在下載設定檔……</translation>
    </message>
    <message>
        <source>The profile could not be downloaded from %1. Check the address with your lab, or open the file instead.</source>
        <translation>無法從 %1 下載設定檔。請向實驗室核實網址，或改為直接開啟檔案。</translation>
    </message>
    <message>
        <source>%1 is not a lab profile (it is not JSON). Check the address with your lab.</source>
        <translation>%1 不是實驗室設定檔（它不是 JSON 格式）。請向實驗室核實網址。</translation>
    </message>
    <message>
        <source>Check what the profile will do, then press Next.</source>
        <translation>請檢視該設定檔將執行的操作，然後點選「下一步」。</translation>
    </message>
    <message>
        <source>TensorFlow&apos;s own CUDA packages or the processor</source>
        <translation>TensorFlow 自帶的 CUDA 套件或處理器</translation>
    </message>
    <message>
        <source>CUDA %1, cuDNN %2</source>
        <translation>CUDA %1，cuDNN %2</translation>
    </message>
    <message>
        <source>Profile</source>
        <translation>設定檔</translation>
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
        <translation>資料夾</translation>
    </message>
    <message>
        <source>Mirrors</source>
        <translation>鏡像站</translation>
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
        <translation>Jupyter 核心</translation>
    </message>
    <message>
        <source>not registered</source>
        <translation>未註冊</translation>
    </message>
    <message>
        <source>Packages</source>
        <translation>套件</translation>
    </message>
    <message>
        <source>pinned by the lab&apos;s hash lock %1</source>
        <translation>已由實驗室的雜湊鎖定檔案 %1 固定</translation>
    </message>
    <message>
        <source>The environment was already installed as the profile says.</source>
        <translation>該環境已按設定檔的要求安裝好了。</translation>
    </message>
    <message>
        <source>Installed. Next verifies the environment.</source>
        <translation>已安裝。下一步將驗證環境。</translation>
    </message>
    <message>
        <source>TensorFlow %1 for the lab</source>
        <translation>實驗室用 TensorFlow %1</translation>
    </message>
    <message>
        <source>Cannot write %1. Choose a folder that is yours.</source>
        <translation>無法寫入 %1。請選擇一個屬於你自己的資料夾。</translation>
    </message>
    <message>
        <source>Saved the profile as %1. Students open it here, or a script runs &quot;tfsetup install --profile&quot; with it.</source>
        <translation>設定檔已儲存為 %1。學生可以在這裡開啟它，也可以由指令碼用它執行 &quot;tfsetup install --profile&quot;。</translation>
    </message>
    <message>
        <source>Writing the offline bundle…</source>
        <translation>正在生成離線包……</translation>
    </message>
    <message>
        <source>The offline bundle is in %1. Install from it with the Options page&apos;s offline bundle field, or &quot;tfsetup install --offline --from&quot;.</source>
        <translation>離線包位於 %1。可以在「選項」頁的離線包一欄中指定它進行安裝，或者使用 &quot;tfsetup install --offline --from&quot;。</translation>
    </message>
    <message>
        <source>Profile file or address</source>
        <translation>設定檔路徑或網址</translation>
    </message>
    <message>
        <source>Downloading: %1 of %2</source>
        <translation>正在下載：%1 / %2</translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::OptionsPage</name>
    <message>
        <source>Folder for environments</source>
        <translation>環境所在資料夾</translation>
    </message>
    <message>
        <source>Offline bundle folder</source>
        <translation>離線包資料夾</translation>
    </message>
    <message>
        <source>Looking up the official files for this plan…</source>
        <translation>正在查詢此方案的官方檔案……</translation>
    </message>
    <message>
        <source>The folder where tfsetup creates your environment: a private copy of Python with TensorFlow and the NVIDIA libraries it needs. Nothing outside this folder is changed, and deleting the folder removes everything again.</source>
        <translation>tfsetup 建立環境的資料夾：環境是一份私有的 Python 副本，其中包含 TensorFlow 及其所需的 NVIDIA 函式庫。不會更改此資料夾以外的任何內容，刪除該資料夾即可全部移除。</translation>
    </message>
    <message>
        <source>The name of the environment&apos;s folder. Jupyter lists it under this name, so you can keep several environments side by side, for example one per course.</source>
        <translation>環境資料夾的名稱。Jupyter 會以這個名稱列出它，所以你可以同時保留多個環境，例如每門課程一個。</translation>
    </message>
    <message>
        <source>PyPI is where pip downloads Python packages such as TensorFlow. A mirror is a copy of it on a nearer server: in mainland China, Tsinghua (tuna), Alibaba Cloud (aliyun) or USTC are usually much faster. You can also type the address of your lab&apos;s own index.</source>
        <translation>PyPI 是 pip 下載 TensorFlow 等 Python 套件的地方。鏡像站是它在距離更近的伺服器上的副本：在中國大陸，清華（tuna）、阿里雲（aliyun）或中科大（USTC）的鏡像站通常要快得多。你也可以輸入你們實驗室自己的索引網址。</translation>
    </message>
    <message>
        <source>A copy of NVIDIA&apos;s download server, for example one your lab runs, or a folder with the same layout. Leave it empty to download from NVIDIA. Wherever a file comes from, it must match NVIDIA&apos;s published checksum.</source>
        <translation>NVIDIA 下載伺服器的副本，例如你所在實驗室執行的鏡像站，或具有相同目錄結構的資料夾。留空則從 NVIDIA 下載。無論檔案來自哪裡，都必須與 NVIDIA 公布的校驗和一致。</translation>
    </message>
    <message>
        <source>Some campus and company networks reach the internet only through a proxy server. If your browser is set up with one, enter the same address here, like http://proxy.example.edu:3128. Otherwise leave it empty.</source>
        <translation>有些校園網路和公司網路只能透過代理伺服器連上網際網路。如果你的瀏覽器設定了代理伺服器，請在這裡填寫相同的網址，例如 http://proxy.example.edu:3128。否則請留空。</translation>
    </message>
    <message>
        <source>Where downloaded files are kept. They are checked again before use, and a second install does not download them again.</source>
        <translation>下載的檔案儲存在哪裡。使用前會再次校驗，第二次安裝時不會重複下載。</translation>
    </message>
    <message>
        <source>An offline bundle is a folder made with &quot;tfsetup bundle&quot; on a computer with internet. It holds every file one plan needs, so you can install without internet. Leave it empty to download.</source>
        <translation>離線包是在有網路的電腦上用「tfsetup bundle」生成的資料夾。它包含某個方案所需的全部檔案，因此無需網路即可安裝。留空則從網路上下載。</translation>
    </message>
    <message>
        <source>Options</source>
        <translation>選項</translation>
    </message>
    <message>
        <source>Where the environment goes and where files come from. The suggestions work for most students.</source>
        <translation>環境安裝在哪裡，以及檔案從哪裡取得。建議的設定適用於大多數同學。</translation>
    </message>
    <message>
        <source>&amp;PyPI mirror:</source>
        <translation>PyPI 鏡像站(&amp;P)：</translation>
    </message>
    <message>
        <source>N&amp;VIDIA mirror:</source>
        <translation>NVIDIA 鏡像站(&amp;V)：</translation>
    </message>
    <message>
        <source>Pro&amp;xy:</source>
        <translation>代理(&amp;X)：</translation>
    </message>
    <message>
        <source>&amp;Downloads:</source>
        <translation>下載位置(&amp;D)：</translation>
    </message>
    <message>
        <source>What is this?</source>
        <translation>這是什麼？</translation>
    </message>
    <message>
        <source>Bro&amp;wse…</source>
        <translation>瀏覽(&amp;W)…</translation>
    </message>
    <message>
        <source>Brow&amp;se…</source>
        <translation>瀏覽(&amp;S)…</translation>
    </message>
    <message>
        <source>The environment is created in a folder inside this one.</source>
        <translation>環境會建立在此資料夾下的一個子資料夾中。</translation>
    </message>
    <message>
        <source>Letters, digits, dots and dashes; no slashes.</source>
        <translation>字母、數字、點和短橫線；不能包含斜槓。</translation>
    </message>
    <message>
        <source>empty: download from NVIDIA</source>
        <translation>留空：從 NVIDIA 下載</translation>
    </message>
    <message>
        <source>empty: no proxy, or the system&apos;s</source>
        <translation>留空：不使用代理，或使用系統代理</translation>
    </message>
    <message>
        <source>empty: download over the internet</source>
        <translation>留空：透過網際網路下載</translation>
    </message>
    <message>
        <source>PyPI (pypi.org, official)</source>
        <translation>PyPI（pypi.org，官方）</translation>
    </message>
    <message>
        <source>%1 (%2, China)</source>
        <translation>%1（%2，中國）</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>N&amp;ame:</source>
        <translation>名稱(&amp;A)：</translation>
    </message>
    <message>
        <source>Offline b&amp;undle:</source>
        <translation>離線包(&amp;U)：</translation>
    </message>
    <message>
        <source>To download them anyway, tick the box below.</source>
        <translation>如仍要下載它們，請勾選下面的選項。</translation>
    </message>
    <message>
        <source>Download the files without a published checksum anyway, and record their SHA-256 (&amp;trust on first use)</source>
        <translation>仍然下載沒有公布校驗和的檔案，並記錄它們的 SHA-256（首次使用時信任）(&amp;T)</translation>
    </message>
    <message>
        <source>Trust files without a published checksum on first use</source>
        <translation>首次使用時信任沒有公布校驗和的檔案</translation>
    </message>
    <message>
        <source>Nothing can prove these files are the originals: a hostile network or mirror could swap them. Their SHA-256 is recorded, so any later change is caught.</source>
        <translation>沒有任何辦法證明這些檔案是原版：惡意的網路或鏡像站可能會替換它們。它們的 SHA-256 會被記錄下來，之後的任何改動都會被發現。</translation>
    </message>
    <message>
        <source>Install &amp;Jupyter: JupyterLab, to work in notebooks</source>
        <translation>安裝 &amp;Jupyter：JupyterLab，用於在筆記本中工作</translation>
    </message>
    <message>
        <source>Install JupyterLab</source>
        <translation>安裝 JupyterLab</translation>
    </message>
    <message>
        <source>Every environment gets a Jupyter kernel. This adds JupyterLab, which start-jupyter and the Finish page open.</source>
        <translation>每個環境都會有一個 Jupyter 核心。此選項還會安裝 JupyterLab，「start-jupyter」和「完成」頁會開啟它。</translation>
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
        <translation>使用離線包(&amp;L)…</translation>
    </message>
    <message>
        <source>Testing the connection to PyPI, NVIDIA and python.org…</source>
        <translation>正在測試到 PyPI、NVIDIA 和 python.org 的連線…</translation>
    </message>
    <message>
        <source>The same for %1.</source>
        <translation>%1 同上。</translation>
    </message>
    <message>
        <source>Everything this setup downloads from answered.</source>
        <translation>這次安裝要用到的所有下載來源都已回應。</translation>
    </message>
    <message>
        <source>Use the fastest &amp;mirror: %1</source>
        <translation>使用最快的鏡像站(&amp;M)：%1</translation>
    </message>
    <message>
        <source>PyPI itself answered fastest from here (%1), so it stays chosen.</source>
        <translation>從這裡看 PyPI 本身回應最快（%1），所以仍然選擇它。</translation>
    </message>
    <message>
        <source>PyPI did not answer well from here, so %1 was chosen: the fastest PyPI mirror measured (%2). You can choose another above.</source>
        <translation>從這裡訪問 PyPI 效果不好，所以選擇了 %1：測得最快的 PyPI 鏡像站（%2）。你可以在上面選擇其他鏡像站。</translation>
    </message>
    <message>
        <source>%1 was chosen: the fastest PyPI mirror measured from here (%2). You can choose another above.</source>
        <translation>選擇了 %1：從這裡測得最快的 PyPI 鏡像站（%2）。你可以在上面選擇其他鏡像站。</translation>
    </message>
    <message>
        <source>The connection test could not reach %1, and this setup downloads from there: the downloads would fail the same way. Fix it with the button, or test again. To go on anyway, press Next once more.</source>
        <translation>連線測試無法訪問 %1，而本次安裝需要從那裡下載：下載也會以同樣的方式失敗。請用按鈕解決，或再次測試。如果仍要繼續，請再按一次「下一步」。</translation>
    </message>
    <message>
        <source>Set a p&amp;roxy…</source>
        <translation>設定代理(&amp;R)…</translation>
    </message>
    <message>
        <source>Find out wh&amp;y</source>
        <translation>查明原因(&amp;Y)</translation>
    </message>
    <message>
        <source>Open the &amp;log</source>
        <translation>開啟日誌(&amp;L)</translation>
    </message>
    <message>
        <source>Choose a &amp;mirror…</source>
        <translation>選擇鏡像站(&amp;M)…</translation>
    </message>
    <message>
        <source>F&amp;older:</source>
        <translation>資料夾(&amp;O)：</translation>
    </message>
    <message>
        <source>No PyPI mirror answered from here (%1). Test the connection to see why, or set a proxy.</source>
        <translation>從這裡無法連線到任何 PyPI 鏡像站（%1）。請測試連線以查明原因，或設定代理。</translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::PageStatus</name>
    <message>
        <source>D&amp;etails</source>
        <translation>詳細資訊(&amp;E)</translation>
    </message>
    <message>
        <source>What the program reported, word for word, for whoever helps you.</source>
        <translation>程式報告的原始內容，供幫助你的人檢視。</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>詳細資訊</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>狀態</translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::RepairPage</name>
    <message>
        <source>Choose the environment&apos;s folder</source>
        <translation>選擇環境所在的資料夾</translation>
    </message>
    <message>
        <source>Repair an environment</source>
        <translation>修復環境</translation>
    </message>
    <message>
        <source>tfsetup checks every file it installed and puts back what is missing, damaged or moved.</source>
        <translation>tfsetup 會檢查它安裝的每個檔案，並恢復缺失、損壞或被移動的檔案。</translation>
    </message>
    <message>
        <source>Add a folder…</source>
        <translation>新增資料夾…</translation>
    </message>
    <message>
        <source>My TensorFlow is broken: here is the error it printed</source>
        <translation>我的 TensorFlow 出問題了：這是它輸出的錯誤訊息</translation>
    </message>
    <message>
        <source>Paste the error or the whole output of the failing program here.</source>
        <translation>請在此處貼上錯誤訊息，或出錯程式的完整輸出。</translation>
    </message>
    <message>
        <source>&amp;Check</source>
        <translation>檢查(&amp;C)</translation>
    </message>
    <message>
        <source>%1 — TensorFlow %2</source>
        <translation>%1 — TensorFlow %2</translation>
    </message>
    <message>
        <source>Checking every file of the environment…</source>
        <translation>正在檢查環境中的每個檔案……</translation>
    </message>
    <message>
        <source>Repairing…</source>
        <translation>正在修復……</translation>
    </message>
    <message>
        <source>missing</source>
        <translation>缺失</translation>
    </message>
    <message>
        <source>changed since the install</source>
        <translation>安裝後已被改動</translation>
    </message>
    <message>
        <source>moved to %1</source>
        <translation>已被移到 %1</translation>
    </message>
    <message>
        <source>move it back</source>
        <translation>移回原處</translation>
    </message>
    <message>
        <source>take it again from %1</source>
        <translation>從 %1 重新取得</translation>
    </message>
    <message>
        <source>write it again</source>
        <translation>重新寫入</translation>
    </message>
    <message>
        <source>link it again</source>
        <translation>重新連結</translation>
    </message>
    <message>
        <source>Outside the environment</source>
        <translation>環境之外</translation>
    </message>
    <message>
        <source>Repaired. Next verifies that TensorFlow works again.</source>
        <translation>已修復。下一步將驗證 TensorFlow 能否重新正常工作。</translation>
    </message>
    <message>
        <source>Every installed file is in place and unchanged. Next verifies the environment.</source>
        <translation>每個已安裝的檔案都在原位且未被改動。下一步將驗證環境。</translation>
    </message>
    <message>
        <source>Save the diagnostic report</source>
        <translation>儲存診斷報告</translation>
    </message>
    <message>
        <source>Text files (*.txt)</source>
        <translation>文字檔案 (*.txt)</translation>
    </message>
    <message>
        <source>Save a &amp;report…</source>
        <translation>儲存報告(&amp;R)…</translation>
    </message>
    <message>
        <source>Writes what tfsetup found into a text file you can paste into a chat or a forum post. Your user name and home folder are masked.</source>
        <translation>把 tfsetup 發現的情況寫進一個文字檔案，方便你貼上到聊天或論壇貼文裡。你的使用者名稱和主資料夾會被隱去。</translation>
    </message>
    <message>
        <source>Writing the report…</source>
        <translation>正在寫入報告……</translation>
    </message>
    <message>
        <source>The report could not be made: tfsetup&apos;s catalog did not load. Reinstall tfsetup.</source>
        <translation>無法生成報告：tfsetup 的知識庫沒有載入成功。請重新安裝 tfsetup。</translation>
    </message>
    <message>
        <source>The report is in %1. Your user name and home folder are masked; read it before you share it.</source>
        <translation>報告已儲存到 %1。其中你的使用者名稱和主資料夾已被隱去；分享之前請先讀一遍。</translation>
    </message>
    <message>
        <source>What the check found</source>
        <translation>檢查發現的問題</translation>
    </message>
    <message>
        <source>Environments</source>
        <translation>環境</translation>
    </message>
    <message>
        <source>The error TensorFlow printed</source>
        <translation>TensorFlow 輸出的錯誤</translation>
    </message>
    <message>
        <source>Choose the environment that stopped working, or add its folder (a conda or venv one is examined but not repaired). With none chosen, Check reads the error you paste.</source>
        <translation>請選擇出問題的環境，或新增它所在的資料夾（conda 或 venv 資料夾只會被檢查，不會被修復）。如果沒有選擇環境，「檢查」會讀取你貼上的錯誤訊息。</translation>
    </message>
    <message>
        <source>%1 — not made by tfsetup: examined, not repaired</source>
        <translation>%1 —— 不是 tfsetup 建立的：只檢查，不修復</translation>
    </message>
    <message>
        <source>No environment made by tfsetup was found. Add the folder that holds yours, or paste the error TensorFlow printed and press Check.</source>
        <translation>沒有找到由 tfsetup 建立的環境。請新增你的環境所在的資料夾，或者貼上 TensorFlow 輸出的錯誤訊息並點選「檢查」。</translation>
    </message>
    <message>
        <source>Reading the error you pasted…</source>
        <translation>正在讀取你貼上的錯誤訊息…</translation>
    </message>
    <message>
        <source>Examining the environment…</source>
        <translation>正在檢查該環境…</translation>
    </message>
    <message>
        <source>tfsetup did not make this environment, so it only examines it: it repairs only environments it installed itself, whose record of every file (environment.json) proves what belongs there.</source>
        <translation>這個環境不是 tfsetup 建立的，因此只做檢查：tfsetup 只修復它自己安裝的環境，這些環境中記錄了每個檔案的 environment.json 可以證明哪些檔案屬於那裡。</translation>
    </message>
    <message>
        <source>Nothing wrong was found.</source>
        <translation>沒有發現問題。</translation>
    </message>
    <message>
        <source>The findings below say what to do.</source>
        <translation>下面的診斷結果說明了該怎麼做。</translation>
    </message>
    <message>
        <source>Nothing in the pasted error points to a known cause. Save a report and ask for help with it.</source>
        <translation>貼上的錯誤訊息中沒有指向任何已知原因的內容。請儲存一份報告並拿它去尋求幫助。</translation>
    </message>
    <message>
        <source>The findings below come from the error you pasted. Choose the environment as well to check its files.</source>
        <translation>下面的診斷結果來自你貼上的錯誤訊息。請同時選擇環境，以檢查其中的檔案。</translation>
    </message>
    <message>
        <source>Every installed file is in place. The findings below say what else to do.</source>
        <translation>所有已安裝的檔案都在原位。下面的診斷結果說明了還需要做什麼。</translation>
    </message>
    <message>
        <source>&amp;Where the error comes from:</source>
        <translation>錯誤來自(&amp;W)：</translation>
    </message>
    <message>
        <source>I am not sure (tfsetup tells from the error)</source>
        <translation>我不確定（由 tfsetup 根據錯誤判斷）</translation>
    </message>
    <message>
        <source>This computer</source>
        <translation>這台電腦</translation>
    </message>
    <message>
        <source>Another computer (a classmate&apos;s, a lab machine)</source>
        <translation>另一台電腦（同學的、實驗室的機器）</translation>
    </message>
    <message>
        <source>An error from another computer is read as that computer&apos;s: what this computer has or lacks (a GPU, CUDA) does not change what the error means.</source>
        <translation>來自另一台電腦的錯誤會按那台電腦來讀：這台電腦有沒有 GPU、CUDA 不會改變錯誤的含義。</translation>
    </message>
    <message>
        <source>reinstall it from the package index</source>
        <translation>從套件索引重新安裝它</translation>
    </message>
    <message>
        <source>reinstall it from %1</source>
        <translation>從 %1 重新安裝它</translation>
    </message>
    <message>
        <source>%1 changed since pip installed it</source>
        <translation>%1 在 pip 安裝後被修改過</translation>
    </message>
    <message>
        <source>%1 is missing</source>
        <translation>%1 丟失</translation>
    </message>
    <message>
        <source>the package&apos;s record names %1, outside the environment; it was not read</source>
        <translation>該包的記錄指向環境之外的 %1；未讀取它</translation>
    </message>
    <message>
        <source>Re&amp;pair</source>
        <translation>修復(&amp;P)</translation>
    </message>
    <message>
        <source>Details of the repair</source>
        <translation>修復的詳細資訊</translation>
    </message>
    <message>
        <source>Choose &amp;again…</source>
        <translation>重新選擇(&amp;A)…</translation>
    </message>
    <message>
        <source>Choose another environment, or paste another error.</source>
        <translation>選擇其他環境，或貼上其他錯誤訊息。</translation>
    </message>
    <message>
        <source>Checked: the error you pasted.</source>
        <translation>已檢查：你貼上的錯誤訊息。</translation>
    </message>
    <message>
        <source>Checked: %1.</source>
        <translation>已檢查：%1。</translation>
    </message>
    <message>
        <source>Checked: %1, with the error you pasted.</source>
        <translation>已檢查：%1，以及你貼上的錯誤訊息。</translation>
    </message>
    <message>
        <source>Installed files damaged, missing or moved: %1</source>
        <translation>已損壞、缺失或被移動的已安裝檔案：%1</translation>
    </message>
    <message>
        <source>Repair puts each one back as it was installed.</source>
        <translation>「修復」會將每個檔案恢復為安裝時的狀態。</translation>
    </message>
    <message>
        <source>Repair puts back what it can; %1 of them it cannot (the details say why).</source>
        <translation>「修復」會盡可能恢復這些檔案；其中 %1 個無法恢復（詳細資訊中說明了原因）。</translation>
    </message>
    <message>
        <source>Installed files put back: %1</source>
        <translation>已恢復的已安裝檔案：%1</translation>
    </message>
    <message>
        <source>Repair these files</source>
        <translation>修復這些檔案</translation>
    </message>
    <message>
        <source>Damaged Python packages: %1</source>
        <translation>已損壞的 Python 套件：%1</translation>
    </message>
    <message>
        <source>%1. Repair reinstalls each one from a copy that matches what pip installed.</source>
        <translation>%1。「修復」會用與 pip 所安裝版本一致的副本重新安裝每個套件。</translation>
    </message>
    <message>
        <source>Python packages reinstalled: %1</source>
        <translation>已重新安裝的 Python 套件：%1</translation>
    </message>
    <message>
        <source>Reinstall these packages</source>
        <translation>重新安裝這些套件</translation>
    </message>
    <message>
        <source>Repair does this: %1</source>
        <translation>「修復」將執行：%1</translation>
    </message>
    <message>
        <source>Repair this</source>
        <translation>修復此問題</translation>
    </message>
    <message>
        <source>What to do: %1</source>
        <translation>處理方法：%1</translation>
    </message>
    <message>
        <source>Files that could not be repaired: %1</source>
        <translation>無法修復的檔案：%1</translation>
    </message>
    <message>
        <source>Install the environment again, or save a report and ask for help with it.</source>
        <translation>請重新安裝環境，或儲存一份報告並附上它尋求幫助。</translation>
    </message>
    <message>
        <source>Some files could not be repaired; the list below names them.</source>
        <translation>有些檔案無法修復；下面的清單列出了這些檔案。</translation>
    </message>
    <message>
        <source>Press Repair to put right what is listed. Only these files change.</source>
        <translation>按「修復」以修正所列問題。只有這些檔案會被更改。</translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::SetupWizard</name>
    <message>
        <source>TensorFlow GPU setup</source>
        <translation>TensorFlow GPU 安裝精靈</translation>
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
        <translation>安裝(&amp;I)</translation>
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
        <translation>說明(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Close tfsetup</source>
        <translation>關閉 tfsetup(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Keep working</source>
        <translation>繼續工作(&amp;K)</translation>
    </message>
    <message>
        <source>The environment is still being built. If you close tfsetup now, the install stops and removes what it made so far; an environment that was there before stays as it was.</source>
        <translation>環境仍在建置中。如果現在關閉 tfsetup，安裝會停止並刪除到目前為止所建立的內容；原先已有的環境會保持原樣。</translation>
    </message>
    <message>
        <source>Files are still downloading. If you close tfsetup now, what arrived is kept and the next start offers to continue.</source>
        <translation>檔案仍在下載中。如果現在關閉 tfsetup，已下載的部分會保留，下次啟動時會提示你繼續。</translation>
    </message>
    <message>
        <source>Close tfsetup?</source>
        <translation>要關閉 tfsetup 嗎？</translation>
    </message>
    <message>
        <source>Welcome</source>
        <comment>step</comment>
        <translation>歡迎</translation>
    </message>
    <message>
        <source>Detect</source>
        <comment>step</comment>
        <translation>偵測</translation>
    </message>
    <message>
        <source>Choose</source>
        <comment>step</comment>
        <translation>選擇</translation>
    </message>
    <message>
        <source>Options</source>
        <comment>step</comment>
        <translation>選項</translation>
    </message>
    <message>
        <source>Download</source>
        <comment>step</comment>
        <translation>下載</translation>
    </message>
    <message>
        <source>Install</source>
        <comment>step</comment>
        <translation>安裝</translation>
    </message>
    <message>
        <source>Verify</source>
        <comment>step</comment>
        <translation>驗證</translation>
    </message>
    <message>
        <source>Finish</source>
        <comment>step</comment>
        <translation>完成</translation>
    </message>
    <message>
        <source>Repair</source>
        <comment>step</comment>
        <translation>修復</translation>
    </message>
    <message>
        <source>Lab profile</source>
        <comment>step</comment>
        <translation>實驗室配置</translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::StatusList</name>
    <message>
        <source>Details</source>
        <translation>詳細資訊</translation>
    </message>
    <message>
        <source>What the computer reported, word for word: for a help request.</source>
        <translation>電腦報告的原始內容：可用於求助。</translation>
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
        <translation>%1（目前位置）</translation>
    </message>
    <message>
        <source>Setup steps</source>
        <translation>安裝步驟</translation>
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
        <translation>升級 %1</translation>
    </message>
    <message>
        <source>&amp;Upgrade</source>
        <translation>升級(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Cancel</source>
        <translation>取消(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Close</source>
        <translation>關閉(&amp;C)</translation>
    </message>
    <message>
        <source>Looking for a newer TensorFlow for %1…</source>
        <translation>正在為 %1 查詢更新的 TensorFlow…</translation>
    </message>
    <message>
        <source>The environment is as it was before the upgrade.</source>
        <translation>環境保持升級前的樣子。</translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::VerifyPage</name>
    <message>
        <source>There is no environment to check yet: go back to the install step.</source>
        <translation>還沒有可供檢查的環境：請返回安裝步驟。</translation>
    </message>
    <message>
        <source>Checking the environment: loading the libraries, importing TensorFlow and computing with it. The first start on a new graphics card can take several minutes.</source>
        <translation>正在檢查環境：載入函式庫、匯入 TensorFlow 並用它進行計算。在新顯示卡上首次啟動可能需要幾分鐘。</translation>
    </message>
    <message>
        <source>TensorFlow works in the new environment.</source>
        <translation>TensorFlow 在新環境中工作正常。</translation>
    </message>
    <message>
        <source>Checking</source>
        <translation>正在檢查</translation>
    </message>
    <message>
        <source>tfsetup starts the new environment the way you will and checks each layer, from the libraries to a computation on the graphics card.</source>
        <translation>tfsetup 會按照你今後使用的方式啟動新環境，並逐層檢查，從各個函式庫一直到在顯示卡上進行計算。</translation>
    </message>
    <message>
        <source>Check results</source>
        <translation>檢查結果</translation>
    </message>
    <message>
        <source>Check &amp;again</source>
        <translation>重新檢查(&amp;A)</translation>
    </message>
    <message>
        <source>Checking the environment: importing TensorFlow and computing with it on the processor.</source>
        <translation>正在檢查環境：匯入 TensorFlow 並在處理器上用它進行計算。</translation>
    </message>
    <message>
        <source>tfsetup starts the environment the way you will and checks each layer, up to a real computation.</source>
        <translation>tfsetup 會按照你以後使用的方式啟動該環境，並逐層檢查，直到完成一次真正的計算。</translation>
    </message>
    <message>
        <source>tfsetup starts the new environment the way you will and checks that TensorFlow imports and computes on the processor, as this plan intends.</source>
        <translation>tfsetup 會按照你以後使用的方式啟動新環境，並檢查 TensorFlow 能否匯入並在處理器上計算，這正是此方案的預期。</translation>
    </message>
    <message>
        <source>TensorFlow is not installed in this environment.</source>
        <translation>此環境中未安裝 TensorFlow。</translation>
    </message>
    <message>
        <source>The check did not finish in time. The first start on a new graphics card can take many minutes: press Check again.</source>
        <translation>檢查未能及時完成。在新顯示卡上首次啟動可能需要很多分鐘：請按「再次檢查」。</translation>
    </message>
    <message>
        <source>This processor lacks an instruction set (AVX) that TensorFlow needs.</source>
        <translation>此處理器缺少 TensorFlow 所需的指令集（AVX）。</translation>
    </message>
    <message>
        <source>The NumPy in this environment does not fit this TensorFlow.</source>
        <translation>此環境中的 NumPy 與此 TensorFlow 版本不相容。</translation>
    </message>
    <message>
        <source>Windows could not load a library TensorFlow needs; the Microsoft Visual C++ Redistributable (x64) is probably missing.</source>
        <translation>Windows 無法載入 TensorFlow 所需的某個函式庫；可能缺少 Microsoft Visual C++ Redistributable (x64)。</translation>
    </message>
    <message>
        <source>cuDNN, which TensorFlow needs for the graphics card, is missing.</source>
        <translation>缺少 TensorFlow 使用顯示卡所需的 cuDNN。</translation>
    </message>
    <message>
        <source>A CUDA library TensorFlow needs for the graphics card is missing.</source>
        <translation>缺少 TensorFlow 使用顯示卡所需的某個 CUDA 函式庫。</translation>
    </message>
    <message>
        <source>TensorFlow finds no graphics card: the NVIDIA driver is missing or not working.</source>
        <translation>TensorFlow 找不到顯示卡：NVIDIA 驅動程式缺失或無法正常工作。</translation>
    </message>
    <message>
        <source>A library TensorFlow needs for the graphics card does not load.</source>
        <translation>TensorFlow 使用顯示卡所需的某個函式庫無法載入。</translation>
    </message>
    <message>
        <source>TensorFlow could not be imported.</source>
        <translation>無法匯入 TensorFlow。</translation>
    </message>
    <message>
        <source>TensorFlow does not see the graphics card.</source>
        <translation>TensorFlow 偵測不到顯示卡。</translation>
    </message>
    <message>
        <source>TensorFlow could not list its devices.</source>
        <translation>TensorFlow 無法列出其裝置。</translation>
    </message>
    <message>
        <source>cuDNN does not work: a test convolution failed.</source>
        <translation>cuDNN 無法工作：測試卷積運算失敗。</translation>
    </message>
    <message>
        <source>A test computation failed.</source>
        <translation>測試計算失敗。</translation>
    </message>
    <message>
        <source>This check failed.</source>
        <translation>此項檢查未透過。</translation>
    </message>
    <message>
        <source>Passed.</source>
        <translation>透過。</translation>
    </message>
    <message>
        <source>Not everything could be checked; the details say why.</source>
        <translation>並非所有項目都能檢查；詳細資訊中說明了原因。</translation>
    </message>
    <message>
        <source>Not checked, because an earlier check failed.</source>
        <translation>未檢查，因為之前的檢查未透過。</translation>
    </message>
    <message>
        <source>TensorFlow works in the new environment. Read the rows marked with a warning.</source>
        <translation>TensorFlow 在新環境中可以正常工作。請閱讀標有警告的行。</translation>
    </message>
    <message>
        <source>The environment does not work yet: %1 Press Next; the last page offers to repair it.</source>
        <translation>環境還不能正常工作：%1請按「下一步」；最後一頁會提供修復選項。</translation>
    </message>
    <message>
        <source>The environment does not work yet. Press Next; the last page offers to repair it.</source>
        <translation>環境還不能正常工作。請按「下一步」；最後一頁會提供修復選項。</translation>
    </message>
</context>
<context>
    <name>tfsetup::ui::WelcomePage</name>
    <message>
        <source>Welcome</source>
        <translation>歡迎</translation>
    </message>
    <message>
        <source>This wizard sets up TensorFlow with GPU support on this computer. It checks your hardware, picks versions that work together, downloads them from the official sites and tests the result.</source>
        <translation>本精靈會在這台電腦上安裝支援 GPU 的 TensorFlow。它會檢查你的硬體，挑選能夠相互配合的版本，從官方網站下載，並測試安裝結果。</translation>
    </message>
    <message>
        <source>&amp;Set up a new TensorFlow environment</source>
        <translation>設定新的 TensorFlow 環境(&amp;S)</translation>
    </message>
    <message>
        <source>Choose this if you have not installed TensorFlow with tfsetup yet.</source>
        <translation>如果你還沒有用 tfsetup 安裝過 TensorFlow，請選擇此項。</translation>
    </message>
    <message>
        <source>&amp;Repair an existing environment</source>
        <translation>修復現有環境(&amp;R)</translation>
    </message>
    <message>
        <source>Choose this if TensorFlow is installed but does not find the GPU or fails to start.</source>
        <translation>如果 TensorFlow 已經安裝，但找不到 GPU 或無法啟動，請選擇此項。</translation>
    </message>
    <message>
        <source>Use a lab &amp;profile</source>
        <translation>使用實驗室設定檔(&amp;P)</translation>
    </message>
    <message>
        <source>Choose this if your course or lab gave you a profile file that fixes the versions to install.</source>
        <translation>如果你的課程或實驗室給了你一個指定了安裝版本的設定檔，請選擇此項。</translation>
    </message>
    <message>
        <source>&amp;Language:</source>
        <translation>語言(&amp;L)：</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>語言</translation>
    </message>
    <message>
        <source>TensorFlow with GPU support, set up for you.</source>
        <translation>為你安裝好支援 GPU 的 TensorFlow。</translation>
    </message>
    <message>
        <source>&amp;Continue the setup of %1 (downloaded %2 of %3)</source>
        <translation>繼續安裝 %1（已下載 %2 / %3）(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Continue the setup of %1</source>
        <translation>繼續安裝 %1(&amp;C)</translation>
    </message>
    <message>
        <source>tfsetup was closed before this setup finished. It continues where it stopped; files already downloaded are not downloaded again.</source>
        <translation>tfsetup 在這次安裝完成前被關閉了。它會從停下的地方繼續；已下載的檔案不會重新下載。</translation>
    </message>
    <message>
        <source>Start &amp;over</source>
        <translation>重新開始(&amp;O)</translation>
    </message>
    <message>
        <source>Forget the unfinished setup and start a new one. Downloaded files are kept.</source>
        <translation>放棄未完成的安裝，開始新的安裝。已下載的檔案會保留。</translation>
    </message>
    <message>
        <source>Start over</source>
        <translation>重新開始</translation>
    </message>
    <message>
        <source>Your &amp;environments</source>
        <translation>你的環境(&amp;E)</translation>
    </message>
    <message>
        <source>Environment</source>
        <translation>環境</translation>
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
        <translation>磁碟佔用</translation>
    </message>
    <message>
        <source>Last verify</source>
        <translation>最近一次驗證</translation>
    </message>
    <message>
        <source>Your environments</source>
        <translation>你的環境</translation>
    </message>
    <message>
        <source>Open s&amp;hell</source>
        <translation>開啟終端機(&amp;H)</translation>
    </message>
    <message>
        <source>Open a terminal with this environment&apos;s Python and libraries first on the path.</source>
        <translation>開啟一個終端機，讓此環境的 Python 和函式庫在路徑中排在最前。</translation>
    </message>
    <message>
        <source>Open &amp;Jupyter</source>
        <translation>開啟 Jupyter(&amp;J)</translation>
    </message>
    <message>
        <source>Start Jupyter in this environment.</source>
        <translation>在此環境中啟動 Jupyter。</translation>
    </message>
    <message>
        <source>&amp;Verify</source>
        <translation>驗證(&amp;V)</translation>
    </message>
    <message>
        <source>Check again that TensorFlow in this environment loads its libraries and uses the GPU.</source>
        <translation>再次檢查此環境中的 TensorFlow 能否載入它的函式庫並使用 GPU。</translation>
    </message>
    <message>
        <source>Find what is wrong with this environment and restore what is missing or altered.</source>
        <translation>找出此環境的問題，並恢復丟失或被更改的內容。</translation>
    </message>
    <message>
        <source>&amp;Upgrade</source>
        <translation>升級(&amp;U)</translation>
    </message>
    <message>
        <source>Remove this environment, its launchers, Jupyter kernel and menu entry. Files of yours in its folder are kept.</source>
        <translation>刪除此環境及其啟動指令碼、Jupyter 核心和選單項目。該資料夾中你自己的檔案會保留。</translation>
    </message>
    <message>
        <source>Free &amp;disk space</source>
        <translation>釋放磁碟空間(&amp;D)</translation>
    </message>
    <message>
        <source>Remove downloads no environment needs any more (unused for 90 days) and old logs.</source>
        <translation>刪除沒有任何環境再需要的下載檔案（90 天未使用）和舊日誌。</translation>
    </message>
    <message>
        <source>%1 (%2 fits)</source>
        <translation>%1（%2 可用）</translation>
    </message>
    <message>
        <source>none</source>
        <translation>無</translation>
    </message>
    <message>
        <source>passed, %1</source>
        <translation>透過，%1</translation>
    </message>
    <message>
        <source>failed, %1</source>
        <translation>失敗，%1</translation>
    </message>
    <message>
        <source>not yet</source>
        <translation>尚未驗證</translation>
    </message>
    <message>
        <source>Upgrading in place is not available yet. To move to a newer TensorFlow, set up a new environment, then remove this one.</source>
        <translation>暫不支援原地升級。要換用更新的 TensorFlow，請先建立一個新環境，再刪除這個環境。</translation>
    </message>
    <message>
        <source>No newer TensorFlow fits this computer on this environment&apos;s route.</source>
        <translation>在此環境的路線上，沒有適合本機的更新 TensorFlow。</translation>
    </message>
    <message>
        <source>Upgrade to TensorFlow %1.</source>
        <translation>升級到 TensorFlow %1。</translation>
    </message>
    <message>
        <source>This environment has no such launcher. Repair it to write its launchers again.</source>
        <translation>此環境沒有這個啟動指令碼。請修復它以重新寫入啟動指令碼。</translation>
    </message>
    <message>
        <source>No terminal program was found. Open a terminal yourself and run:
%1</source>
        <translation>沒有找到終端機程式。請自己開啟一個終端機並執行：
%1</translation>
    </message>
    <message>
        <source>%1 could not be started. Open a terminal yourself and run:
%2</source>
        <translation>無法啟動 %1。請自己開啟一個終端機並執行：
%2</translation>
    </message>
    <message>
        <source>Remove %1?</source>
        <translation>刪除 %1？</translation>
    </message>
    <message>
        <source>This removes the environment %1 with its launchers, its Jupyter kernel and its menu entry. Files of yours in that folder are kept. Other environments and downloaded files are not touched.</source>
        <translation>這會刪除環境 %1 及其啟動指令碼、Jupyter 核心和選單項目。該資料夾中你自己的檔案會保留。其他環境和已下載的檔案不受影響。</translation>
    </message>
    <message>
        <source>Removing %1…</source>
        <translation>正在刪除 %1…</translation>
    </message>
    <message>
        <source>Free disk space?</source>
        <translation>釋放磁碟空間？</translation>
    </message>
    <message>
        <source>This removes downloaded files not used for 90 days that no environment needs, and old logs. They are downloaded again when a setup needs them.</source>
        <translation>這會刪除 90 天內未使用且沒有環境需要的下載檔案以及舊日誌。需要時它們會被重新下載。</translation>
    </message>
    <message>
        <source>Rep&amp;air</source>
        <translation>修復(&amp;A)</translation>
    </message>
    <message>
        <source>Re&amp;move</source>
        <translation>刪除(&amp;M)</translation>
    </message>
    <message>
        <source>Upgrade the chosen environment to the newest TensorFlow that fits this computer.</source>
        <translation>將所選環境升級到適合本機的最新 TensorFlow。</translation>
    </message>
</context>
</TS>
