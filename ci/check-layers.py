#!/usr/bin/env python3
"""Checks framework/'s includes against the rooms table of docs/architecture.md.

Each source under framework/src/<room>/ (and framework/include/casebook/,
framework/app/) may include only the rooms its row lists; a folder of
kernels/ counts as the room `kernels`. Prints each include that breaks the
table as file:line and exits 1; exits 0 when none does. Standard library
only: it runs before anything is installed.

  python3 ci/check-layers.py [REPOSITORY_ROOT]
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else
                    pathlib.Path(__file__).resolve().parent.parent)
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"/]+)/')


def read_table():
    """{room: set of rooms it may include}, from the doc's table."""
    rooms = {}
    in_table = False
    doc = ROOT / "docs" / "architecture.md"
    for line in doc.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("| room |"):
            in_table = True
            continue
        if not in_table:
            continue
        if not line.startswith("|"):
            break
        if set(cells[0]) <= set("-"):
            continue  # the separator row
        rooms[cells[0]] = {part.strip() for part in cells[2].split(",")}
    if not rooms:
        sys.exit(f"{doc}: no rooms table (a row starting `| room |`)")
    return rooms


def room_of(path):
    parts = path.relative_to(ROOT / "framework").parts
    if parts[0] == "include":
        return "casebook"
    if parts[0] == "app":
        return "app"
    return parts[1]  # src/<room>/...


def main():
    rooms = read_table()
    kernel_folders = {p.name for p in (ROOT / "kernels").iterdir() if p.is_dir()}
    broken = 0
    sources = sorted(p for p in (ROOT / "framework").rglob("*")
                     if p.suffix in (".h", ".cpp", ".cu", ".hip") and p.is_file())
    for source in sources:
        room = room_of(source)
        if room not in rooms:
            print(f"{source.relative_to(ROOT)}: room `{room}` is not in the table "
                  "of docs/architecture.md")
            broken += 1
            continue
        allowed = rooms[room]
        text = source.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            match = INCLUDE.match(line)
            if not match:
                continue
            target = match.group(1)
            target_room = "kernels" if target in kernel_folders else target
            if target_room not in allowed:
                print(f"{source.relative_to(ROOT)}:{number}: `{room}` may not include "
                      f"`{target}/` (docs/architecture.md: {room} may include "
                      f"{', '.join(sorted(allowed))})")
                broken += 1
    if broken:
        print(f"{broken} include(s) break the rooms table")
        return 1
    print(f"includes of {len(sources)} files keep to the rooms table")
    return 0


if __name__ == "__main__":
    sys.exit(main())
