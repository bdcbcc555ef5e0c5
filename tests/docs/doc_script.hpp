// One bash script that runs a document's blocks in order, as a reader would in one terminal:
// variables and the working directory carry from block to block, background blocks run as jobs
// of their own (a second terminal), and every job is stopped with SIGTERM when the script ends.
//
// Before each block the script writes the block's index to $DOC_TEST_STATE, so when it stops the
// runner can say which block failed. Background blocks log to $DOC_TEST_DIR/background-<i>.log.
#pragma once

#include <string>
#include <vector>

#include "docs/doc_blocks.hpp"

namespace credence::docs {

/// Seconds a background block may take to print its `until` text.
inline constexpr int kBackgroundReadySeconds = 300;

/// The script of `blocks` (parse_doc_blocks), for `bash -e -o pipefail`.
[[nodiscard]] std::string doc_script(const std::vector<DocBlock>& blocks);

}  // namespace credence::docs
