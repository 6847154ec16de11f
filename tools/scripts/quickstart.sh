#!/usr/bin/env bash
#===- quickstart.sh - Set up spperm and run it on the bundled example ------===#
#
# Installs what is missing, builds, and runs the main job on the bundled
# example matrix (examples/bcsstk13.mtx.gz): its statistics, as a table and
# as the JSON the selector reads.
#
#===------------------------------------------------------------------------===#
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

spperm_install_packages
spperm_build

example="$SPPERM_ROOT/examples/bcsstk13.mtx.gz"
"$SPPERM_BUILD/bin/spperm-inspect" "$example"
echo
"$SPPERM_BUILD/bin/spperm-inspect" "$example" --json
