"""casebook capture for PyTorch training loops (standard library and torch).

On the first failure of a step, the batch it was handed is saved with
torch.save and turned into a casebook case by ``casebook capture`` (the
executable from the ``casebook`` argument, else $CASEBOOK, else ``casebook`` on
PATH), with the first error's text, the iteration and the last completed step.
Later failures are counted as possible consequences of the first and not
written. The training loop's own exception always propagates unchanged.

    rec = Recorder("torch.cross_entropy", "label_4", cases="cases")
    for i, (x, y) in enumerate(loader):
        logits = model(x)
        with rec.step(i, input=logits, target=y):
            loss = torch.nn.functional.cross_entropy(logits, y)
"""

import contextlib
import functools
import inspect
import os
import platform
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
    executable = casebook or os.environ.get("CASEBOOK") or "casebook"
    if shutil.which(executable) is None and not os.path.isfile(executable):
        raise FileNotFoundError(
            f"casebook executable `{executable}` not found; pass casebook= or "
            "set $CASEBOOK")
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
    return str(value)


def _versions():
    versions = {"versions.python": platform.python_version(),
                "versions.torch": torch.__version__}
    if torch.version.cuda:
        versions["versions.cuda"] = torch.version.cuda
    if getattr(torch.version, "hip", None):
        versions["versions.hip"] = torch.version.hip
    return versions


class Recorder:
    """Records the first failure of a training loop as a casebook case.

    op: what the case runs (``torch.cross_entropy``); name: the case's name
    (<cases>/<op>/<name>.yaml); args: the op's non-tensor arguments; origin:
    more of the dossier (``cause``, ``data.id``...); backends: where
    ``casebook capture`` runs the new case (default: its own default).
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
        self.last_completed_step = None
        self.first_error = None
        self.case_file = None
        self.capture_output = ""
        self.consequences = 0
        self._calls = 0

    def completed(self, step):
        """Notes the step that just completed (``forward``, ``backward``)."""
        self.last_completed_step = step

    @contextlib.contextmanager
    def step(self, iteration, **tensors):
        """Runs the block; its first exception is recorded, any exception is
        re-raised unchanged."""
        try:
            yield self
        except BaseException as error:  # noqa: B902 - re-raised below
            if not isinstance(error, (KeyboardInterrupt, SystemExit)):
                self._on_failure(iteration, tensors, error)
            raise

    def watch(self, function):
        """A decorator: each call is a step (the iteration counts calls), and
        the function's tensor arguments, by parameter name, are the batch."""
        signature = inspect.signature(function)

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            tensors = {key: value for key, value in bound.arguments.items()
                       if isinstance(value, torch.Tensor)}
            iteration = self._calls
            self._calls += 1
            with self.step(iteration, **tensors):
                return function(*args, **kwargs)

        return wrapper

    @property
    def recorded(self):
        return self.case_file is not None

    def _on_failure(self, iteration, tensors, error):
        if self.first_error is not None:
            self.consequences += 1
            return
        text = f"{type(error).__name__}: {error}"
        self.first_error = text
        origin = _versions()
        origin.update({"first_error": text.splitlines()[0] if text else "",
                       "iteration": str(iteration)})
        if self.last_completed_step:
            origin["last_completed_step"] = self.last_completed_step
        devices = {value.device.type for value in tensors.values()}
        origin["backend"] = "cuda" if "cuda" in devices else "cpu"
        origin.update(self.origin)
        try:
            result = capture(self.op, self.name, tensors, cases=self.cases,
                             args=self.args, origin=origin,
                             casebook=self.casebook, backends=self.backends)
        except Exception as failure:  # never hide the training loop's error
            print(f"casebook: could not record the failure: {failure}",
                  file=sys.stderr)
            return
        self.capture_output = result.stdout + result.stderr
        if result.returncode == 2:
            print("casebook: could not record the failure:\n"
                  + self.capture_output, file=sys.stderr)
            return
        for line in result.stdout.splitlines():
            if line.startswith("wrote "):
                self.case_file = line[len("wrote "):]
        print(f"casebook: recorded the first failure (iteration {iteration}) "
              f"as {self.case_file}", file=sys.stderr)
