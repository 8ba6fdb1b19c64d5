#!/usr/bin/env python3
"""Lists every text of the doctor's cause registry (resources/catalog/causes.json) in
wizard/core/catalog/causetexts.cpp, so lupdate offers them for translation in the context the
program translates them in. Run it after changing the registry, then update the translations.
With --check it changes nothing and fails when the listed texts differ from the registry's."""
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
REGISTRY = ROOT / "resources/catalog/causes.json"
OUTPUT = ROOT / "wizard/core/catalog/causetexts.cpp"


def texts(registry):
    seen = []
    for cause in registry["causes"]:
        for variant in cause["texts"].values():
            for key in ("summary", "fix"):
                value = variant.get(key)
                if value is None:
                    continue
                text = value if isinstance(value, str) else value["text"]
                if text not in seen:
                    seen.append(text)
    return seen


def literal(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render(registry):
    lines = [
        "// Every text of resources/catalog/causes.json, listed for the translation tools (lupdate",
        "// reads QT_TRANSLATE_NOOP here; the program translates the registry's texts at run time).",
        "// Written by translations/causes_texts.py from the registry: change the registry and run it.",
        "// clang-format off",
        "",
        "#include <QtGlobal>",
        "",
        "namespace {",
        "",
        "[[maybe_unused]] const char *const causeTexts[] = {",
    ]
    for text in texts(registry):
        lines.append('    QT_TRANSLATE_NOOP("tfsetup::core::Doctor", ' + literal(text) + "),")
    lines += ["};", "", "} // namespace", ""]
    return "\n".join(lines)


def main():
    registry = json.loads(REGISTRY.read_text(encoding="utf-8"))
    wanted = render(registry)
    if "--check" in sys.argv[1:]:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        if current != wanted:
            print(f"{OUTPUT.relative_to(ROOT)} does not list the texts of {REGISTRY.relative_to(ROOT)}: "
                  f"run translations/causes_texts.py", file=sys.stderr)
            return 1
        print(f"{len(texts(registry))} texts listed")
        return 0
    OUTPUT.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
