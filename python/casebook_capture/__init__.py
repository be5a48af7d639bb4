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
import difflib
import functools
import inspect
import json
import math
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

import torch

__all__ = ["Recorder", "capture"]


def capture(op, name, tensors, cases="cases", args=None, origin=None,
            casebook=None, backends=None, expect_failure=False,
            accept=False):
    """Saves `tensors` (name -> tensor) with torch.save and runs
    ``casebook capture``; returns its CompletedProcess (output captured)."""
    executable = _executable(casebook)
    with tempfile.TemporaryDirectory(prefix="casebook-capture-") as folder:
        command = capture_command(
            executable, op, name, _save_tensors(tensors, folder), cases=cases,
            args=args, origin=origin, backends=backends,
            expect_failure=expect_failure, accept=accept)
        return subprocess.run(command, capture_output=True, text=True,
                              check=False)


def _checked_name(name):
    """`name` when it names one file in its op's folder, as ``casebook
    capture --name`` requires (no folder part, not hidden, no control or
    line-separator character); else ValueError, before any training step."""
    text = str(name)
    bad = (not text or text.startswith(".") or "/" in text or "\\" in text
           or any(ord(c) < 0x20 or ord(c) == 0x7F or c in "\u2028\u2029"
                  for c in text))
    if bad:
        raise ValueError(f"Recorder name {text!r}: expected a file name (no "
                         "`/` or `\\`, not starting with `.`, no control "
                         "character)")
    return text


def _same_tensor(a, b):
    """Whether `a` and `b` are one tensor as an op sees it (``out=x``): the
    same data, sizes, strides, offset, dtype and device. Anything else that
    is saved (a tensor-like object) is never one."""
    if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
        return False
    return (a.data_ptr() != 0 and a.data_ptr() == b.data_ptr()
            and a.shape == b.shape and a.stride() == b.stride()
            and a.storage_offset() == b.storage_offset()
            and a.dtype == b.dtype and a.device == b.device)


def _save_tensors(tensors, folder):
    """Each tensor into <folder>/<name>.pt; returns name -> path. A tensor
    handed twice (``out=x``) is saved once and its path given twice, which
    ``casebook capture`` writes as ``{same_as: NAME}``."""
    saved = {}
    for key, value in tensors.items():
        same = [name for name, earlier in tensors.items()
                if name in saved and _same_tensor(earlier, value)]
        if same:
            saved[key] = saved[same[0]]
            continue
        # One file per tensor, the tensor itself: LibTorch 1.13 cannot
        # unpickle a dict of one item. CPU copies with their strides (a
        # CUDA tensor cannot be read by a CPU LibTorch); detached.
        path = os.path.join(folder, f"{key}.pt")
        torch.save(value.detach().cpu(), path)
        saved[key] = path
    return saved


def capture_command(executable, op, name, saved, cases="cases", args=None,
                    origin=None, backends=None, expect_failure=False,
                    accept=False):
    """The ``casebook capture`` command line for tensors saved as files
    (name -> path): what runs, and what a failed capture prints to run
    later."""
    command = [executable, "capture", "--op", op, "--name", name,
               "--cases", str(cases)]
    for key, path in saved.items():
        command += ["--tensor", f"{key}={path}"]
    for key, value in (args or {}).items():
        command += ["--arg", f"{key}={_arg_text(value)}"]
    for key, value in (origin or {}).items():
        command += ["--origin", f"{key}={value}"]
    if backends:
        command += ["--backend", backends]
    if expect_failure:
        command.append("--expect-failure")
    if accept:
        command.append("--accept")
    return command


def _executable(casebook):
    executable = casebook or os.environ.get("CASEBOOK") or "casebook"
    found = shutil.which(executable)
    if found is None and not (os.path.isfile(executable)
                              and os.access(executable, os.X_OK)):
        raise FileNotFoundError(
            f"casebook executable `{executable}` not found; pass casebook= or "
            "set $CASEBOOK")
    # A path (not a name on PATH) stays the same file after a chdir.
    return os.path.abspath(executable) if found is None or os.sep in \
        executable else executable


# What ``casebook capture`` says of a tensor name it cannot bind (a step that
# passed raises on these only: a step may hand fewer tensors than a case).
_NAME_REFUSALS = ("is no input of", "is no argument of", "both stand for",
                  "readings disagree")

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


def _listed_ops(executable, query):
    """The records of ``casebook ops --json QUERY``: casebook's own ops (their
    ``args``) and ATen operators (their ``overloads``, each with typed
    ``arguments``); [] when casebook cannot say."""
    try:
        listed = subprocess.run([executable, "ops", "--json", query],
                                capture_output=True, text=True, check=False)
        document = json.loads(listed.stdout)
    except (OSError, ValueError):
        return []
    if not isinstance(document, dict) or document.get("casebook_ops") != 1:
        return []
    return document.get("ops", [])


def _unknown_op(executable, op):
    """Why `op` is refused: casebook lists no such op; the nearest of the
    names ``casebook ops`` lists for its last word (an aten:: operator also
    as torch.<name>, as a case may name it)."""
    word = re.split(r"[.:]+", op)[-1]
    names = set()
    if len(word) > 3:
        for record in _listed_ops(executable, word[:-1]):
            name = record["name"]
            names.add(name)
            if name.startswith("aten::"):
                names.add("torch." + name[len("aten::"):].split(".")[0])
    nearest = difflib.get_close_matches(op, sorted(names), n=3, cutoff=0.6)
    text = f"casebook knows no op `{op}` (``casebook ops {op}`` lists none)"
    if nearest:
        text += "; did you mean " + " or ".join(f"`{name}`"
                                               for name in nearest) + "?"
    return text


def _op_arguments(executable, op):
    """The names of `op`'s non-tensor arguments, from ``casebook ops
    --json``: a casebook op's ``args``, or else those of the ATen overloads
    whose type is not a tensor's (for a ``torch.x`` those of any overload of
    ``aten::x``); None when it cannot tell."""
    query = op.split(".", 1)[0] if op.startswith("aten::") else op
    records = _listed_ops(executable, query)
    for record in records:
        if record["name"] == op and "args" in record:
            return set(record["args"])
    if op.startswith("aten::"):
        overloads = [overload for record in records
                     for overload in record.get("overloads", [])
                     if overload["schema"].startswith(op + "(")]
    elif op.startswith("torch."):
        aten = "aten::" + op[len("torch."):]
        overloads = [overload for record in records
                     if record["name"] == aten
                     for overload in record.get("overloads", [])]
    else:
        overloads = []
    if not overloads:
        return None
    return {argument["name"] for overload in overloads
            for argument in overload["arguments"]
            if not argument["type"].startswith("Tensor")}


def _arg_text(value):
    # An argument for ``casebook capture --arg``, which reads it as a case
    # file's `args` entry (YAML, whose flow style JSON is) and writes the case
    # with casebook's one writer: JSON, with YAML's words for the floats JSON
    # has none for.
    if isinstance(value, float) and not math.isfinite(value):
        return ".nan" if value != value else (".inf" if value > 0 else "-.inf")
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_arg_text(item) for item in value) + "]"
    return json.dumps(value)


def _versions():
    versions = {"versions.python": platform.python_version(),
                "versions.torch": torch.__version__}
    if torch.version.cuda:
        versions["versions.cuda"] = torch.version.cuda
    if getattr(torch.version, "hip", None):
        versions["versions.hip"] = torch.version.hip
    return versions


def _backend(devices):
    """casebook's backend for tensors on PyTorch's `devices` (``cpu``,
    ``cuda``): a ROCm build of PyTorch (torch.version.hip set) keeps the
    ``cuda`` names for AMD GPUs, which are casebook's ``hip``."""
    if "cuda" not in set(devices):
        return "cpu"
    return "hip" if getattr(torch.version, "hip", None) else "cuda"


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
    runs the new case (default: its own default); reduce: the recorded case
    is then reduced by ``casebook reduce`` (on the first of `backends`, else
    its origin's backend), and both files are printed.
    """

    def __init__(self, op, name, cases="cases", args=None, origin=None,
                 casebook=None, backends=None, accept=False,
                 batches="casebook-batches", reduce=False):
        # Checked now, not at the failure hours later: a missing executable
        # (FileNotFoundError) or an op casebook does not know (ValueError).
        self.executable = _executable(casebook)
        self.takes = _op_arguments(self.executable, op)
        if self.takes is None:
            raise ValueError(_unknown_op(self.executable, op))
        self.op = op
        self.name = _checked_name(name)
        self.cases = cases
        self.args = dict(args or {})
        self.origin = dict(origin or {})
        self.casebook = casebook
        self.backends = backends
        # accept: a reproduced failure is written into the case as its
        # expect (``casebook capture --accept``).
        self.accept = accept
        # reduce: the recorded case is reduced at once (``casebook reduce``:
        # the smallest case that fails the same way, a file of its own
        # beside it); `reduced_file` names it.
        self.reduce = reduce
        self.reduced_file = None
        self.reduce_output = ""
        # Where a batch goes when it cannot be captured at once: kept, with
        # the command that captures it later.
        self.batches = batches
        self.kept_batch = None
        self.capture_command = None
        self.first_error = None
        self.case_file = None
        self.capture_output = ""
        # The capture's verdict line (``the capture reproduces the
        # failure: ...``); None until run.
        self.verdict = None
        self.consequences = 0
        self._calls = 0
        # The sets of tensor names casebook took already (_names_refusal).
        self._names_taken = set()
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
        # A step that passed: its names are checked now, at the first
        # iteration, not at the failure hours later.
        if self.first_error is None:
            refusal = self._names_refusal(step.tensors)
            if refusal and any(said in refusal for said in _NAME_REFUSALS):
                raise ValueError(refusal)

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
        origin["backend"] = _backend(value.device.type
                                     for value in tensors.values())
        origin.update(self.origin)
        args = dict(self.args)
        # Only what the op takes: a watched function's own parameters (an
        # epoch, a model) would make the case invalid.
        args.update({key: value for key, value in step.args.items()
                     if key in self.takes})
        refusal = self._names_refusal(tensors)
        # A name casebook takes no case of: no batch to keep (the command
        # would be refused again). Any other refusal (a step that failed
        # before its forward added the logits) keeps the batch, as ever.
        if refusal and any(said in refusal for said in _NAME_REFUSALS):
            print(f"casebook: could not record the first failure (iteration "
                  f"{iteration}, {origin['first_error']}): {refusal}",
                  file=sys.stderr)
            return
        kept = self._keep(tensors, iteration)
        if kept is None:
            return
        batch, self._saved = kept
        self._batch = batch
        self.capture_command = capture_command(
            self.executable, self.op, self.name, self._saved,
            cases=self.cases, args=args, origin=origin,
            backends=self.backends, accept=self.accept)
        try:
            result = self._capture(batch, args, origin)
        except Exception as failure:  # never hide the training loop's error
            self._kept(iteration, origin, f"could not run casebook capture: "
                       f"{failure}")
            return
        self.capture_output = result.stdout + result.stderr
        written = [line[len("wrote "):] for line in result.stdout.splitlines()
                   if line.startswith("wrote ")]
        # Not written, or removed again: a case that does not reproduce the
        # failure is not kept (casebook capture --keep-unreproduced).
        if result.returncode == 2 or not written or \
                not os.path.exists(written[0]):
            # Still the first failure: later ones stay its consequences.
            self._kept(iteration, origin, self.capture_output)
            return
        shutil.rmtree(batch, ignore_errors=True)
        self._report(result, iteration)
        if self.reduce:
            self._reduce()

    def _names_refusal(self, tensors):
        """Why casebook refuses these tensors' names for the op (a name that
        is no input of it and none the table of names training code uses
        gives it, docs/case-format.md), from ``casebook capture --no-run``
        into a folder removed after; None when taken. Each set of names is
        asked once; nothing is written where the cases go."""
        names = tuple(sorted(tensors))
        if not tensors or names in self._names_taken:
            return None
        with tempfile.TemporaryDirectory(prefix="casebook-names-") as folder:
            saved = _save_tensors(tensors, folder)
            command = capture_command(
                self.executable, self.op, "names", saved,
                cases=os.path.join(folder, "cases"), args=self.args)
            command += ["--fixtures", os.path.join(folder, "fixtures"),
                        "--no-run"]
            try:
                result = subprocess.run(command, capture_output=True,
                                        text=True, check=False)
            except OSError:
                return None  # the capture at the failure says what it can
        if result.returncode == 2 and "would be invalid" in result.stderr:
            return ("casebook takes no case of these tensor names for "
                    f"{self.op}, so nothing was written:\n"
                    + result.stderr.split("\n", 1)[-1].rstrip())
        self._names_taken.add(names)
        return None

    def _keep(self, tensors, iteration):
        """The batch saved into a folder of its own under `batches`
        (<name>-<iteration>[-N]): (folder, name -> file), the tensors in
        the step's order; None, said, when it cannot be."""
        try:
            # casebook follows no link where it writes (a link a merge
            # request plants must not carry the batch elsewhere).
            if os.path.islink(self.batches):
                raise OSError(f"{self.batches}: a link: casebook follows no "
                              "link where it writes")
            os.makedirs(self.batches, exist_ok=True)
            base = os.path.join(self.batches, f"{self.name}-{iteration}")
            folder, number = base, 1
            while True:
                try:
                    os.mkdir(folder)
                    break
                except FileExistsError:
                    number += 1
                    folder = f"{base}-{number}"
            folder = os.path.abspath(folder)
            return folder, _save_tensors(tensors, folder)
        except Exception as failure:  # never hide the training loop's error
            print(f"casebook: could not save the batch of the first failure: "
                  f"{failure}", file=sys.stderr)
            return None

    def _kept(self, iteration, origin, why):
        """Says why the capture failed, where the batch is and the command
        that captures it later."""
        self.kept_batch = self._batch
        print(f"casebook: could not record the first failure (iteration "
              f"{iteration}, {origin['first_error']}):\n{why.rstrip()}\n"
              f"casebook: the batch is kept in {self._batch}; capture it "
              f"with:\n  {shlex.join(self.capture_command)}", file=sys.stderr)

    def _report(self, result, iteration):
        for line in result.stdout.splitlines():
            if line.startswith("wrote "):
                self.case_file = line[len("wrote "):]
            elif line.startswith("the capture ") and self.verdict is None:
                self.verdict = line
        print(f"casebook: recorded the first failure (iteration {iteration}) "
              f"as {self.case_file}", file=sys.stderr)
        if result.returncode != 0:
            # The case does not run: what it said is the verdict.
            self.verdict = self.verdict or "the new case does not run"
            print(self.capture_output, file=sys.stderr)
        for line in _verdict_rows(getattr(result, "verdicts", [])):
            print(f"casebook:   {line}", file=sys.stderr)
        lines = result.stdout.splitlines()
        if self.verdict:
            at = lines.index(self.verdict)
            for line in lines[at:]:
                if line.startswith(("the capture ", "  ", "accepted ",
                                    "expect:", "backends:")):
                    print(f"casebook: {line}", file=sys.stderr)

    def _reduce(self):
        """``casebook reduce`` of the recorded case: prints the reduced file
        beside the recorded one, with its sizes before and after; what
        casebook said where it wrote none. Never raises."""
        command = [self.executable, "reduce", self.case_file]
        if self.backends:
            command += ["--backend", self.backends.split(",")[0]]
        try:
            result = subprocess.run(command, capture_output=True, text=True,
                                    check=False)
        except OSError as failure:
            print(f"casebook: could not reduce {self.case_file}: {failure}",
                  file=sys.stderr)
            return
        self.reduce_output = result.stdout + result.stderr
        lines = result.stdout.splitlines()
        for line in lines:
            if line.startswith("wrote "):
                self.reduced_file = line[len("wrote "):]
        if self.reduced_file is None:
            print(f"casebook: could not reduce {self.case_file}:\n"
                  f"{self.reduce_output.rstrip()}", file=sys.stderr)
            return
        print(f"casebook: reduced {self.case_file} to {self.reduced_file}",
              file=sys.stderr)
        for line in lines:
            if line.startswith(("  from:", "  to:", "  stopped:")) or \
                    re.match(r"  [0-9]+ runs in ", line):
                print(f"casebook: {line}", file=sys.stderr)

    def _capture(self, batch, args, origin):
        """``casebook capture`` under the first free name: a rerun of the
        training loop records its failure next to the earlier one, never over
        it, and never asks for another --name (a flag it never passed)."""
        saved = self._saved
        folder = os.path.join(str(self.cases), _op_folder(self.op))
        number, refused = 1, 0
        while True:
            name = self.name if number == 1 else f"{self.name}-{number}"
            number += 1
            self.capture_command = capture_command(
                self.executable, self.op, name, saved, cases=self.cases,
                args=args, origin=origin, backends=self.backends,
                accept=self.accept)
            if os.path.lexists(os.path.join(folder, name + ".yaml")):
                continue
            scratch = tempfile.mkdtemp(prefix="casebook-results-")
            results = os.path.join(scratch, "results.json")
            try:
                result = subprocess.run(
                    self.capture_command + ["--json", results],
                    capture_output=True, text=True, check=False)
                result.verdicts = _read_verdicts(results)
            finally:
                shutil.rmtree(scratch, ignore_errors=True)
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


def _read_verdicts(path):
    """The verdict records of ``casebook run --json``'s results
    (schema/results.schema.json); [] where the run wrote none."""
    try:
        with open(path, encoding="utf-8") as file:
            document = json.load(file)
    except (OSError, ValueError):
        return []
    if not isinstance(document, dict) or \
            document.get("casebook_results") != 1:
        return []
    return document.get("verdicts", [])


def _verdict_rows(verdicts):
    """The verdicts as ``casebook run``'s table shows them: a `case` header,
    a row per case, a column per backend that ran (an absent backend's SKIP
    is left out, as the table leaves it), each cell the verdict and its
    family."""
    ran = [v for v in verdicts if not v.get("backend_absent")]
    backends = list(dict.fromkeys(v["backend"] for v in ran))
    cases = list(dict.fromkeys(v["case"] for v in ran))
    if not ran:
        return []
    cell = {(v["case"], v["backend"]): " ".join(
        filter(None, (v["verdict"], v.get("family")))) for v in ran}
    widths = [max(len(text) for text in ["case"] + cases) + 2]
    widths += [max([len(backend)] + [len(cell.get((case, backend), "-"))
                                     for case in cases]) + 2
               for backend in backends]
    rows = [["case"] + backends] + [
        [case] + [cell.get((case, backend), "-") for backend in backends]
        for case in cases]
    return ["".join(text.ljust(width) for text, width in
                    zip(row[:-1], widths)) + row[-1] for row in rows]
