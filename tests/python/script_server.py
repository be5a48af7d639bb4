"""Runs `reproduce.py` scripts, each in a child forked from this process, which
has imported torch and numpy once: a fresh `python reproduce.py` pays that
import (about 1.4 s) for every script (tests/python/reproduce_cases.py).

Protocol, a line each way: FOLDER on standard input; the script's exit status
on standard output, once it ended. The child runs FOLDER/reproduce.py as
`python reproduce.py` would, in FOLDER, with its standard output and error
both written to FOLDER/output.txt; an uncaught exception prints its
traceback there and gives 1, `sys.exit(CODE)` gives CODE.

usage: PYTHON script_server.py   (PYTHON the one whose torch is tested)
"""
import os
import runpy
import sys
import traceback

import numpy  # noqa: F401  (imported once, before any fork)
import torch  # noqa: F401


def exit_code(exit_request):
    """What `python` exits with for sys.exit(CODE)."""
    if exit_request.code is None:
        return 0
    if isinstance(exit_request.code, int):
        return exit_request.code
    print(exit_request.code, file=sys.stderr)
    return 1


def run_in_child(folder):
    code = 1
    try:
        os.chdir(folder)
        output = os.open("output.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(output, 1)
        os.dup2(output, 2)
        sys.argv = ["reproduce.py"]
        sys.path[0] = folder
        runpy.run_path("reproduce.py", run_name="__main__")
        code = 0
    except SystemExit as exit_request:
        code = exit_code(exit_request)
    except BaseException:  # noqa: B036  (as the interpreter's own top level)
        traceback.print_exc()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def main():
    for line in sys.stdin:
        sys.stdout.flush()
        child = os.fork()
        if child == 0:
            run_in_child(line.rstrip("\n"))
        _, status = os.waitpid(child, 0)
        print(os.waitstatus_to_exitcode(status), flush=True)


if __name__ == "__main__":
    main()
