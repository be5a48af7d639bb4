#!/usr/bin/env bash
# Joins the results of a case set spread over several machines (--shard I/N,
# or GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS) into one JUnit file and one
# Markdown summary with the totals and the overall verdict.
#
#   ci/merge-results.sh OUT_DIR SHARD_DIR...
#   casebook-merge-results OUT_DIR SHARD_DIR...   (installed: pip, cmake --install)
#
# Input: each SHARD_DIR is one shard's folder holding the two files
#   casebook run --junit SHARD_DIR/cases.xml --summary SHARD_DIR/cases.md
# wrote (ci/gpu-lane.sh writes them into its OUTPUT_DIR).
# Output: OUT_DIR/cases.xml, each shard's <testsuite> (with its environment)
# under one <testsuites> carrying the totals; OUT_DIR/cases.md, titled with
# the overall verdict (`# casebook: passed` or `# casebook: failed`) and the
# totals over every shard, then each shard's section.
#
# The verdict is passed when every shard wrote both files, at least one run
# was made, and no run FAILed, XPASSed, timed out, ERRORed or was NOT RUN
# (JUnit failures and errors). Exit 0 when passed, 1 when failed (a shard
# that wrote nothing must not read as a shard that passed), 2 on a usage
# error.
set -euo pipefail
if [[ $# -lt 2 ]]; then
  echo "usage: $(basename "$0") OUT_DIR SHARD_DIR..." >&2
  exit 2
fi
out="$1"
shift
mkdir -p "${out}"
junit="${out}/cases.xml"
summary="${out}/cases.md"
missing=()
tests=0 failures=0 errors=0 skipped=0 seconds=0

# The value of attribute $2 in the <testsuite ...> start tag of file $1 (one
# line, as casebook writes it); empty when there is none.
suite_attribute() {
  sed -n 's/^<testsuite .* '"$2"'="\([0-9.]*\)".*/\1/p' "$1" | head -n 1
}

bodies="$(mktemp)"
trap 'rm -f "${bodies}"' EXIT
for shard in "$@"; do
  if [[ ! -f "${shard}/cases.xml" ]]; then
    echo "merge-results: ${shard}/cases.xml is missing" >&2
    missing+=("${shard}/cases.xml")
    continue
  fi
  count="$(suite_attribute "${shard}/cases.xml" tests)"
  if [[ -z "${count}" ]]; then
    echo "merge-results: ${shard}/cases.xml has no <testsuite> with counts" >&2
    missing+=("${shard}/cases.xml (no counts)")
    continue
  fi
  tests=$((tests + count))
  failures=$((failures + $(suite_attribute "${shard}/cases.xml" failures)))
  errors=$((errors + $(suite_attribute "${shard}/cases.xml" errors)))
  skipped=$((skipped + $(suite_attribute "${shard}/cases.xml" skipped)))
  seconds="$(awk -v a="${seconds}" -v b="$(suite_attribute "${shard}/cases.xml" time)" \
    'BEGIN { printf "%.6f", a + b }')"
  # Everything between the shard's own <testsuites> tags.
  sed -e '1,/^<testsuites>$/d' -e '/^<\/testsuites>$/,$d' "${shard}/cases.xml" >>"${bodies}"
done
for shard in "$@"; do
  if [[ ! -f "${shard}/cases.md" ]]; then
    echo "merge-results: ${shard}/cases.md is missing" >&2
    missing+=("${shard}/cases.md")
  fi
done

verdict=passed
if [[ ${#missing[@]} -gt 0 || ${tests} -eq 0 || $((failures + errors)) -gt 0 ]]; then
  verdict=failed
fi
passed=$((tests - failures - errors - skipped))

{
  echo '<?xml version="1.0" encoding="UTF-8"?>'
  echo "<testsuites name=\"casebook\" tests=\"${tests}\" failures=\"${failures}\" errors=\"${errors}\" time=\"${seconds}\">"
  cat "${bodies}"
  echo '</testsuites>'
} >"${junit}"
{
  echo "# casebook: ${verdict}"
  echo
  echo "**${tests} runs over $# shards: ${passed} passed (PASS, XFAIL), ${failures} failed" \
    "(FAIL, XPASS, TIMEOUT), ${errors} errors (ERROR, NOT RUN), ${skipped} skipped**"
  for file in "${missing[@]}"; do
    echo
    echo "- **${file} is missing: that shard's runs are not counted**"
  done
  for shard in "$@"; do
    echo
    echo "## $(basename "${shard}")"
    echo
    if [[ -f "${shard}/cases.md" ]]; then
      # The shard's own title becomes a line of its section.
      sed -e 's/^## casebook: /**casebook: /' -e '1s/$/**/' "${shard}/cases.md"
    else
      echo "**no summary: this shard wrote nothing**"
    fi
  done
} >"${summary}"
echo "merge-results: ${verdict}: ${tests} runs, ${failures} failed, ${errors} errors," \
  "${skipped} skipped; ${junit}, ${summary}"
[[ "${verdict}" == passed ]]
