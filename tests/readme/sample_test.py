#!/usr/bin/env python3
"""ctest readme.sample: the README's first example cannot drift from a real run.

The README marks three blocks with HTML comments (invisible when rendered):

  <!-- readme-sample: case -->     a ```yaml block: must equal the shipped case
                                   file its command names, byte for byte
  <!-- readme-sample: command -->  a ```sh block of one line, `casebook ...`
  <!-- readme-sample: output -->   a ``` block: what that command prints

The command is run as written (`casebook` is the executable under test), in a
scratch folder holding a copy of the case at the same relative path, so that
nothing is written into the source tree, with NO_COLOR=1 and standard output
not a terminal. Its output is compared with the README's block line by line,
with these masks, and only these:

  1. The environment block (the lines after the first line, `casebook`, up to
     the first blank line) depends on the machine: each README line there must
     match an output line with the same key (its first word), in the same
     order, and its value is not compared; a README line `  …` stands for any
     number of output lines left out.
  2. A duration (`0.4 s`, `12 ms`, `1.5s`) is masked on every line of both.

Every other line must be equal. The README shows a machine without a GPU:
where the run finds cuda or hip present, the test is skipped (exit 77).
Before it passes, it checks that the comparison fails for a drifted copy of
the README's block (its verdicts and counts changed), so that it cannot pass by
comparing nothing.

usage: sample_test.py CASEBOOK README
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
DURATION = re.compile(r"\b\d+(\.\d+)? ?(ms|s)\b")


def marked_block(lines, marker, readme):
    """The fenced block right after `<!-- readme-sample: MARKER -->`."""
    tag = "<!-- readme-sample: %s -->" % marker
    starts = [i for i, line in enumerate(lines) if line.strip() == tag]
    if len(starts) != 1:
        sys.exit("%s: expected one line `%s`, found %d" % (readme, tag, len(starts)))
    fence = starts[0] + 1
    if fence >= len(lines) or not lines[fence].startswith("```"):
        sys.exit("%s:%d: expected a ``` block after `%s`" % (readme, fence + 1, tag))
    for end in range(fence + 1, len(lines)):
        if lines[end].startswith("```"):
            return fence + 2, lines[fence + 1:end]
    sys.exit("%s:%d: the block after `%s` is not closed" % (readme, fence + 1, tag))


def environment_end(lines):
    """Index of the first blank line: the end of the environment block."""
    return next((i for i, line in enumerate(lines) if not line.strip()), len(lines))


def key(line):
    return line.split()[0] if line.split() else ""


def compare_environment(expected, actual):
    """Masks 1: keys in order, values ignored, `…` for lines left out."""
    at = 0
    for number, line in enumerate(expected):
        if line.strip() == "…":
            continue
        left_out = number > 0 and expected[number - 1].strip() == "…"
        while at < len(actual) and key(actual[at]) != key(line) and left_out:
            at += 1
        if at >= len(actual) or key(actual[at]) != key(line):
            found = actual[at] if at < len(actual) else "(the end of the block)"
            return number, "environment key `%s`, the run has: %s" % (key(line), found)
        at += 1
    if at < len(actual) and not (expected and expected[-1].strip() == "…"):
        return len(expected), "the run's environment goes on: %s" % actual[at]
    return None


def compare(expected, actual):
    """None when the README's block matches the run, else (line, why)."""
    expected_env, actual_env = environment_end(expected), environment_end(actual)
    if expected[:1] != actual[:1]:
        return 0, "first line `%s`, the run's `%s`" % (expected[:1], actual[:1])
    mismatch = compare_environment(expected[1:expected_env], actual[1:actual_env])
    if mismatch:
        return mismatch[0] + 1, mismatch[1]
    rest_expected = [DURATION.sub("<t>", l) for l in expected[expected_env:]]
    rest_actual = [DURATION.sub("<t>", l) for l in actual[actual_env:]]
    for offset in range(max(len(rest_expected), len(rest_actual))):
        want = rest_expected[offset] if offset < len(rest_expected) else "(nothing)"
        got = rest_actual[offset] if offset < len(rest_actual) else "(nothing)"
        if want != got:
            return expected_env + offset, "README: %s\n    run:    %s" % (want, got)
    return None


def run(casebook, command, case_path, source_dir):
    """The README's command in a scratch folder; its output's lines."""
    words = shlex.split(command)
    if not words or words[0] != "casebook":
        sys.exit("the README's command must start with `casebook`: %s" % command)
    with tempfile.TemporaryDirectory() as scratch:
        os.makedirs(os.path.join(scratch, os.path.dirname(case_path)))
        shutil.copyfile(os.path.join(source_dir, case_path), os.path.join(scratch, case_path))
        env = dict(os.environ, NO_COLOR="1", CASEBOOK_CACHE_DIR=os.path.join(scratch, "cache"))
        done = subprocess.run([casebook] + words[1:], cwd=scratch, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              stdin=subprocess.DEVNULL, text=True, timeout=300)
    return done.returncode, done.stdout.splitlines()


def drifted(expected):
    """The README's block with its verdicts and counts changed (PASS to FAIL)."""
    end = environment_end(expected)
    return expected[:end] + [l.replace(" PASS", " FAIL") for l in expected[end:]]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    casebook, readme = os.path.abspath(sys.argv[1]), sys.argv[2]
    source_dir = os.path.dirname(os.path.abspath(readme))
    lines = open(readme, encoding="utf-8").read().splitlines()
    case_at, case_block = marked_block(lines, "case", readme)
    command_at, command_block = marked_block(lines, "command", readme)
    output_at, output_block = marked_block(lines, "output", readme)
    if len(command_block) != 1:
        sys.exit("%s:%d: the command block holds one line" % (readme, command_at))
    command = command_block[0]
    case_path = next((w for w in shlex.split(command) if w.endswith(".yaml")), None)
    if not case_path:
        sys.exit("%s:%d: the command names no case file" % (readme, command_at))
    shipped = open(os.path.join(source_dir, case_path), encoding="utf-8").read().splitlines()
    if case_block != shipped:
        sys.exit("%s:%d: the case block is not %s as shipped" % (readme, case_at, case_path))

    status, output = run(casebook, command, case_path, source_dir)
    environment = output[1:environment_end(output)]
    present = [key(l) for l in environment
               if key(l) in ("cuda", "hip") and not l.split()[1].startswith("absent")]
    if present:
        print("SKIP: the README shows a machine without a GPU; here %s is present" %
              ", ".join(present))
        return SKIP
    if status != 0:
        print("\n".join(output))
        sys.exit("`%s` exited %d; the README's example passes (exit 0)" % (command, status))
    mismatch = compare(output_block, output)
    if mismatch:
        print("\n".join(output))
        sys.exit("%s:%d: the sample output differs from a real run of `%s`:\n    %s" %
                 (readme, output_at + mismatch[0], command, mismatch[1]))
    if compare(drifted(output_block), output) is None:
        sys.exit("the comparison passed a drifted copy of the README's block: it checks nothing")
    print("PASS: %s's case, command and output (%d lines) match a real run" %
          (os.path.basename(readme), len(output_block)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
