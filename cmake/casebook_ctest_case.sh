#!/bin/sh
# One case file's ctest test (casebook_add_cases, EACH_CASE):
#
#   casebook_ctest_case.sh RECORD CASE_FILE RUNNER ARGUMENTS...
#
# RECORD is what the folder's batch test (`casebook run --ctest-records`)
# kept for CASE_FILE: a first line with the exit status, then the file's
# verdicts and failure blocks. When it is there and newer than both the case
# file and the runner, it is shown, removed (a record is read once, so a
# later `ctest -R` runs the case again) and its status is the exit status.
# Otherwise (`ctest -R <case>` without the batch, an edited case, a rebuilt
# runner) `RUNNER ARGUMENTS...` runs this one case file itself.
record=$1
case_file=$2
shift 2
if [ -f "$record" ] && [ "$record" -nt "$case_file" ] && [ "$record" -nt "$1" ]; then
  { read -r status && cat; } <"$record"
  rm -f "$record"
  case $status in
    0 | 1 | 77) exit "$status" ;;
  esac
  echo "casebook: $record: not a record of casebook's (status '$status'); running the case" >&2
fi
exec "$@"
