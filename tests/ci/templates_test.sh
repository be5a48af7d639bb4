#!/usr/bin/env bash
# The CI templates of ci/templates/ in a user's repository that is not
# casebook's (issue 47, item 4): a scratch git repository with a
# requirements.txt (torch==2.13.0) and a cases/ folder (five of casebook's
# cases that pass, one that FAILs on cpu) takes each template as its
# .github/workflows/casebook.yml or .gitlab-ci.yml, and tests/ci/run_workflow.py
# runs its jobs there, installs included, as the CI would: each shard's
# verdict line and exit status are a plain `casebook run --shard I/2`'s, the
# merge job fails (exit 1), its merged JUnit's tests= and failures= are a
# plain `casebook run cases --junit`'s, its summary's title is the verdict.
# Then the same once the failing case is removed: every job passes.
#
#   tests/ci/templates_test.sh PYTHON PACKAGE
#
# PYTHON: a Python whose version the package was built for; the test makes a
# virtual environment of its own with it (not PYTHON's, which is left as it
# is), where the templates' `pip install -r requirements.txt` installs torch
# 2.13.0 (pip's configured index or wheels) and `pip install PACKAGE` casebook.
# PACKAGE: what `pip install` takes: the wheel of torch-casebook (a path), a
# URL, or a requirement. Needs git and /usr/bin/python3 with python3-yaml.
set -euo pipefail
if [[ $# -ne 2 ]]; then
  echo "usage: tests/ci/templates_test.sh PYTHON PACKAGE" >&2
  exit 2
fi
python="$1"
package="$2"
[[ -e "${package}" ]] && package="$(realpath "${package}")"
source_dir="$(cd "$(dirname "$0")/../.." && pwd)"
runner=(/usr/bin/python3 "${source_dir}/tests/ci/run_workflow.py")
/usr/bin/python3 -c 'import yaml' ||
  { echo "templates_test: /usr/bin/python3 has no yaml (python3-yaml)" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT
failures=0
fail() {
  echo "FAILED: $*" >&2
  failures=$((failures + 1))
}

# The runner refuses a step it cannot run (exit 2), never skips it.
mkdir -p "${work}/unknown/.github/workflows"
printf 'on: push\njobs:\n  a:\n    steps:\n      - uses: actions/cache@v4\n' \
  >"${work}/unknown/.github/workflows/casebook.yml"
git -C "${work}/unknown" init -q
status=0
"${runner[@]}" github "${work}/unknown" "${work}/none" "${work}/unknown-jobs" 2>"${work}/log" ||
  status=$?
[[ ${status} -eq 2 ]] && grep -q "unsupported action actions/cache@v4" "${work}/log" ||
  fail "the runner does not refuse an unknown action (exit ${status}): $(cat "${work}/log")"

# The user's environment and repository.
"${python}" -m venv "${work}/venv"
venv="${work}/venv"
repo="${work}/user"
mkdir -p "${repo}/cases"
echo "torch==2.13.0" >"${repo}/requirements.txt"
echo "import torch" >"${repo}/train.py"
cp "${source_dir}"/cases/cross_entropy/{valid_labels,weight_and_label_smoothing}.yaml \
  "${source_dir}"/cases/torch/{matmul_cpu64,nll_loss,sum_exact_values}.yaml \
  "${source_dir}/tests/data/e2e/mismatch_vs_cpu64.yaml" "${repo}/cases/"
git_in_repo() {
  git -C "${repo}" -c user.name=user -c user.email=user@example.com "$@"
}
git_in_repo init -q
git_in_repo add -A
git_in_repo commit -q -m "a training repository with its cases"

# What the same casebook says run plainly: the whole folder's JUnit totals,
# each shard's verdict line and exit status (EXPECTED/<name>...).
expect() {  # NAME
  local out="${work}/expected/$1"
  mkdir -p "${out}"
  "${venv}/bin/pip" install -q -r "${repo}/requirements.txt" "${package}" >"${work}/pip.log" 2>&1 ||
    { cat "${work}/pip.log" >&2; fail "pip install -r requirements.txt ${package}"; }
  (
    cd "${repo}"
    status=0
    "${venv}/bin/casebook" run cases --quiet --evidence '' \
      --junit "${out}/cases.xml" >/dev/null 2>&1 || true
    for shard in 0 1; do
      status=0
      "${venv}/bin/casebook" run cases --quiet --evidence '' --shard "${shard}/2" \
        >"${out}/shard-${shard}.out" 2>&1 || status=$?
      echo "${status}" >"${out}/shard-${shard}.status"
      tail -n 1 "${out}/shard-${shard}.out" >"${out}/shard-${shard}.verdict"
    done
  )
}
# The value of attribute $2 of the first <$3 ...> start tag in file $1.
attribute() {
  sed -n "s/^<$3 .*"' '"$2"'="\([0-9]*\)".*/\1/p' "$1" 2>/dev/null | head -n 1
}
# Job folder $1's exit status (or `skipped`), `none` when it did not run.
status_of() {
  cat "$1/status" 2>/dev/null || echo none
}

# KIND: github or gitlab; NAME: failing or passing; SHARD_JOBS: the two shard
# jobs' folders; MERGE: the merge job's; MERGED: the merged folder's artifact.
check_run() {  # KIND NAME SHARD_JOB_0 SHARD_JOB_1 MERGE MERGED
  local kind="$1" name="$2" jobs="${work}/$1-$2" expected="${work}/expected/$2"
  local verdict=passed merge_status=0 index=0
  [[ "$(cat "${expected}/shard-0.status" "${expected}/shard-1.status")" == $'0\n0' ]] ||
    { verdict=failed; merge_status=1; }
  [[ "${name}" == passing || "${verdict}" == failed ]] ||
    fail "${kind} ${name}: run plainly, its cases all pass"
  [[ "${name}" == failing || "${verdict}" == passed ]] ||
    fail "${kind} ${name}: run plainly, a case does not pass"
  "${runner[@]}" "${kind}" "${repo}" "${venv}" "${jobs}" --uninstall torch-casebook ||
    { fail "${kind} ${name}: the runner stopped"; return; }
  for job in "$3" "$4"; do
    local status
    status="$(status_of "${jobs}/${job}")"
    [[ "${status}" == "$(cat "${expected}/shard-${index}.status")" ]] ||
      fail "${kind} ${name}: job ${job} exits ${status}: $(cat "${jobs}/${job}/log")"
    grep -qxF "$(cat "${expected}/shard-${index}.verdict")" "${jobs}/${job}/log" ||
      fail "${kind} ${name}: job ${job} does not say $(cat "${expected}/shard-${index}.verdict")"
    index=$((index + 1))
  done
  [[ "$(status_of "${jobs}/$5")" == "${merge_status}" ]] ||
    fail "${kind} ${name}: the merge exits $(status_of "${jobs}/$5"), not ${merge_status}: $(cat "${jobs}/$5/log")"
  local merged="${jobs}/artifacts/$6"
  for total in tests failures; do
    [[ -n "$(attribute "${expected}/cases.xml" "${total}" testsuite)" &&
      "$(attribute "${merged}/cases.xml" "${total}" testsuites)" == \
      "$(attribute "${expected}/cases.xml" "${total}" testsuite)" ]] ||
      fail "${kind} ${name}: the merged JUnit's ${total}= is not the plain run's"
  done
  [[ "$(head -n 1 "${merged}/cases.md" 2>/dev/null)" == "# casebook: ${verdict}" ]] ||
    fail "${kind} ${name}: the merged summary's title is not '# casebook: ${verdict}'"
  if [[ "${kind}" == github ]]; then
    [[ "$(head -n 1 "${jobs}/$5/summary.md" 2>/dev/null)" == "# casebook: ${verdict}" ]] ||
      fail "${kind} ${name}: the step summary's title is not '# casebook: ${verdict}'"
  else
    for node in 1 2; do
      grep -qx "\[runner\] junit reports: shards/casebook-shard-$((node - 1))/cases.xml" "${jobs}/casebook-${node}-2/log" ||
        fail "${kind} ${name}: shard ${node}'s JUnit is not a report"
    done
  fi
}

expect failing
mkdir -p "${repo}/.github/workflows"
# Each template with PACKAGE in place of torch-casebook, as its header says.
for copy in github-actions.yml:.github/workflows/casebook.yml gitlab-ci.yml:.gitlab-ci.yml; do
  sed 's|^  CASEBOOK_PACKAGE: torch-casebook$|  CASEBOOK_PACKAGE: "'"${package}"'"|' \
    "${source_dir}/ci/templates/${copy%%:*}" >"${repo}/${copy#*:}"
  grep -qxF "  CASEBOOK_PACKAGE: \"${package}\"" "${repo}/${copy#*:}" ||
    fail "ci/templates/${copy%%:*} has no line '  CASEBOOK_PACKAGE: torch-casebook'"
done
git_in_repo add -A
git_in_repo commit -q -m "casebook's CI templates"
check_run github failing cases-0 cases-1 merge casebook-results
check_run gitlab failing casebook-1-2 casebook-2-2 casebook-merge casebook-merge/merged

git_in_repo rm -q cases/mismatch_vs_cpu64.yaml
git_in_repo commit -q -m "the failing case fixed"
expect passing
check_run github passing cases-0 cases-1 merge casebook-results
check_run gitlab passing casebook-1-2 casebook-2-2 casebook-merge casebook-merge/merged

[[ ${failures} -eq 0 ]] || exit 1
echo "templates: every check passed"
