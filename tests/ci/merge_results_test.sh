#!/usr/bin/env bash
# ci/merge-results.sh over shards that casebook itself wrote (issue 23): the
# merged summary's title is the overall verdict and it gives the total; the
# merged JUnit carries the totals; a shard that wrote nothing fails the merge.
#
#   tests/ci/merge_results_test.sh CASEBOOK SOURCE_DIR
set -euo pipefail
casebook="$1"
source_dir="$2"
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT
cd "${source_dir}"
failures=0
fail() {
  echo "FAILED: $*" >&2
  failures=$((failures + 1))
}
expect_line() {  # FILE REGEX
  grep -Eq "$2" "$1" || fail "$1 has no line matching: $2 (it holds:)$(printf '\n'; cat "$1")"
}

# Shard I of 2 of tests/data/e2e: 11 runs between them, 5 JUnit failures
# (3 FAIL, 1 XPASS, 1 TIMEOUT), 2 errors, 1 skipped.
for index in 0 1; do
  mkdir -p "${work}/failing/shard-${index}"
  "${casebook}" run tests/data/e2e --backend cpu --quiet --evidence '' \
    --shard "${index}/2" --junit "${work}/failing/shard-${index}/cases.xml" \
    --summary "${work}/failing/shard-${index}/cases.md" >/dev/null 2>&1 || true
done
status=0
ci/merge-results.sh "${work}/failing/merged" "${work}"/failing/shard-* >"${work}/log" 2>&1 || status=$?
[[ ${status} -eq 1 ]] || fail "a merge of failing shards exits ${status}, not 1"
md="${work}/failing/merged/cases.md"
expect_line "${md}" '^# casebook: failed$'
expect_line "${md}" '^\*\*11 runs over 2 shards: 3 passed \(PASS, XFAIL\), 5 failed \(FAIL, XPASS, TIMEOUT\), 2 errors \(ERROR, NOT RUN\), 1 skipped\*\*$'
expect_line "${md}" '^## shard-0$'
expect_line "${md}" '^## shard-1$'
expect_line "${work}/failing/merged/cases.xml" '^<testsuites name="casebook" tests="11" failures="5" errors="2" time="[0-9]+\.[0-9]{6}">$'
[[ "$(grep -c '^<testsuite ' "${work}/failing/merged/cases.xml")" -eq 2 ]] ||
  fail "the merged JUnit does not keep both shards' <testsuite>"
if command -v xmllint >/dev/null; then
  xmllint --noout --schema tests/data/junit/junit.xsd "${work}/failing/merged/cases.xml" 2>"${work}/xsd" ||
    fail "the merged JUnit is not valid: $(cat "${work}/xsd")"
fi

# Two shards that pass, then the same with a third that wrote nothing.
for index in 0 1; do
  mkdir -p "${work}/passing/shard-${index}"
  "${casebook}" run tests/data/e2e --backend cpu --quiet --evidence '' \
    --id valid_labels --junit "${work}/passing/shard-${index}/cases.xml" \
    --summary "${work}/passing/shard-${index}/cases.md" >/dev/null 2>&1 ||
    fail "tests/data/e2e/valid_labels does not pass"
done
ci/merge-results.sh "${work}/passing/merged" "${work}"/passing/shard-* >"${work}/log" 2>&1 ||
  fail "a merge of passing shards exits $?: $(cat "${work}/log")"
expect_line "${work}/passing/merged/cases.md" '^# casebook: passed$'
expect_line "${work}/passing/merged/cases.md" '^\*\*2 runs over 2 shards: 2 passed \(PASS, XFAIL\), 0 failed'
mkdir -p "${work}/passing/shard-2"
status=0
ci/merge-results.sh "${work}/incomplete" "${work}"/passing/shard-* >"${work}/log" 2>&1 || status=$?
[[ ${status} -eq 1 ]] || fail "a merge with a shard that wrote nothing exits ${status}, not 1"
expect_line "${work}/incomplete/cases.md" '^# casebook: failed$'
expect_line "${work}/incomplete/cases.md" 'shard-2/cases.xml is missing: that shard.s runs are not counted'

[[ ${failures} -eq 0 ]] || exit 1
echo "merge-results: every check passed"
