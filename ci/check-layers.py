#!/usr/bin/env python3
"""Checks the repository's includes against the tables of docs/architecture.md.

The rooms table (`| room | answers | may include |`) says which rooms each
room may include; the public headers table (`| public header | room |`) says
which room implements each header of framework/include/casebook/, so that an
include of "casebook/X.h" is an edge to X's room, not to one low room.

A source's room is its folder: framework/src/<room>/, framework/app/ (`app`),
a header of framework/include/casebook/ (its row in the headers table),
kernels/ (`kernels`), tests/<folder>/ (`tests/<folder>`), fuzz/, bench/. An
include "X/..." targets room X, a folder of kernels/ counts as `kernels`.
Prints each include that breaks the tables as file:line, and each public
header the table does not list, and exits 1; exits 0 when none does.
Standard library only: it runs before anything is installed.

  python3 ci/check-layers.py [REPOSITORY_ROOT]
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else
                    pathlib.Path(__file__).resolve().parent.parent)
DOC = ROOT / "docs" / "architecture.md"
PUBLIC = ROOT / "framework" / "include" / "casebook"
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"/]+)/([^"]*)"')
SUFFIXES = (".h", ".cpp", ".cu", ".cuh", ".hip")
# The trees whose sources are checked; a folder missing from a tree (a
# planted one in the test) is skipped.
TREES = ("framework", "kernels", "tests", "fuzz", "bench")


def read_table(header):
    """The rows of the doc's table whose header row starts with `header`,
    each as its list of cells."""
    rows = []
    in_table = False
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith(header):
            in_table = True
            continue
        if not in_table:
            continue
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if set(cells[0]) <= set("-"):
            continue  # the separator row
        rows.append(cells)
    if not rows:
        sys.exit(f"{DOC}: no table whose header row starts `{header}`")
    return rows


def read_rooms():
    """{room: set of rooms it may include}."""
    return {cells[0]: {part.strip() for part in cells[2].split(",")}
            for cells in read_table("| room |")}


def read_headers():
    """{"X.h": room} for each header of framework/include/casebook/."""
    return {cells[0].strip("`").removeprefix("casebook/"): cells[1]
            for cells in read_table("| public header | room |")}


def room_of(path, headers):
    """The room of a source, or None for a public header the table lacks."""
    parts = path.relative_to(ROOT).parts
    if parts[0] == "framework":
        if parts[1] == "include":
            return headers.get(path.name)
        return "app" if parts[1] == "app" else parts[2]  # src/<room>/...
    if parts[0] == "tests":
        return "tests/" + parts[1]
    return parts[0]  # kernels, fuzz, bench


def target_room(folder, name, kernel_folders, headers):
    """The room an include "folder/name" reaches; None for a public header
    the table lacks."""
    if folder == "casebook":
        return headers.get(name)
    return "kernels" if folder in kernel_folders else folder


def sources():
    found = []
    for tree in TREES:
        found += [p for p in (ROOT / tree).rglob("*")
                  if p.suffix in SUFFIXES and p.is_file()]
    return sorted(found)


def check_source(source, rooms, headers, kernel_folders):
    """The number of includes of `source` that break the tables, each printed."""
    relative = source.relative_to(ROOT)
    room = room_of(source, headers)
    if room is None:
        return 0  # a public header the table lacks: reported once, by main
    if room not in rooms:
        print(f"{relative}: room `{room}` is not in the rooms table of "
              "docs/architecture.md")
        return 1
    allowed = rooms[room]
    broken = 0
    text = source.read_text(encoding="utf-8", errors="replace")
    for number, line in enumerate(text.splitlines(), 1):
        match = INCLUDE.match(line)
        if not match:
            continue
        folder, name = match.groups()
        target = target_room(folder, name, kernel_folders, headers)
        if target is None:
            print(f"{relative}:{number}: `casebook/{name}` is not in the public "
                  "headers table of docs/architecture.md")
            broken += 1
        elif target not in allowed:
            via = f" (implemented by `{target}`)" if folder == "casebook" else ""
            print(f"{relative}:{number}: `{room}` may not include "
                  f"`{folder}/{name}`{via} (docs/architecture.md: {room} may "
                  f"include {', '.join(sorted(allowed))})")
            broken += 1
    return broken


def main():
    rooms = read_rooms()
    headers = read_headers()
    kernels = ROOT / "kernels"
    kernel_folders = ({p.name for p in kernels.iterdir() if p.is_dir()}
                      if kernels.is_dir() else set())
    broken = 0
    on_disk = {p.name for p in PUBLIC.glob("*.h")} if PUBLIC.is_dir() else set()
    for name in sorted(on_disk - headers.keys()):
        print(f"framework/include/casebook/{name}: not in the public headers "
              "table of docs/architecture.md (which room implements it?)")
        broken += 1
    for name in sorted(headers.keys() - on_disk):
        print(f"docs/architecture.md: the public headers table lists `{name}`, "
              "which framework/include/casebook/ does not have")
        broken += 1
    for name, room in sorted(headers.items()):
        if room not in rooms:
            print(f"docs/architecture.md: public header `{name}`: room `{room}` "
                  "is not in the rooms table")
            broken += 1
    checked = sources()
    for source in checked:
        broken += check_source(source, rooms, headers, kernel_folders)
    if broken:
        print(f"{broken} violation(s) of the tables of docs/architecture.md")
        return 1
    print(f"includes of {len(checked)} files keep to the tables of "
          "docs/architecture.md: 0 violations")
    return 0


if __name__ == "__main__":
    sys.exit(main())
