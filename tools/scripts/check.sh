#!/usr/bin/env bash
#===- check.sh - Set up spperm and run the whole test suite ----------------===#
#
# Installs what is missing, builds, and runs check-spperm through lit: the
# FileCheck tests under test/ and every gtest binary. GPU tests need a GPU and
# are reported as UNSUPPORTED (skipped) elsewhere, never as passed. Then a
# short fuzzing run (fuzz.sh, SPPERM_FUZZ_SECONDS per target, default 60; 0
# skips it) whose finding fails the check, and the sanitizer suite
# (sanitize.sh: the whole suite again, built with ASan + UBSan;
# SPPERM_SANITIZE=0 skips it). The last line is the summary
# `check-spperm: N passed, N failed, N skipped` of the main suite.
#
#===------------------------------------------------------------------------===#
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

spperm_install_packages
spperm_build

log="$SPPERM_BUILD/check-spperm.log"
status=0
/usr/lib/llvm-22/bin/lit -sv "$SPPERM_BUILD/test" "$SPPERM_BUILD/test/Unit" 2>&1 | tee "$log" ||
  status=$?

count() {
  sed -n "s/^ *$1 *: *\([0-9][0-9]*\).*/\1/p" "$log" | tail -n 1
}
passed=$(count Passed)
failed=$(( $(count Failed || true) + 0 ))
failed=$(( failed + $(count "Unresolved" || true) + 0 ))
failed=$(( failed + $(count "Timed Out" || true) + 0 ))
failed=$(( failed + $(count "Unexpectedly Passed" || true) + 0 ))
skipped=$(( $(count Unsupported || true) + 0 ))
skipped=$(( skipped + $(count Skipped || true) + 0 ))
skipped=$(( skipped + $(count "Expectedly Failed" || true) + 0 ))
if [ -z "$passed" ] || [ "$passed" -eq 0 ]; then
  echo "check: error: lit ran no test" >&2
  status=1
fi

# The Python module's tests (pytest; GPU tests are skipped, with their
# reason, where there is no GPU).
pylog="$SPPERM_BUILD/pytest.log"
"$SPPERM_BUILD/venv/bin/python" -m pytest "$SPPERM_ROOT/python/tests" -q -rs \
  -p no:cacheprovider 2>&1 | tee "$pylog" || status=$?
pycount() {
  tail -n 1 "$pylog" | sed -n "s/.*[^0-9]\([0-9][0-9]*\) $1.*/\1/p;s/^\([0-9][0-9]*\) $1.*/\1/p" |
    head -n 1
}
pypassed=$(( $(pycount passed) + 0 ))
if [ "$pypassed" -eq 0 ]; then
  echo "check: error: pytest ran no test" >&2
  status=1
fi
passed=$(( ${passed:-0} + pypassed ))
failed=$(( failed + $(pycount failed) + $(pycount error) + 0 ))
skipped=$(( skipped + $(pycount skipped) + 0 ))

fuzz_seconds="${SPPERM_FUZZ_SECONDS:-60}"
if [ "$fuzz_seconds" != 0 ]; then
  if ! bash "$SPPERM_ROOT/tools/scripts/fuzz.sh" "$fuzz_seconds"; then
    echo "check: error: fuzzing found a problem (tools/scripts/fuzz.sh)" >&2
    status=1
  fi
fi
if [ "${SPPERM_SANITIZE:-1}" != 0 ]; then
  if ! bash "$SPPERM_ROOT/tools/scripts/sanitize.sh" \
      >"$SPPERM_BUILD/sanitize.log" 2>&1; then
    tail -n 40 "$SPPERM_BUILD/sanitize.log" >&2
    echo "check: error: the sanitizer suite failed (tools/scripts/sanitize.sh;" \
      "log: $SPPERM_BUILD/sanitize.log)" >&2
    status=1
  else
    grep -E "^ *(Passed|Skipped|Unsupported) *:" "$SPPERM_BUILD/sanitize.log" |
      sed 's/^ */sanitizer suite: /'
  fi
fi
echo "check-spperm: ${passed:-0} passed, $failed failed, $skipped skipped"
exit "$status"
