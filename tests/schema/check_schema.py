#!/usr/bin/python3
"""schema/case.schema.json against the loader, so that the two cannot drift.

Run by ctest (schema.agreement) with Debian's python3-yaml and
python3-jsonschema. Over every case file the project has (cases/,
examples/*/cases/, tests/data/):
  1. each file the loader accepts (`casebook check`) validates against the
     schema;
  2. each file the loader refuses for an unknown key or a value outside its
     list (a misspelt key, dtype, family...) is refused by the schema too;
  3. each accepted file with an unknown key added to any of its maps (the top
     level, tensors, fill, layout, tolerance, expect entries, origin, grad)
     is refused by both.
Exit 1 with every disagreement listed.
"""
import argparse
import copy
import json
import pathlib
import re
import subprocess
import sys
import tempfile

import jsonschema
import yaml


class Yaml12Loader(yaml.SafeLoader):
    """PyYAML reads YAML 1.1; the loader reads 1.2's core schema, where 1e-5
    is a float (1.1: a string) and yes/no/on/off are strings. Aliases are
    refused, as the loader refuses them: expanding the hostile corpus's
    "billion laughs" would take the machine."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            raise yaml.YAMLError("aliases are refused")
        return super().compose_node(parent, index)


Yaml12Loader.yaml_implicit_resolvers = {
    key: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
    for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
    list("tTfF"))
Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$"
               r"|^[-+]?\.(?:inf|Inf|INF)$|^\.(?:nan|NaN|NAN)$"),
    list("-+0123456789."))


def load(path):
    if path.stat().st_size > 1 << 20:
        raise yaml.YAMLError("over the loader's size limit")
    with open(path, encoding="utf-8") as f:
        return yaml.load(f, Loader=Yaml12Loader)


def loader_errors(casebook, paths, cwd):
    """{file: [messages]} for the files `casebook check` refuses."""
    result = subprocess.run([casebook, "check", *map(str, paths)], cwd=cwd,
                            capture_output=True, text=True, check=False)
    errors = {}
    for line in result.stdout.splitlines():
        match = re.match(r"^(.+?\.ya?ml)(?::\d+:\d+)?: (.*)$", line)
        if match:
            errors.setdefault(str(pathlib.Path(cwd, match.group(1)).resolve()), []).append(match.group(2))
    return errors


def maps_of(case):
    """Every map a key could be misspelt in, as (description, dict)."""
    yield "top level", case
    for section in ("tolerance", "origin", "grad"):
        if isinstance(case.get(section), dict):
            yield section, case[section]
    for name, tensor in (case.get("inputs") or {}).items():
        if isinstance(tensor, dict):
            yield f"inputs.{name}", tensor
            for sub in ("fill", "layout"):
                if isinstance(tensor.get(sub), dict):
                    yield f"inputs.{name}.{sub}", tensor[sub]
    for key, expected in (case.get("outputs") or {}).items():
        if isinstance(expected, dict):
            yield f"outputs.{key}", expected
    neighbors = case.get("neighbors")
    if isinstance(neighbors, dict):
        yield "neighbors", neighbors
        for rule, parameters in neighbors.items():
            if isinstance(parameters, dict):
                yield f"neighbors.{rule}", parameters
    for backend, entry in (case.get("expect") or {}).items():
        entries = entry if isinstance(entry, list) else [entry]
        for index, each in enumerate(entries):
            if isinstance(each, dict):
                yield f"expect.{backend}[{index}]", each


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--casebook", required=True)
    parser.add_argument("--root", required=True)
    args = parser.parse_args()
    args.casebook = str(pathlib.Path(args.casebook).resolve())
    root = pathlib.Path(args.root).resolve()
    schema = json.loads((root / "schema/case.schema.json").read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(schema)

    files = sorted(
        p for folder in ["cases", "tests/data"] + [str(p) for p in root.glob("examples/*/cases")]
        for p in (root / folder).rglob("*.y*ml")
        if "fixtures" not in p.parts and p.suffix in (".yaml", ".yml"))
    refused = loader_errors(args.casebook, files, root)
    problems = []
    accepted = []
    for path in files:
        try:
            case = load(path)
        except (yaml.YAMLError, UnicodeDecodeError, RecursionError):
            continue  # not YAML at all: the loader's own tests cover it
        if not isinstance(case, dict) or case.get("casebook") != 1:
            continue
        schema_errors = sorted(validator.iter_errors(case), key=str)
        messages = refused.get(str(path.resolve()), [])
        if not messages:
            accepted.append((path, case))
            for error in schema_errors[:3]:
                problems.append(f"{path.relative_to(root)}: the loader accepts it, the schema "
                                f"refuses: {'/'.join(map(str, error.absolute_path))}: {error.message}")
        elif any("unknown key" in m or "expected one of" in m for m in messages) and not schema_errors:
            problems.append(f"{path.relative_to(root)}: the loader refuses it ({messages[0]}), "
                            "the schema accepts it")

    # 3. An unknown key anywhere: both refuse.
    with tempfile.TemporaryDirectory(prefix="casebook-schema-") as folder:
        mutants = {}
        for path, case in accepted:
            if "file:" in path.read_text():
                continue  # fixtures resolve beside the original only
            for index, (where, _) in enumerate(list(maps_of(case))):
                mutant = copy.deepcopy(case)
                target = list(maps_of(mutant))[index][1]
                target["zz_not_a_key"] = 1
                out = pathlib.Path(folder, f"{len(mutants):05d}.yaml")
                out.write_text(yaml.safe_dump(mutant, sort_keys=False))
                mutants[str(out.resolve())] = (path, where, mutant)
        refused_mutants = loader_errors(args.casebook, [folder], folder)
        for out, (path, where, mutant) in mutants.items():
            if out not in refused_mutants:
                problems.append(f"{path.relative_to(root)}: the loader accepts an unknown key in {where}")
            if validator.is_valid(mutant):
                problems.append(f"{path.relative_to(root)}: the schema accepts an unknown key in {where}")

    print(f"schema: {len(files)} files, {len(accepted)} accepted by the loader, "
          f"{len(mutants)} with an unknown key added; {len(problems)} disagreements")
    for problem in problems:
        print("  " + problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
