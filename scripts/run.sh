#!/usr/bin/env bash
# make run: install, build, and start the main job on the embedded default.
# Until `credence node` exists this shows the CLI at work on real inputs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh release
credence=build/release/src/credence/credence
set -x
$credence --help
$credence util keccak "giveFeedback(uint256,int128,uint8,string,string,string,string,bytes32)"
