#!/usr/bin/env bash
# Every patch the lab keeps (an experiment on the library itself, not landed) still applies to the
# tree as it is: one that no longer does is rebased or retired, never left to rot.
# Usage: patches_apply.sh SOURCE_ROOT
set -uo pipefail
cd "$1" || exit 1
failed=0 count=0
for p in lab/experiments/*.patch; do
  count=$((count + 1))
  git apply --check "$p" 2> /tmp/patches_apply.$$ || { echo "FAIL: $p no longer applies:"; cat /tmp/patches_apply.$$; failed=1; }
done
rm -f /tmp/patches_apply.$$
[ "$failed" = 0 ] && echo "lab patches: $count apply to the tree"
exit $failed
