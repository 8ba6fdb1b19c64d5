#!/usr/bin/env python3
"""Drafts zh_TW translations from finished zh_CN ones.

For every message that tfsetup_zh_TW.ts lacks (unfinished or empty) but tfsetup_zh_CN.ts has
finished, converts the Simplified text with OpenCC's s2twp configuration (Taiwan phrases) and then
with TERMS below: the words this project uses in Taiwan, where s2twp's choice is wrong or too
general here. The drafts stay marked unfinished, so Qt Linguist and the core_translations test show
them for review; --finished marks them done.

Run after `cmake --build build --target update_translations`. Needs the `opencc` command
(Debian: apt-get install opencc); nothing in the build does.

    translations/zh_tw_from_zh_cn.py [--finished]
"""

import argparse
import pathlib
import re
import shutil
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent

# Applied in order, after s2twp, to the converted text (XML-escaped, as lupdate writes it).
TERMS = [
    ('“', '「'), ('”', '」'), ('‘', '『'), ('’', '』'),
    ('許可權', '權限'),
    ('壓縮包', '壓縮檔'),
    ('解壓', '解壓縮'), ('解壓縮縮', '解壓縮'),
    ('映象資料夾', '鏡像資料夾'), ('映象型別', '鏡像站類型'), ('映象', '鏡像站'),  # a mirror site
    ('臺式機或膝上型電腦', '桌上型或筆記型電腦'), ('膝上型電腦', '筆記型電腦'),
    ('計算機', '電腦'), ('臺', '台'),
    ('重啟', '重新啟動'),
    ('獲取', '取得'),
    ('包管理器', '套件管理員'),
    ('可再發行程式包', '可轉散發套件'), ('可再分發', '可轉散發'),
    ('庫', '函式庫'), ('執行函式庫', '執行階段函式庫'), ('推理函式庫', '推論函式庫'),
    ('這塊顯示卡', '這張顯示卡'), ('這塊 GPU', '這個 GPU'),
    ('配置檔案', '設定檔'), ('官方測試配置', '官方測試組態'),
    ('顯示此幫助', '顯示此說明'), ('請求幫助時', '尋求協助時'), ('幫助(&amp;H)', '說明(&amp;H)'),
    ('嚮導', '精靈'),
    ('CA 證書包', 'CA 憑證組合'), ('證書', '憑證'),
    ('當前程序', '目前處理程序'), ('當前', '目前'),
    ('wheel 包', 'wheel 檔案'), ('pip 包', 'pip 套件'), ('Python 包', 'Python 套件'),
    ('CUDA 包', 'CUDA 套件'), ('安裝包', '安裝套件'), ('包名', '套件名稱'), ('軟體包', '套件'),
    ('能用的包或', '能用的套件或'), ('某個包', '某個套件'), ('驅動程式包', '驅動程式套件'),
    ('終端', '終端機'), ('終端機機', '終端機'),
    ('響應', '回應'),
    ('計算能力', '運算能力'),
    ('視訊記憶體', '顯示記憶體'),
    ('運行', '執行'),
    ('構建', '建置'),
    ('釋出', '發布'), ('公佈', '公布'),
    ('檢測', '偵測'),
    ('專案', '項目'),  # an item in a list; tfsetup has no "projects"
    ('模板', '範本'),
    ('臨時資料夾', '暫存資料夾'),
    ('快捷方式', '捷徑'),
    ('高階', '進階'),
    ('批大小', '批次大小'),
    ('校驗透過', '校驗通過'), ('驗證透過', '驗證通過'), ('透過驗證', '通過驗證'),
    ('重復', '重複'), ('重用', '重複使用'),
    ('這隻會', '這只會'),
    ('錯誤資訊', '錯誤訊息'),
    ('地址', '網址'),
    ('不匹配', '不相符'), ('匹配', '相符'),
    ('返回的', '傳回的'),
    ('帖子', '貼文'),
    ('網上', '網路上'),
    ('型別', '類型'),
    ('便攜', '可攜式'), ('固定版本可移植', '固定版本可攜式'),
    ('預置', '內建'),
    ('批處理檔案', '批次檔'),
    ('C: 盤', 'C: 磁碟機'),
    ('聯網', '連網'),
    ('查找', '尋找'),
    ('進位制', '進位'),
    ('退出碼', '結束代碼'), ('退出', '結束'),
    ('列表', '清單'),
    ('網路共享', '網路共用'),
    ('撤銷', '復原'),
    ('校園網和', '校園網路和'),
    ('選單項', '選單項目'),
    ('日誌檔案', '記錄檔'),
]

CONTEXT = re.compile(r'<context>\s*<name>(.*?)</name>(.*?)</context>', re.S)
MESSAGE = re.compile(r'<message(?: numerus="yes")?>.*?</message>', re.S)
TRANSLATION = re.compile(r'([ \t]*)<translation(?: type="(\w+)")?>(.*?)</translation>', re.S)
FORM = re.compile(r'<numerusform>(.*?)</numerusform>', re.S)


def field(block, tag):
    m = re.search(r'<%s>(.*?)</%s>' % (tag, tag), block, re.S)
    return m.group(1) if m else ''


def forms(block):
    """The translation's type and its texts (one, or one per numerus form), as escaped XML."""
    m = TRANSLATION.search(block)
    if not m:
        return 'unfinished', []
    found = FORM.findall(m.group(3))
    return m.group(2) or '', found if '<numerusform>' in m.group(3) else [m.group(3)]


def finished(kind, texts):
    return kind == '' and texts and all(t.strip() for t in texts)


def messages(text):
    for ctx in CONTEXT.finditer(text):
        for msg in MESSAGE.finditer(ctx.group(2)):
            block = msg.group(0)
            yield (ctx.group(1), field(block, 'source'), field(block, 'comment')), block


def convert(texts):
    sep = '\n@@ZHTW@@\n'
    out = subprocess.run(['opencc', '-c', 's2twp.json'], input=sep.join(texts), capture_output=True,
                         text=True, check=True).stdout.split(sep)
    assert len(out) == len(texts)
    result = []
    for t in out:
        for old, new in TERMS:
            t = t.replace(old, new)
        result.append(t)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--finished', action='store_true', help='mark the drafts finished instead of unfinished')
    args = parser.parse_args()
    if not shutil.which('opencc'):
        sys.exit('opencc was not found; install OpenCC (Debian: apt-get install opencc) and run this again')

    cn_path, tw_path = HERE / 'tfsetup_zh_CN.ts', HERE / 'tfsetup_zh_TW.ts'
    simplified = {key: forms(block) for key, block in messages(cn_path.read_text(encoding='utf-8'))}
    tw_text = tw_path.read_text(encoding='utf-8')

    def each_missing(visit):
        """Calls visit(block, Simplified texts) for each zh_TW message to draft; rebuilds the file."""
        def in_context(ctx):
            def in_message(msg):
                block = msg.group(0)
                key = (ctx.group(1), field(block, 'source'), field(block, 'comment'))
                kind, texts = simplified.get(key, ('unfinished', []))
                if finished(*forms(block)) or not finished(kind, texts):
                    return block
                return visit(block, texts)
            return ctx.group(0)[:ctx.start(2) - ctx.start()] + MESSAGE.sub(in_message, ctx.group(2)) \
                + ctx.group(0)[ctx.end(2) - ctx.start():]
        return CONTEXT.sub(in_context, tw_text)

    wanted = []
    each_missing(lambda block, texts: wanted.extend(texts) or block)
    converted = iter(convert(wanted) if wanted else [])
    mark = '' if args.finished else ' type="unfinished"'

    def draft(block, texts):
        ours = [next(converted) for _ in texts]
        m = TRANSLATION.search(block)
        indent = m.group(1) if m else ' ' * 8
        if block.startswith('<message numerus="yes">'):
            inner = ''.join('\n%s    <numerusform>%s</numerusform>' % (indent, t) for t in ours) + '\n' + indent
        else:
            inner = ours[0]
        element = '%s<translation%s>%s</translation>' % (indent, mark, inner)
        if m:
            return block[:m.start()] + element + block[m.end():]
        return block.replace('</message>', element + '\n    </message>')

    drafted = []
    tw_text = each_missing(lambda block, texts: drafted.append(block) or draft(block, texts))
    tw_path.write_text(tw_text, encoding='utf-8')
    state = 'finished' if args.finished else 'unfinished, for review'
    print('%d zh_TW messages drafted from zh_CN (%s)' % (len(drafted), state))


if __name__ == '__main__':
    main()
