#!/usr/bin/env python3
"""Runs the jobs of a CI template on this machine, in a scratch repository,
as GitHub Actions or GitLab CI would: tests/ci/templates_test.sh uses it to
prove that ci/templates/ work in a repository that is not casebook's.

  run_workflow.py github|gitlab REPO VENV WORK [--uninstall DIST]

REPO: a git repository holding the template, at .github/workflows/casebook.yml
(github) or .gitlab-ci.yml (gitlab). VENV: a Python virtual environment that
stands for `actions/setup-python` and for an image `python:*`: its bin/ goes
first on PATH. WORK: a folder of its own; WORK/<job>/ holds each job
instance's checkout (repo/), its output (log), its exit status (status: a
number, or `skipped`) and its step summary (summary.md, GitHub); the
artifacts go through WORK/artifacts/. --uninstall DIST: DIST is removed from
VENV before each job, so that each job must install what it uses, as on a
fresh runner.

Jobs run one at a time in needs/stage order, each matrix entry or parallel
index on its own, from a fresh clone of REPO, with the environment the CI
sets. A key, action, expression, condition or image the runner does not know
is an error naming it (exit 2): a template must not pass by having a step
skipped. Exit 0 once every job ran or was skipped, whatever their statuses.

It reads YAML with PyYAML, from Debian's python3-yaml (as
tests/schema/check_schema.py does): the environment under test then holds
only what the template installs.
"""

import argparse
import fnmatch
import glob
import itertools
import os
import pathlib
import re
import shutil
import subprocess
import sys

import yaml


class TemplateError(Exception):
    """Something in the template this runner does not know how to run."""


def check_keys(where, mapping, known):
    if not isinstance(mapping, dict):
        raise TemplateError(f"{where}: expected a mapping, got {mapping!r}")
    unknown = sorted(str(key) for key in mapping if key not in known)
    if unknown:
        raise TemplateError(f"{where}: unsupported key(s) {', '.join(unknown)}"
                            f" (this runner knows {', '.join(known)})")


def slug(text):
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-")


def base_env(extra):
    """The runner's environment: this one's, less what would steer casebook
    or pretend to be another CI, plus the CI's own variables."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("CASEBOOK_", "GITHUB_", "GITLAB_", "CI_",
                               "RUNNER_")) and
        key not in ("CI", "VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")
    }
    env["CI"] = "true"
    env.update({key: str(value) for key, value in extra.items()})
    return env


def activate(env, venv):
    """What actions/setup-python (or an image python:*) gives: VENV's python
    and pip first on PATH."""
    env["PATH"] = f"{venv}/bin:{env['PATH']}"
    env["VIRTUAL_ENV"] = str(venv)


def require_python(asked, venv, where):
    """The Python a template asks for (`3.11`, from setup-python's
    python-version or an image python:3.11) is the venv's: a wheel is built
    for one Python, so a template that asks for another would not install
    what this test installs."""
    have = subprocess.run(
        [f"{venv}/bin/python", "-c",
         "import sys; print('%d.%d' % sys.version_info[:2])"],
        capture_output=True, text=True, check=True).stdout.strip()
    if asked and asked != have:
        raise TemplateError(f"{where}: asks for Python {asked}; the venv "
                            f"given is Python {have}")


def run_bash(script, cwd, env, log):
    """Runs SCRIPT as GitHub's `shell: bash` and GitLab's bash do (-e, and
    pipefail); returns its exit status. Its output goes to LOG."""
    with open(log, "a", encoding="utf-8") as out:
        out.write(f"$ {script}\n")
        out.flush()
        return subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
            cwd=cwd,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            check=False).returncode


def note(log, text):
    with open(log, "a", encoding="utf-8") as out:
        out.write(f"[runner] {text}\n")


def copy_into(source, target):
    if source.is_dir():
        shutil.copytree(source, target, symlinks=True, dirs_exist_ok=True)
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)


def files_under(root, patterns):
    """The files and folders that PATTERNS (globs relative to ROOT, `**`
    included) name, relative to ROOT."""
    found = []
    for pattern in patterns:
        found += glob.glob(pattern.rstrip("/") or ".", root_dir=root,
                           recursive=True)
    return sorted(set(found))


class Runner:
    """What the jobs of one workflow share: the scratch repository, the
    environment standing for Python, the work folder, the artifacts."""

    def __init__(self, repo, venv, work, uninstall):
        self.repo = pathlib.Path(repo).resolve()
        self.venv = pathlib.Path(venv).resolve()
        self.work = pathlib.Path(work).resolve()
        self.store = self.work / "artifacts"
        self.uninstall = uninstall
        self.store.mkdir(parents=True, exist_ok=True)

    def start_job(self, key):
        """A fresh runner for job instance KEY: its folder, an empty
        workspace, DIST uninstalled; returns (folder, workspace, log)."""
        folder = self.work / slug(key)
        if folder.exists() or folder == self.store:
            raise TemplateError(f"two job instances are named {slug(key)}")
        workspace = folder / "repo"
        workspace.mkdir(parents=True)
        log = folder / "log"
        log.touch()
        if self.uninstall:
            subprocess.run(
                [self.venv / "bin" / "python", "-m", "pip", "uninstall", "-y",
                 "-q", self.uninstall],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                check=False)
        return folder, workspace, log

    def checkout(self, workspace, log):
        return run_bash(f"git clone -q '{self.repo}' .", workspace,
                        base_env({}), log)

    def finish_job(self, folder, key, status):
        (folder / "status").write_text(f"{status}\n", encoding="utf-8")
        print(f"job {slug(key)}: {status} ({folder}/log)", flush=True)


def topological(names, dependencies, where):
    """NAMES in their order, each after the ones it depends on."""
    ordered, left = [], list(names)
    while left:
        ready = [name for name in left
                 if all(dep in ordered for dep in dependencies[name])]
        if not ready:
            raise TemplateError(f"{where}: the needs of {', '.join(left)} "
                                "form a cycle")
        ordered.append(ready[0])
        left.remove(ready[0])
    return ordered


# GitHub Actions -------------------------------------------------------------

EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def evaluate(expression, context, where):
    """The value of `matrix.X`, `strategy.job-index|job-total` or `env.X`;
    any other expression is an error."""
    match = re.fullmatch(r"(matrix|strategy|env)\.([A-Za-z0-9_-]+)",
                         expression)
    if not match or match[2] not in context[match[1]]:
        raise TemplateError(f"{where}: unsupported expression "
                            f"${{{{ {expression} }}}}")
    value = context[match[1]][match[2]]
    return str(value).lower() if isinstance(value, bool) else str(value)


def substitute(value, context, where):
    if isinstance(value, (int, float, bool)):
        return str(value).lower() if isinstance(value, bool) else str(value)
    if not isinstance(value, str):
        raise TemplateError(f"{where}: expected a string, got {value!r}")
    return EXPRESSION.sub(lambda m: evaluate(m[1], context, where), value)


def condition(text, ok, where):
    """Whether an `if:` holds, the job or the steps so far having succeeded
    (OK) or not; the default is success()."""
    if text is None:
        return ok
    match = EXPRESSION.fullmatch(str(text).strip())
    text = match[1] if match else str(text).strip()
    table = {"always()": True, "!cancelled()": True, "cancelled()": False,
             "success()": ok, "failure()": not ok}
    if text not in table:
        raise TemplateError(f"{where}: unsupported condition {text!r}")
    return table[text]


def matrix_instances(name, job):
    """(key, matrix values, job-index, job-total) for each entry of the
    job's matrix (a product of lists; include and exclude are errors)."""
    where = f"jobs.{name}.strategy"
    strategy = job.get("strategy", {})
    check_keys(where, strategy, ("matrix", "fail-fast", "max-parallel"))
    matrix = strategy.get("matrix", {})
    for key, values in matrix.items():
        if key in ("include", "exclude") or not isinstance(values, list):
            raise TemplateError(f"{where}.matrix.{key}: only lists of values "
                                "are supported")
    combos = list(itertools.product(*matrix.values()))
    return [(name + "".join(f"-{value}" for value in combo),
             dict(zip(matrix, combo)), index, len(combos))
            for index, combo in enumerate(combos)]


class GitHub(Runner):
    """GitHub Actions: checkout, setup-python, upload-artifact and
    download-artifact (v4) as described in the module's docstring; `run:`
    steps with bash."""

    ACTIONS = ("actions/checkout", "actions/setup-python",
               "actions/upload-artifact", "actions/download-artifact")

    def run(self, workflow):
        if not isinstance(workflow, dict):
            raise TemplateError(f"expected a mapping, got {workflow!r}")
        workflow = {("on" if key is True else key): value
                    for key, value in workflow.items()}
        check_keys("workflow", workflow,
                   ("name", "on", "env", "jobs", "permissions"))
        jobs = workflow.get("jobs") or {}
        if not jobs:
            raise TemplateError("workflow: no jobs")
        needs = {name: self.needs(name, job, jobs)
                 for name, job in jobs.items()}
        results = {}
        for name in topological(list(jobs), needs, "jobs"):
            ok = all(status == 0 for dep in needs[name]
                     for status in results[dep])
            results[name] = [
                self.job(workflow.get("env", {}), name, jobs[name], instance,
                         ok) for instance in matrix_instances(name, jobs[name])
            ]

    @staticmethod
    def needs(name, job, jobs):
        check_keys(f"jobs.{name}", job,
                   ("name", "runs-on", "strategy", "needs", "if", "env",
                    "steps", "timeout-minutes", "permissions"))
        if not job.get("steps"):
            raise TemplateError(f"jobs.{name}: no steps")
        needs = job.get("needs", [])
        needs = [needs] if isinstance(needs, str) else needs
        for need in needs:
            if need not in jobs:
                raise TemplateError(f"jobs.{name}.needs: no job {need}")
        return needs

    def job(self, workflow_env, name, job, instance, needs_ok):
        key, matrix, index, total = instance
        folder, workspace, log = self.start_job(key)
        if not condition(job.get("if"), needs_ok, f"jobs.{name}.if"):
            self.finish_job(folder, key, "skipped")
            return "skipped"
        summary = folder / "summary.md"
        summary.touch()
        context = {"matrix": matrix,
                   "strategy": {"job-index": index, "job-total": total},
                   "env": {}}
        env = base_env({"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": workspace,
                        "GITHUB_STEP_SUMMARY": summary,
                        "GITHUB_ENV": folder / "github_env",
                        "GITHUB_PATH": folder / "github_path",
                        "RUNNER_TEMP": folder})
        for scope in (workflow_env, job.get("env", {})):
            for variable, value in scope.items():
                env[variable] = substitute(value, context, f"jobs.{name}.env")
                context["env"][variable] = env[variable]
        ok = True
        for number, step in enumerate(job.get("steps") or []):
            where = f"jobs.{name}.steps[{number}]"
            check_keys(where, step, ("name", "id", "uses", "with", "run", "if",
                                     "env", "shell"))
            self.validate(step, where, context)
            if not condition(step.get("if"), ok, f"{where}.if"):
                note(log, f"{where}: skipped")
                continue
            status = self.step(step, where, context, env, workspace, log)
            note(log, f"{where}: exit {status}")
            ok = ok and status == 0
        self.finish_job(folder, key, 0 if ok else 1)
        return 0 if ok else 1

    def validate(self, step, where, context):
        """Refuses, before its condition is read, a step that could not
        run: a known action, or a `run:` in bash, with expressions known."""
        substitute(step.get("name", ""), context, f"{where}.name")
        if "run" in step:
            if step.get("shell", "bash") != "bash" or set(step) & {"uses",
                                                                   "with"}:
                raise TemplateError(f"{where}: a run step with shell bash only")
            substitute(step["run"], context, f"{where}.run")
            return
        action = str(step.get("uses", "")).split("@")[0]
        if action not in self.ACTIONS or "@" not in str(step["uses"]):
            raise TemplateError(f"{where}: unsupported action {step.get('uses')}")

    def step(self, step, where, context, env, workspace, log):
        if "run" in step:
            step_env = dict(env)
            for variable, value in step.get("env", {}).items():
                step_env[variable] = substitute(value, context, f"{where}.env")
            script = substitute(step["run"], context, f"{where}.run")
            status = run_bash(script, workspace, step_env, log)
            for written in ("GITHUB_ENV", "GITHUB_PATH"):
                if os.path.exists(env[written]) and os.path.getsize(
                        env[written]):
                    raise TemplateError(f"{where}: writes ${written}, which "
                                        "this runner does not apply")
            return status
        action = step["uses"].split("@")[0]
        inputs = {key: substitute(value, context, f"{where}.with")
                  for key, value in step.get("with", {}).items()}
        return getattr(self, action.split("/")[1].replace("-", "_"))(
            inputs, where, env, workspace, log)

    def checkout(self, inputs, where, env, workspace, log):
        check_keys(f"{where}.with", inputs, ())
        return Runner.checkout(self, workspace, log)

    def setup_python(self, inputs, where, env, workspace, log):
        """VENV on PATH, when it is the Python version asked for."""
        check_keys(f"{where}.with", inputs, ("python-version", "cache"))
        require_python(str(inputs.get("python-version", "")), self.venv, where)
        note(log, f"setup-python {inputs.get('python-version', '')}: {self.venv}")
        activate(env, self.venv)
        return 0

    def upload_artifact(self, inputs, where, env, workspace, log):
        """The files PATH names (lines of globs; `!` exclusions are errors),
        relative to the least common ancestor of the paths' roots, as v4."""
        check_keys(f"{where}.with", inputs,
                   ("name", "path", "if-no-files-found", "retention-days"))
        target = self.store / inputs.get("name", "artifact")
        if target.exists():
            note(log, f"an artifact named {target.name} exists already")
            return 1
        patterns = [line.strip() for line in inputs.get("path", "").splitlines()
                    if line.strip()]
        if not patterns:
            raise TemplateError(f"{where}.with.path: no path")
        if any(pattern.startswith("!") for pattern in patterns):
            raise TemplateError(f"{where}.with.path: exclusions unsupported")
        roots = [re.split(r"/[^/]*[*?[]", "/" + pattern)[0].lstrip("/")
                 for pattern in patterns]
        roots = [root if (workspace / root).is_dir() else
                 os.path.dirname(root) for root in roots]
        root = os.path.commonpath([workspace / r for r in roots])
        found = files_under(workspace, patterns)
        if not found:
            note(log, f"upload-artifact: no files at {inputs['path']!r}")
            return 1 if inputs.get("if-no-files-found") == "error" else 0
        for path in found:
            source = workspace / path
            copy_into(source, target / os.path.relpath(source, root))
        return 0

    def download_artifact(self, inputs, where, env, workspace, log):
        """NAME into PATH; else each artifact whose name PATTERN matches
        (all without one) into PATH/<name>, or into PATH with
        merge-multiple."""
        check_keys(f"{where}.with", inputs,
                   ("name", "pattern", "path", "merge-multiple"))
        target = workspace / inputs.get("path", ".")
        names = sorted(entry.name for entry in self.store.iterdir())
        if "name" in inputs:
            if inputs["name"] not in names:
                note(log, f"download-artifact: no artifact {inputs['name']}")
                return 1
            copy_into(self.store / inputs["name"], target)
            return 0
        merge = inputs.get("merge-multiple", "false") == "true"
        for name in fnmatch.filter(names, inputs.get("pattern", "*")):
            copy_into(self.store / name, target if merge else target / name)
        return 0


# GitLab CI ------------------------------------------------------------------


class GitLab(Runner):
    """GitLab CI: jobs with stage, image python:*, parallel: N, needs, when
    (on_success, always), variables, before_script and script (one bash -e
    shell), artifacts (paths, when, reports: junit) passed to the jobs that
    need them (or to the later stages' jobs without needs)."""

    JOB_KEYS = ("stage", "image", "parallel", "needs", "when", "variables",
                "before_script", "script", "artifacts", "tags")

    def run(self, pipeline):
        if not isinstance(pipeline, dict):
            raise TemplateError(f"expected a mapping, got {pipeline!r}")
        stages = [".pre"] + pipeline.get(
            "stages", ["build", "test", "deploy"]) + [".post"]
        jobs = {}
        for key, value in pipeline.items():
            if key in ("stages", "variables") or str(key).startswith("."):
                continue
            if key in ("default", "include", "workflow", "image", "services",
                       "before_script", "after_script", "cache"):
                raise TemplateError(f"{key}: unsupported global keyword")
            check_keys(key, value, self.JOB_KEYS)
            if not value.get("script"):
                raise TemplateError(f"{key}: no script")
            image = str(value.get("image", ""))
            if not re.fullmatch(r"python:[A-Za-z0-9_.-]+", image):
                raise TemplateError(f"{key}.image: unsupported image "
                                    f"{image!r} (python:* only)")
            require_python(re.sub(r"^python:([0-9]+\.[0-9]+).*", r"\1",
                                  image), self.venv, f"{key}.image")
            if value.get("stage", "test") not in stages:
                raise TemplateError(f"{key}.stage: no stage {value['stage']}")
            jobs[key] = value
        order = sorted(jobs, key=lambda name: stages.index(
            jobs[name].get("stage", "test")))
        deps = {name: self.dependencies(name, jobs, stages) for name in jobs}
        results = {}
        for name in topological(order, deps, "needs"):
            results[name] = self.job(pipeline.get("variables", {}), name,
                                     jobs[name], deps[name], results)

    @staticmethod
    def dependencies(name, jobs, stages):
        """The jobs NAME waits for and takes artifacts from: its needs, else
        every job of an earlier stage."""
        if "needs" in jobs[name]:
            for need in jobs[name]["needs"]:
                if need not in jobs:
                    raise TemplateError(f"{name}.needs: no job {need!r}")
            return list(jobs[name]["needs"])
        stage = stages.index(jobs[name].get("stage", "test"))
        return [other for other in jobs
                if stages.index(jobs[other].get("stage", "test")) < stage]

    def job(self, variables, name, job, deps, results):
        total = job.get("parallel", 1)
        if not isinstance(total, int):
            raise TemplateError(f"{name}.parallel: a number only")
        when = job.get("when", "on_success")
        if when not in ("on_success", "always"):
            raise TemplateError(f"{name}.when: unsupported {when!r}")
        ok = all(status == 0 for dep in deps for status, _ in results[dep])
        statuses = []
        for index in range(1, total + 1):
            key = f"{name} {index}/{total}" if "parallel" in job else name
            if when == "always" or ok:
                statuses.append(self.instance(variables, name, job, key,
                                              (index, total), deps, results))
            else:
                folder, _, _ = self.start_job(key)
                self.finish_job(folder, key, "skipped")
                statuses.append(("skipped", key))
        return statuses

    def instance(self, variables, name, job, key, node, deps, results):
        folder, workspace, log = self.start_job(key)
        status = self.checkout(workspace, log)
        for dep in deps:
            for _, dep_key in results[dep]:
                if (self.store / slug(dep_key)).is_dir():
                    copy_into(self.store / slug(dep_key), workspace)
        env = base_env({"GITLAB_CI": "true", "CI_PROJECT_DIR": workspace,
                        "CI_JOB_NAME": key})
        if "parallel" in job:
            env.update(CI_NODE_INDEX=str(node[0]), CI_NODE_TOTAL=str(node[1]))
        activate(env, self.venv)
        for scope in (variables, job.get("variables", {})):
            for variable, value in scope.items():
                if not isinstance(value, (str, int, float)):
                    raise TemplateError(f"{name}: variable {variable}: a "
                                        "plain value only")
                env[variable] = str(value)
        lines = []
        for item in job.get("before_script", []) + job["script"]:
            lines += item if isinstance(item, list) else [item]
        if status == 0:
            status = run_bash("\n".join(lines), workspace, env, log)
        self.artifacts(name, job.get("artifacts", {}), key, status, workspace,
                       log)
        self.finish_job(folder, key, status)
        return status, key

    def artifacts(self, name, artifacts, key, status, workspace, log):
        """Keeps the files `paths` names (when the job's status allows it)
        and notes in the log the files `reports: junit` names."""
        check_keys(f"{name}.artifacts", artifacts,
                   ("paths", "when", "reports", "expire_in"))
        check_keys(f"{name}.artifacts.reports", artifacts.get("reports", {}),
                   ("junit",))
        when = artifacts.get("when", "on_success")
        if when not in ("on_success", "on_failure", "always"):
            raise TemplateError(f"{name}.artifacts.when: unsupported {when!r}")
        if when != "always" and (status == 0) != (when == "on_success"):
            return
        for path in files_under(workspace, artifacts.get("paths", [])):
            copy_into(workspace / path, self.store / slug(key) / path)
        junit = artifacts.get("reports", {}).get("junit", [])
        junit = [junit] if isinstance(junit, str) else junit
        reports = files_under(workspace, junit)
        note(log, f"junit reports: {' '.join(reports) or 'none'}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kind", choices=("github", "gitlab"))
    parser.add_argument("repo")
    parser.add_argument("venv")
    parser.add_argument("work")
    parser.add_argument("--uninstall", default="")
    args = parser.parse_args()
    path = pathlib.Path(args.repo) / (".github/workflows/casebook.yml"
                                      if args.kind == "github" else
                                      ".gitlab-ci.yml")
    runner = (GitHub if args.kind == "github" else GitLab)(
        args.repo, args.venv, args.work, args.uninstall)
    try:
        with open(path, encoding="utf-8") as stream:
            runner.run(yaml.safe_load(stream))
    except (TemplateError, yaml.YAMLError, OSError) as error:
        kind = type(error).__name__
        print(f"run_workflow: {path}: {kind}: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
