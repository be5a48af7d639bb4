"""casebook capture for PyTorch training loops (standard library and torch).

On the first failure of a step, the batch it was handed is saved with
torch.save and turned into a casebook case by ``casebook capture`` (the
executable from the ``casebook`` argument, else $CASEBOOK, else ``casebook`` on
PATH), with the first error's text, the iteration and the last completed step
of that iteration; the capture's verdict (does the case reproduce the failure?)
is printed. A name already taken (a rerun of the script) gets the next free
one: ``label_4-2``, ``label_4-3``; nothing is overwritten. Later failures are
counted as possible consequences of the first and not written. The training
loop's own exception always propagates unchanged.

    rec = Recorder("torch.cross_entropy", "label_4", cases="cases")
    for i, (x, y) in enumerate(loader):
        with rec.step(i, target=y) as step:      # the forward runs inside
            logits = step.add(input=model(x))
            step.completed("forward")
            torch.nn.functional.cross_entropy(logits, y).backward()
"""

import contextlib
import functools
import inspect
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile

import torch

__all__ = ["Recorder", "capture"]


def capture(op, name, tensors, cases="cases", args=None, origin=None,
            casebook=None, backends=None, expect_failure=False):
    """Saves `tensors` (name -> tensor) with torch.save and runs
    ``casebook capture``; returns its CompletedProcess (output captured)."""
    executable = _executable(casebook)
    with tempfile.TemporaryDirectory(prefix="casebook-capture-") as folder:
        command = [executable, "capture", "--op", op, "--name", name,
                   "--cases", str(cases)]
        for key, value in tensors.items():
            # One file per tensor, the tensor itself: LibTorch 1.13 cannot
            # unpickle a dict of one item. CPU copies with their strides (a
            # CUDA tensor cannot be read by a CPU LibTorch); detached.
            saved = os.path.join(folder, f"{key}.pt")
            torch.save(value.detach().cpu(), saved)
            command += ["--tensor", f"{key}={saved}"]
        for key, value in (args or {}).items():
            command += ["--arg", f"{key}={_yaml_text(value)}"]
        for key, value in (origin or {}).items():
            command += ["--origin", f"{key}={value}"]
        if backends:
            command += ["--backend", backends]
        if expect_failure:
            command.append("--expect-failure")
        return subprocess.run(command, capture_output=True, text=True,
                              check=False)


def _executable(casebook):
    executable = casebook or os.environ.get("CASEBOOK") or "casebook"
    if shutil.which(executable) is None and not os.path.isfile(executable):
        raise FileNotFoundError(
            f"casebook executable `{executable}` not found; pass casebook= or "
            "set $CASEBOOK")
    return executable


# What ``casebook capture`` says (exit 2) when the case file exists already.
_TAKEN = "a case of that name already exists"


def _op_folder(op):
    """The folder under `cases` that ``casebook capture`` writes `op`'s cases
    to (capture.cpp's op_folder): a first guess at a free name only, the
    capture's own refusal (_TAKEN) is what decides."""
    for prefix in ("torch.", "aten::"):
        if op.startswith(prefix):
            return op[len(prefix):]
    return op.replace(".", "/", 1)


def _op_arguments(executable, op):
    """The names of `op`'s non-tensor arguments, from ``casebook ops``:
    ``torch.x(input, target[, weight]; reduction, ...)`` (casebook's own), or
    else ATen schemas ``aten::x(Tensor self, int dim=-1, ...)`` (for a
    ``torch.x`` the names of any of its overloads); None when it cannot tell.
    """
    query = op.split(".", 1)[0] if op.startswith("aten::") else op
    try:
        listed = subprocess.run([executable, "ops", query],
                                capture_output=True, text=True,
                                check=False).stdout.splitlines()
    except OSError:
        return None
    own = [line for line in listed if line.startswith(op + "(")]
    if not own and op.startswith("torch."):
        name = op[len("torch."):]
        own = [line for line in listed
               if line.startswith((f"aten::{name}(", f"aten::{name}."))]
    if not own:
        return None
    names = set()
    for line in own:
        names |= _schema_arguments(line[line.index("(") + 1:])
    return names


def _schema_arguments(text):
    """The non-tensor argument names in `text`, what follows a listed op's
    `(`."""
    depth, pieces, piece = 0, [], ""
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")":
            if depth == 0:
                break
            depth -= 1
        elif char in ",;" and depth == 0:
            pieces.append((piece, char))
            piece = ""
            continue
        piece += char
    pieces.append((piece, ")"))
    names, first_form, after = set(), any(
        end == ";" for _, end in pieces), False
    for piece, end in pieces:
        words = piece.split("=")[0].strip(" []").split()
        # The first form: the arguments after `;`; a schema: typed.
        if first_form and after and words:
            names.add(words[-1])
        elif (not first_form and len(words) > 1
              and not words[0].startswith("Tensor")):
            names.add(words[-1])
        after = after or end == ";"
    return names


def _yaml_text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, float) and value != value:
        return ".nan"
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return ".inf" if value > 0 else "-.inf"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_yaml_text(item) for item in value) + "]"
    if isinstance(value, str) and (
            not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.-]*", value)
            or value.lower() in ("true", "false", "null")):
        # A string YAML would read otherwise (`1`, `a: b`, `true`): quoted
        # (a JSON string is a YAML double-quoted scalar).
        return json.dumps(value)
    return str(value)


def _versions():
    versions = {"versions.python": platform.python_version(),
                "versions.torch": torch.__version__}
    if torch.version.cuda:
        versions["versions.cuda"] = torch.version.cuda
    if getattr(torch.version, "hip", None):
        versions["versions.hip"] = torch.version.hip
    return versions


# The iteration of notes made before any step was entered: they belong to
# the first step entered.
_BEFORE = object()


class Step:
    """One step of a Recorder: what ``with rec.step(...) as step`` gives.

    Any other attribute is the Recorder's (``step.recorded``), as when the
    block was given the Recorder itself.
    """

    def __init__(self, recorder, iteration, tensors):
        self.recorder = recorder
        self.iteration = iteration
        self.tensors = dict(tensors)  # what a failure records, by input name
        self.args = {}  # the op's arguments from the call (Recorder.watch)

    def add(self, **tensors):
        """Adds tensors made inside the block (the forward's output) to what
        a failure after this records; returns them (one, or a tuple)."""
        self.tensors.update(tensors)
        values = tuple(tensors.values())
        return values[0] if len(values) == 1 else values

    def completed(self, step):
        """Notes `step` (``forward``) as completed in this step's iteration."""
        self.recorder.completed(step, iteration=self.iteration)

    def __getattr__(self, name):
        if name == "recorder":  # not yet set (copy, pickle)
            raise AttributeError(name)
        return getattr(self.recorder, name)


class Recorder:
    """Records the first failure of a training loop as a casebook case.

    op: what the case runs (``torch.cross_entropy``); name: the case's name
    (<cases>/<op>/<name>.yaml, else the first free one of <name>-2,
    <name>-3...); args: the op's non-tensor arguments; origin: more of the
    dossier (``cause``, ``data.id``...); backends: where ``casebook capture``
    runs the new case (default: its own default).
    """

    def __init__(self, op, name, cases="cases", args=None, origin=None,
                 casebook=None, backends=None):
        self.op = op
        self.name = name
        self.cases = cases
        self.args = dict(args or {})
        self.origin = dict(origin or {})
        self.casebook = casebook
        self.backends = backends
        self.first_error = None
        self.case_file = None
        self.capture_output = ""
        # The capture's last line: whether the new case reproduces the
        # failure (``the capture reproduces a failure``); None until run.
        self.verdict = None
        self.consequences = 0
        self._calls = 0
        self._open = []  # the steps entered and not left, innermost last
        self._iteration = _BEFORE  # of the step entered last
        self._completed = None  # (iteration, step): the last note

    @property
    def last_completed_step(self):
        """The step last noted as completed in the current iteration (of the
        innermost open step, else of the step entered last); None if none."""
        iteration = self._open[-1].iteration if self._open else self._iteration
        return self._completed_in(iteration)

    @last_completed_step.setter
    def last_completed_step(self, step):
        self.completed(step)

    def completed(self, step, iteration=None):
        """Notes the step that just completed (``forward``, ``backward``) in
        `iteration`, by default the current one (see last_completed_step): a
        note made outside any block, before the iteration's first step is
        entered, belongs to the previous iteration unless `iteration` says
        otherwise. A failure's case names a note of its own iteration only."""
        if iteration is None:
            iteration = (self._open[-1].iteration if self._open
                         else self._iteration)
        self._completed = (iteration, step)

    @contextlib.contextmanager
    def step(self, iteration, **tensors):
        """Runs the block as a step of `iteration`, handed `tensors` (more
        with ``step.add``); its first exception is recorded, any exception is
        re-raised unchanged. Gives a Step."""
        step = Step(self, iteration, tensors)
        if self._completed is not None and self._completed[0] is _BEFORE:
            self._completed = (iteration, self._completed[1])
        self._iteration = iteration
        self._open.append(step)
        try:
            yield step
        except BaseException as error:  # noqa: B902 - re-raised below
            if not isinstance(error, (KeyboardInterrupt, SystemExit)):
                self._on_failure(step, error)
            raise
        finally:
            self._open.remove(step)

    def watch(self, function):
        """A decorator: each call is a step (of the open step's iteration,
        else the iteration counts calls); the function's tensor arguments, by
        parameter name, are the batch, and its other arguments (defaults
        included) that the op takes, scalars or lists of them, the case's
        args (over the Recorder's)."""
        signature = inspect.signature(function)

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            arguments = {}
            for key, value in bound.arguments.items():
                kind = signature.parameters[key].kind
                if kind is inspect.Parameter.VAR_KEYWORD:
                    arguments.update(value)
                elif kind is not inspect.Parameter.VAR_POSITIONAL:
                    arguments[key] = value
            tensors = {key: value for key, value in arguments.items()
                       if isinstance(value, torch.Tensor)}
            iteration = self._open[-1].iteration if self._open else self._calls
            self._calls += 1
            with self.step(iteration, **tensors) as step:
                step.args = {key: value for key, value in arguments.items()
                             if _case_value(value)}
                return function(*args, **kwargs)

        return wrapper

    @property
    def recorded(self):
        return self.case_file is not None

    def _completed_in(self, iteration):
        if self._completed is not None and self._completed[0] == iteration:
            return self._completed[1]
        return None

    def _on_failure(self, step, error):
        # Once however many steps it leaves (a watched call inside a block).
        # Marked on the exception, not kept here: it holds the failing
        # iteration's frames, and their tensors, alive.
        if getattr(error, "_casebook_recorder", None) is self:
            return
        try:
            error._casebook_recorder = self
        except AttributeError:
            pass
        if self.first_error is not None:
            self.consequences += 1
            return
        iteration, tensors = step.iteration, step.tensors
        text = f"{type(error).__name__}: {error}"
        self.first_error = text
        origin = _versions()
        origin.update({"first_error": text.splitlines()[0] if text else "",
                       "iteration": str(iteration)})
        last = self._completed_in(iteration)
        if last:
            origin["last_completed_step"] = last
        devices = {value.device.type for value in tensors.values()}
        origin["backend"] = "cuda" if "cuda" in devices else "cpu"
        origin.update(self.origin)
        try:
            executable = _executable(self.casebook)
            args = dict(self.args)
            if step.args:
                # Only what the op takes: a watched function's own
                # parameters (an epoch, a model) would make the case invalid.
                # Not knowing the op's: all but None (an optional tensor's
                # default, as likely as not).
                takes = _op_arguments(executable, self.op)
                args.update({key: value for key, value in step.args.items()
                             if (key in takes if takes is not None
                                 else value is not None)})
            result = self._capture(executable, tensors, args, origin)
        except Exception as failure:  # never hide the training loop's error
            print(f"casebook: could not record the failure: {failure}",
                  file=sys.stderr)
            return
        self.capture_output = result.stdout + result.stderr
        if result.returncode == 2:
            # Still the first failure: later ones stay its consequences.
            print(f"casebook: could not record the first failure (iteration "
                  f"{iteration}, {origin['first_error']}):\n"
                  + self.capture_output, file=sys.stderr)
            return
        for line in result.stdout.splitlines():
            if line.startswith("wrote "):
                self.case_file = line[len("wrote "):]
            elif line.startswith("the capture "):
                self.verdict = line
        print(f"casebook: recorded the first failure (iteration {iteration}) "
              f"as {self.case_file}", file=sys.stderr)
        if result.returncode != 0:
            # The case does not run: what it said is the verdict.
            self.verdict = self.verdict or "the new case does not run"
            print(self.capture_output, file=sys.stderr)
        for line in _verdict_table(result.stdout):
            print(f"casebook:   {line}", file=sys.stderr)
        if self.verdict:
            print(f"casebook: {self.verdict}", file=sys.stderr)

    def _capture(self, executable, tensors, args, origin):
        """``casebook capture`` under the first free name: a rerun of the
        training loop records its failure next to the earlier one, never over
        it, and never asks for another --name (a flag it never passed)."""
        folder = os.path.join(str(self.cases), _op_folder(self.op))
        number, refused = 1, 0
        while True:
            name = self.name if number == 1 else f"{self.name}-{number}"
            number += 1
            if os.path.lexists(os.path.join(folder, name + ".yaml")):
                continue
            result = capture(self.op, name, tensors, cases=self.cases,
                             args=args, origin=origin, casebook=executable,
                             backends=self.backends)
            # Taken meanwhile (another process), or a folder guessed wrong:
            # the next name.
            if result.returncode == 2 and _TAKEN in result.stderr:
                refused += 1
                if refused < 100:
                    continue
                raise RuntimeError(f"no free name for {self.name}: "
                                   f"{refused} taken while capturing")
            return result


def _case_value(value):
    """Whether a case's `args` can hold `value`: a scalar or a list of
    them."""
    if isinstance(value, (list, tuple)):
        return all(_case_value(item) and not isinstance(item, (list, tuple))
                   for item in value)
    return value is None or isinstance(value, (bool, int, float, str))


def _verdict_table(stdout):
    """The verdict table of ``casebook run``'s output: its `case` header and
    the rows up to the first empty line."""
    lines = stdout.splitlines()
    for index, line in enumerate(lines):
        if line.split()[:1] == ["case"]:
            table = [line]
            for row in lines[index + 1:]:
                if not row.strip():
                    break
                table.append(row)
            return table
    return []
