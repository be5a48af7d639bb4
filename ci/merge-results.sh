#!/usr/bin/env bash
# Joins the results of a case set spread over several machines (--shard I/N,
# or GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS) into one JUnit file and one
# Markdown summary. Each argument is a shard's folder holding the `cases.xml`
# (casebook run --junit) and `cases.md` (--summary) it wrote.
#
#   ci/merge-results.sh OUT_DIR SHARD_DIR...
#
# The JUnit file keeps each shard's <testsuite> (with its environment) under
# one <testsuites>; the summary gives each shard's section under one title.
# Exit 1 when a shard's files are missing: a shard that wrote nothing must
# not read as a shard that passed.
set -euo pipefail
if [[ $# -lt 2 ]]; then
  echo "usage: ci/merge-results.sh OUT_DIR SHARD_DIR..." >&2
  exit 2
fi
out="$1"
shift
mkdir -p "${out}"
junit="${out}/cases.xml"
summary="${out}/cases.md"
status=0
{
  echo '<?xml version="1.0" encoding="UTF-8"?>'
  echo '<testsuites>'
  for shard in "$@"; do
    if [[ ! -f "${shard}/cases.xml" ]]; then
      echo "merge-results: ${shard}/cases.xml is missing" >&2
      status=1
      continue
    fi
    # Everything between the shard's own <testsuites> tags.
    sed -e '1,/^<testsuites>$/d' -e '/^<\/testsuites>$/,$d' "${shard}/cases.xml"
  done
  echo '</testsuites>'
} >"${junit}"
{
  echo "# casebook: $# shards"
  for shard in "$@"; do
    echo
    echo "## $(basename "${shard}")"
    echo
    if [[ -f "${shard}/cases.md" ]]; then
      # The shard's own title becomes a line of its section.
      sed -e 's/^## casebook: /**casebook: /' -e '1s/$/**/' "${shard}/cases.md"
    else
      echo "**no summary: this shard wrote nothing**"
      echo "merge-results: ${shard}/cases.md is missing" >&2
      status=1
    fi
  done
} >"${summary}"
echo "merge-results: ${junit}, ${summary}"
exit "${status}"
