#include <credence/agent/runtime.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

namespace credence::agent {

std::string_view to_string(AgentError e) noexcept {
    switch (e) {
        case AgentError::rpc:
            return "rpc";
        case AgentError::abi:
            return "abi";
        case AgentError::journal:
            return "journal";
        case AgentError::state:
            return "state";
        case AgentError::config:
            return "config";
    }
    return "unknown";
}

namespace detail {

std::unexpected<AgentFailure> fail(AgentError code, std::string detail) {
    return std::unexpected(AgentFailure{code, std::move(detail)});
}

AgentResult<void> Cursor::load() {
    auto text = read_file(file_);
    if (!text) return std::unexpected(text.error());
    const std::optional<std::string>& content = *text;
    if (!content) return {};
    try {
        const auto j = nlohmann::json::parse(*content);
        block_ = j.at("block").get<uint64_t>();
        auto h = core::from_hex_fixed<32>(j.at("hash").get<std::string>());
        if (!h) return fail(AgentError::state, fmt::format("{}: bad hash", file_.string()));
        hash_ = *h;
    } catch (const std::exception& e) {
        return fail(AgentError::state, fmt::format("{}: {}", file_.string(), e.what()));
    }
    return {};
}

AgentResult<void> Cursor::save(uint64_t block, const core::Hash32& hash) {
    const std::string text =
        nlohmann::json{{"block", block}, {"hash", core::to_hex(hash)}}.dump() + "\n";
    if (auto r = write_file_durably(file_, text); !r) return r;
    block_ = block;
    hash_ = hash;
    return {};
}

void Cursor::rewind(uint64_t depth) noexcept {
    if (!block_) return;
    if (*block_ < start_block_ + depth) {
        block_.reset();
    } else {
        *block_ -= depth;
    }
    hash_ = {};
}

AgentResult<chain::Block> latest_block(chain::RpcClient& rpc) {
    auto b = rpc.get_block_by_number(chain::BlockId::latest());
    if (!b)
        return fail(AgentError::rpc,
                    fmt::format("eth_getBlockByNumber: {}", b.error().to_string()));
    std::optional<chain::Block>& block = *b;
    if (!block) return fail(AgentError::rpc, "eth_getBlockByNumber: no latest block");
    return std::move(*block);
}

AgentResult<LogBatch> read_logs(chain::RpcClient& rpc, Cursor& cursor, const core::Address& address,
                                const std::vector<chain::TopicFilter>& topics,
                                uint64_t confirmations, uint64_t max_range, uint64_t reorg_depth) {
    LogBatch batch;
    // Reorg check: the block the cursor stopped at must still be the canonical one.
    if (const std::optional<uint64_t> at = cursor.block(); at && cursor.hash() != core::Hash32{}) {
        auto b = rpc.get_block_by_number(chain::BlockId(*at));
        if (!b)
            return fail(AgentError::rpc,
                        fmt::format("eth_getBlockByNumber: {}", b.error().to_string()));
        const std::optional<chain::Block>& block = *b;
        if (!block || block->hash != cursor.hash()) {
            cursor.rewind(reorg_depth);
            batch.reorged = true;
        }
    }
    auto head = rpc.block_number();
    if (!head)
        return fail(AgentError::rpc, fmt::format("eth_blockNumber: {}", head.error().to_string()));
    batch.head = *head;
    if (*head < confirmations) return batch;
    const uint64_t target = *head - confirmations;
    uint64_t from = cursor.next();
    if (from > target) return batch;
    batch.empty_range = false;
    while (from <= target) {
        const uint64_t to = std::min(target, from + std::max<uint64_t>(max_range, 1) - 1);
        chain::LogFilter filter;
        filter.from_block = chain::BlockId(from);
        filter.to_block = chain::BlockId(to);
        filter.addresses = {address};
        filter.topics = topics;
        auto logs = rpc.get_logs(filter);
        if (!logs)
            return fail(AgentError::rpc, fmt::format("eth_getLogs: {}", logs.error().to_string()));
        for (auto& l : *logs)
            if (!l.removed) batch.logs.push_back(std::move(l));
        from = to + 1;
    }
    auto b = rpc.get_block_by_number(chain::BlockId(target));
    if (!b)
        return fail(AgentError::rpc,
                    fmt::format("eth_getBlockByNumber: {}", b.error().to_string()));
    batch.to_block = target;
    if (const std::optional<chain::Block>& block = *b; block) batch.to_hash = block->hash;
    return batch;
}

std::unexpected<AgentFailure> call_failed(const chain::CallError& error) {
    const bool abi = error.kind == chain::CallErrorKind::encoding ||
                     error.kind == chain::CallErrorKind::bad_answer;
    return fail(abi ? AgentError::abi : AgentError::rpc, error.message());
}

bool sleep_for(const std::stop_token& stop, std::chrono::milliseconds d) {
    std::mutex m;
    std::condition_variable_any cv;
    std::unique_lock lock(m);
    return !cv.wait_for(lock, stop, d, [] { return false; }) && !stop.stop_requested();
}

AgentResult<void> write_file_durably(const std::filesystem::path& path, std::string_view content) {
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec)
        return fail(AgentError::state,
                    fmt::format("{}: {}", path.parent_path().string(), ec.message()));
    const std::filesystem::path tmp = path.string() + ".tmp";
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return fail(AgentError::state, fmt::format("{}: cannot create", tmp.string()));
    size_t done = 0;
    while (done < content.size()) {
        const ssize_t w = ::write(fd, content.data() + done, content.size() - done);
        if (w <= 0) {
            ::close(fd);
            return fail(AgentError::state, fmt::format("{}: write failed", tmp.string()));
        }
        done += static_cast<size_t>(w);
    }
    const bool synced = ::fsync(fd) == 0;
    ::close(fd);
    if (!synced) return fail(AgentError::state, fmt::format("{}: fsync failed", tmp.string()));
    std::filesystem::rename(tmp, path, ec);
    if (ec) return fail(AgentError::state, fmt::format("{}: {}", path.string(), ec.message()));
    const int dir = ::open(path.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
        (void)::fsync(dir);
        ::close(dir);
    }
    return {};
}

AgentResult<std::optional<std::string>> read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::error_code ec;
        if (!std::filesystem::exists(path, ec)) return std::optional<std::string>{};
        return fail(AgentError::state, fmt::format("{}: cannot read", path.string()));
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    return std::optional<std::string>{ss.str()};
}

}  // namespace detail
}  // namespace credence::agent
