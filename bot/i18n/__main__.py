"""``python -m bot.i18n extract``: remake the template from the code and the command tree, and
update every language's catalog from it (see bot/i18n/extract.py)."""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    if argv[:1] != ["extract"]:
        print("usage: python -m bot.i18n extract", file=sys.stderr)
        return 2
    from bot.i18n.extract import update

    for code, missing in update().items():
        print(f"{code}: {missing} texts without a translation")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
