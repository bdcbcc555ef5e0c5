#include "docs/doc_script.hpp"

namespace credence::docs {
namespace {

/// `text` as one single-quoted shell word.
std::string quoted(const std::string& text) {
    std::string out = "'";
    for (const char c : text) {
        if (c == '\'') {
            out += "'\\''";
        } else {
            out.push_back(c);
        }
    }
    return out + "'";
}

/// A here-document terminator that no line of `text` equals.
std::string terminator_for(const std::string& text, size_t index) {
    std::string word = "DOC_TEST_EOF_" + std::to_string(index);
    while (text.find(word) != std::string::npos) word += "_";
    return word;
}

// Job control gives every background job a process group of its own, so one signal reaches all
// of its processes; the EXIT trap stops them and waits, as Ctrl-C in their terminals would.
constexpr const char* kPrelude = R"(set -m
doc_test_stop_jobs() {
    local pids
    pids=$(jobs -p)
    for p in $pids; do kill -TERM -- "-$p" 2>/dev/null || kill -TERM "$p" 2>/dev/null || true; done
    for p in $pids; do wait "$p" 2>/dev/null || true; done
}
trap doc_test_stop_jobs EXIT
doc_test_wait_for() {  # LOG TEXT SECONDS PID
    local tenths=0
    until grep -qF -- "$2" "$1" 2>/dev/null; do
        if ! kill -0 "$4" 2>/dev/null; then
            echo "doc-test: the background block ended before printing \"$2\"" >&2
            return 1
        fi
        tenths=$((tenths + 1))
        if [ "$tenths" -gt $(($3 * 10)) ]; then
            echo "doc-test: no \"$2\" from the background block within $3 s" >&2
            return 1
        fi
        sleep 0.1
    done
}
)";

}  // namespace

std::string doc_script(const std::vector<DocBlock>& blocks) {
    std::string s = kPrelude;
    for (size_t i = 0; i < blocks.size(); ++i) {
        const DocBlock& b = blocks[i];
        if (b.mode == BlockMode::show || b.mode == BlockMode::skip) continue;
        s += "echo " + std::to_string(i) + " > \"$DOC_TEST_STATE\"\n";
        switch (b.mode) {
            case BlockMode::run:
                s += b.text;
                break;
            case BlockMode::fails:
                s += "if (\n" + b.text +
                     "); then echo 'doc-test: this example of an error exited 0' >&2; exit 1; fi\n";
                break;
            case BlockMode::background: {
                const std::string log =
                    "\"$DOC_TEST_DIR/background-" + std::to_string(i) + ".log\"";
                s += "(\n" + b.text + ") > " + log + " 2>&1 &\n";
                s += "doc_test_wait_for " + log + " " + quoted(b.argument) + " " +
                     std::to_string(kBackgroundReadySeconds) + " $!\n";
                break;
            }
            case BlockMode::file: {
                const std::string end = terminator_for(b.text, i);
                s += "cat > " + quoted(b.argument) + " <<'" + end + "'\n" + b.text + end + "\n";
                break;
            }
            case BlockMode::show:
            case BlockMode::skip:
                break;
        }
    }
    return s;
}

}  // namespace credence::docs
