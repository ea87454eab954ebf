#!/bin/sh
# Runs a test command and, when it ends with a nonzero status, says so in its output. ctest
# ignores the exit status of a test that passes by a line of its output
# (PASS_REGULAR_EXPRESSION); such tests add FAIL_REGULAR_EXPRESSION "exited with status" so
# that a command that prints its PASS line and then fails (a crash at exit, an error after the
# summary) still fails.
#
#   tests/scripts/exit_status.sh COMMAND [ARGS...]
"$@"
rc=$?
if [ "$rc" -ne 0 ]; then
  echo "exit_status.sh: $1 exited with status $rc"
fi
exit "$rc"
