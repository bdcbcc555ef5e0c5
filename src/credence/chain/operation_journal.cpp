#include <credence/chain/operation_journal.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <system_error>
#include <utility>

#include <nlohmann/json.hpp>

#include <credence/core/json_lenient.hpp>
#include <credence/core/keccak.hpp>

namespace credence::chain {

std::string_view to_string(JournalError e) noexcept {
    switch (e) {
        case JournalError::io:
            return "journal i/o error";
        case JournalError::corrupt:
            return "corrupt journal";
        case JournalError::operation_conflict:
            return "operationId conflict";
        case JournalError::rng:
            return "random number generator failed";
    }
    return "journal error";
}

std::string_view to_string(OperationStatus s) noexcept {
    switch (s) {
        case OperationStatus::pending:
            return "pending";
        case OperationStatus::sent:
            return "sent";
        case OperationStatus::mined:
            return "mined";
        case OperationStatus::reverted:
            return "reverted";
    }
    return "pending";
}

namespace {

constexpr size_t kChecksumHexDigits = 16;  // 8 bytes of keccak256

std::unexpected<JournalFailure> failure(JournalError code, std::string detail) {
    return std::unexpected(JournalFailure{code, std::move(detail)});
}

std::string journal_errno_text(int err) {
    return std::error_code(err, std::generic_category()).message();
}

std::string checksum_of(std::string_view json_text) {
    const core::Hash32 h = core::keccak256(json_text);
    return core::to_hex(core::ByteView(h.data(), kChecksumHexDigits / 2), false);
}

std::optional<OperationStatus> parse_status(std::string_view s) {
    for (auto st : {OperationStatus::pending, OperationStatus::sent, OperationStatus::mined,
                    OperationStatus::reverted}) {
        if (to_string(st) == s) return st;
    }
    return std::nullopt;
}

nlohmann::ordered_json hash_or_null(const std::optional<core::Hash32>& h) {
    return h ? nlohmann::ordered_json(core::to_hex(*h)) : nlohmann::ordered_json(nullptr);
}

// Field readers: nullopt on a missing field or a wrong shape.
std::optional<core::Hash32> journal_hash(const nlohmann::json& v) {
    if (!v.is_string()) return std::nullopt;
    auto r = core::from_hex_fixed<32>(v.get<std::string>());
    if (!r) return std::nullopt;
    return *r;
}

std::optional<core::Address> journal_address(const nlohmann::json& v) {
    if (!v.is_string()) return std::nullopt;
    auto r = core::Address::from_hex(v.get<std::string>(), core::ChecksumMode::ignore);
    if (!r) return std::nullopt;
    return *r;
}

/// Parses one record's JSON; the error is what is wrong with it.
std::expected<OperationEntry, std::string> parse_record(std::string_view json_text) {
    const auto doc = nlohmann::json::parse(json_text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) return std::unexpected("not a JSON object");
    auto field = [&](const char* name) -> const nlohmann::json& {
        return core::lenient::member(doc, name);
    };
    if (field("v") != 1) return std::unexpected("unsupported record version");
    OperationEntry e;
    const auto& chain_id = field("chainId");
    if (!chain_id.is_number_unsigned()) return std::unexpected("bad chainId");
    e.key.chain_id = chain_id.get<uint64_t>();
    auto workflow = journal_address(field("workflow"));
    auto replier = journal_address(field("replier"));
    auto run_id = journal_hash(field("runId"));
    auto content = journal_hash(field("contentHash"));
    auto op = journal_hash(field("operationId"));
    if (!workflow || !replier || !run_id || !content || !op)
        return std::unexpected("bad workflow, replier, runId, contentHash or operationId");
    e.key.workflow = *workflow;
    e.key.replier = *replier;
    e.key.run_id = *run_id;
    e.key.content_hash = *content;
    e.operation_id = *op;
    const auto& tasks = field("taskHashes");
    if (!tasks.is_array()) return std::unexpected("bad taskHashes");
    for (const auto& t : tasks) {
        auto h = journal_hash(t);
        if (!h) return std::unexpected("bad taskHashes");
        e.key.task_hashes.push_back(*h);
    }
    const auto& ts = field("timestamp");
    if (!ts.is_number_unsigned()) return std::unexpected("bad timestamp");
    e.timestamp = ts.get<uint64_t>();
    const auto& status = field("status");
    auto st = status.is_string() ? parse_status(status.get<std::string>()) : std::nullopt;
    if (!st) return std::unexpected("bad status");
    e.status = *st;
    for (auto [name, out] : {std::pair{"txnHash", &e.txn_hash}, {"replyHash", &e.reply_hash}}) {
        const auto& v = field(name);
        if (v.is_null()) continue;
        auto h = journal_hash(v);
        if (!h) return std::unexpected(std::string("bad ") + name);
        *out = *h;
    }
    const auto& block = field("blockNum");
    if (!block.is_null()) {
        if (!block.is_number_unsigned()) return std::unexpected("bad blockNum");
        e.block_num = block.get<uint64_t>();
    }
    const auto& error = field("error");
    if (!error.is_null()) {
        if (!error.is_string()) return std::unexpected("bad error");
        e.error = error.get<std::string>();
    }
    return e;
}

/// An open, exclusively locked journal file. Closing the descriptor releases the lock.
class LockedFile {
public:
    LockedFile() = default;
    LockedFile(const LockedFile&) = delete;
    LockedFile& operator=(const LockedFile&) = delete;
    ~LockedFile() {
        if (fd_ >= 0) ::close(fd_);
    }

    /// Opens (creating when `create`) and locks. A missing file without `create` is fd -1, ok.
    static JournalResult<void> open(LockedFile& out, const std::filesystem::path& path,
                                    bool create) {
        bool created = false;
        if (create) {
            std::error_code ec;
            std::filesystem::create_directories(path.parent_path(), ec);
            if (ec) {
                return failure(JournalError::io, "cannot create " + path.parent_path().string() +
                                                     ": " + ec.message());
            }
            out.fd_ = ::open(path.c_str(), O_RDWR | O_APPEND | O_CLOEXEC);
            if (out.fd_ < 0 && errno == ENOENT) {
                out.fd_ = ::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
                created = out.fd_ >= 0;
            }
        } else {
            out.fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
            if (out.fd_ < 0 && errno == ENOENT) return {};
        }
        if (out.fd_ < 0) {
            return failure(JournalError::io,
                           "cannot open " + path.string() + ": " + journal_errno_text(errno));
        }
        int rc = 0;
        do {
            rc = ::flock(out.fd_, create ? LOCK_EX : LOCK_SH);
        } while (rc != 0 && errno == EINTR);
        if (rc != 0) {
            return failure(JournalError::io,
                           "cannot lock " + path.string() + ": " + journal_errno_text(errno));
        }
        if (created) {
            // The new directory entry must survive a crash too, or a later fsync of the file
            // would protect data that no name points to.
            const int dir = ::open(path.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            if (dir < 0 || ::fsync(dir) != 0) {
                const int err = errno;
                if (dir >= 0) ::close(dir);
                return failure(JournalError::io, "cannot sync " + path.parent_path().string() +
                                                     ": " + journal_errno_text(err));
            }
            ::close(dir);
        }
        return {};
    }

    [[nodiscard]] int fd() const noexcept { return fd_; }

private:
    int fd_ = -1;
};

JournalResult<std::string> read_all(int fd, const std::filesystem::path& path) {
    std::string text;
    std::array<char, 8192> buf{};
    off_t offset = 0;
    for (;;) {
        const ssize_t n = ::pread(fd, buf.data(), buf.size(), offset);
        if (n < 0) {
            if (errno == EINTR) continue;
            return failure(JournalError::io,
                           "cannot read " + path.string() + ": " + journal_errno_text(errno));
        }
        if (n == 0) break;
        text.append(buf.data(), static_cast<size_t>(n));
        offset += n;
    }
    return text;
}

/// Every record of the file in order (not yet folded per operationId).
JournalResult<std::vector<OperationEntry>> parse_journal(std::string_view text,
                                                         const std::filesystem::path& path) {
    std::vector<OperationEntry> records;
    size_t line_no = 0;
    size_t pos = 0;
    while (pos < text.size()) {
        ++line_no;
        const size_t end = text.find('\n', pos);
        auto corrupt = [&](std::string_view why) {
            return failure(JournalError::corrupt,
                           path.string() + " line " + std::to_string(line_no) + ": " +
                               std::string(why) +
                               " (the journal keeps the operationIds of replies; repair or move "
                               "the file aside deliberately)");
        };
        if (end == std::string_view::npos) return corrupt("incomplete line (interrupted write?)");
        const std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        if (line.size() < kChecksumHexDigits + 2 || line[kChecksumHexDigits] != ' ')
            return corrupt("not a checksummed record");
        const std::string_view sum = line.substr(0, kChecksumHexDigits);
        const std::string_view json_text = line.substr(kChecksumHexDigits + 1);
        if (checksum_of(json_text) != sum) return corrupt("checksum mismatch");
        auto rec = parse_record(json_text);
        if (!rec) return corrupt(rec.error());
        records.push_back(std::move(*rec));
    }
    return records;
}

/// Latest snapshot per operationId, in order of first appearance.
std::vector<OperationEntry> fold(std::vector<OperationEntry> records) {
    std::vector<OperationEntry> out;
    std::map<core::Hash32, size_t> index;
    for (auto& r : records) {
        auto [it, inserted] = index.try_emplace(r.operation_id, out.size());
        if (inserted) {
            out.push_back(std::move(r));
        } else {
            out[it->second] = std::move(r);
        }
    }
    return out;
}

uint64_t now_unix() {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count());
}

JournalResult<void> append_line(int fd, const std::filesystem::path& path,
                                const OperationEntry& entry) {
    const std::string line = journal_line(entry, now_unix()) + "\n";
    // One write(2) of the whole line to an O_APPEND descriptor: readers never see a record
    // interleaved with another process's record (and the flock orders writers anyway).
    size_t done = 0;
    while (done < line.size()) {
        const ssize_t n = ::write(fd, line.data() + done, line.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            return failure(JournalError::io,
                           "cannot write " + path.string() + ": " + journal_errno_text(errno));
        }
        done += static_cast<size_t>(n);
    }
    if (::fsync(fd) != 0) {
        return failure(JournalError::io,
                       "cannot sync " + path.string() + ": " + journal_errno_text(errno));
    }
    return {};
}

}  // namespace

JournalResult<core::Hash32> random_operation_id() {
    core::Hash32 id{};
    for (;;) {
        size_t done = 0;
        while (done < id.size()) {
            const ssize_t n = ::getrandom(id.data() + done, id.size() - done, 0);
            if (n < 0) {
                if (errno == EINTR) continue;
                return failure(JournalError::rng, journal_errno_text(errno));
            }
            done += static_cast<size_t>(n);
        }
        // ERC-8301: operationId MUST be non-zero (probability 2^-256, but the rule is a rule).
        for (uint8_t b : id) {
            if (b != 0) return id;
        }
    }
}

std::filesystem::path journal_path(const std::filesystem::path& home) {
    return home / "journal" / "operations.jsonl";
}

std::string journal_line(const OperationEntry& e, uint64_t recorded_at) {
    nlohmann::ordered_json tasks = nlohmann::ordered_json::array();
    for (const auto& t : e.key.task_hashes) tasks.push_back(core::to_hex(t));
    nlohmann::ordered_json j;
    j["v"] = 1;
    j["chainId"] = e.key.chain_id;
    j["workflow"] = e.key.workflow.to_checksum_hex();
    j["runId"] = core::to_hex(e.key.run_id);
    j["taskHashes"] = std::move(tasks);
    j["replier"] = e.key.replier.to_checksum_hex();
    j["contentHash"] = core::to_hex(e.key.content_hash);
    j["operationId"] = core::to_hex(e.operation_id);
    j["timestamp"] = e.timestamp;
    j["status"] = std::string(to_string(e.status));
    j["txnHash"] = hash_or_null(e.txn_hash);
    j["replyHash"] = hash_or_null(e.reply_hash);
    j["blockNum"] = e.block_num ? nlohmann::ordered_json(*e.block_num) : nullptr;
    j["error"] = e.error ? nlohmann::ordered_json(*e.error) : nullptr;
    j["recordedAt"] = recorded_at;
    // ensure_ascii: the line stays one line of ASCII whatever an error message holds.
    const std::string json_text = j.dump(-1, ' ', true);
    return checksum_of(json_text) + " " + json_text;
}

JournalResult<BeginResult> OperationJournal::begin(const OperationKey& key,
                                                   const BeginOptions& options) {
    LockedFile file;
    if (auto r = LockedFile::open(file, path_, true); !r) return std::unexpected(r.error());
    auto text = read_all(file.fd(), path_);
    if (!text) return std::unexpected(text.error());
    auto records = parse_journal(*text, path_);
    if (!records) return std::unexpected(records.error());
    const auto entries = fold(std::move(*records));

    if (options.operation_id) {
        for (const auto& e : entries) {
            if (e.operation_id != *options.operation_id) continue;
            const bool same_scope = e.key.chain_id == key.chain_id &&
                                    e.key.workflow == key.workflow && e.key.run_id == key.run_id &&
                                    e.key.replier == key.replier;
            if (!same_scope) continue;  // on-chain scope is (run, replier): no conflict
            if (e.key == key) return BeginResult{e, true};
            // ERC-8301 §onAgentReply step 1: reusing an operationId for different output or task
            // context is a conflict, not a retry; the contract would revert OperationConflict.
            return failure(JournalError::operation_conflict,
                           "operationId " + core::to_hex(e.operation_id) +
                               " was already used in run " + core::to_hex(key.run_id) +
                               " for different content (journal " + path_.string() + ")");
        }
    } else if (!options.new_operation) {
        // The newest operation of this key: a re-run of the same command is its retry.
        for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
            if (it->key == key) return BeginResult{*it, true};
        }
    }

    OperationEntry entry;
    entry.key = key;
    if (options.operation_id) {
        entry.operation_id = *options.operation_id;
    } else {
        auto id = random_operation_id();
        if (!id) return std::unexpected(id.error());
        entry.operation_id = *id;
    }
    entry.timestamp = options.timestamp;
    entry.status = OperationStatus::pending;
    if (auto r = append_line(file.fd(), path_, entry); !r) return std::unexpected(r.error());
    return BeginResult{std::move(entry), false};
}

JournalResult<void> OperationJournal::record(const OperationEntry& entry) {
    LockedFile file;
    if (auto r = LockedFile::open(file, path_, true); !r) return std::unexpected(r.error());
    return append_line(file.fd(), path_, entry);
}

JournalResult<std::vector<OperationEntry>> OperationJournal::entries() const {
    LockedFile file;
    if (auto r = LockedFile::open(file, path_, false); !r) return std::unexpected(r.error());
    if (file.fd() < 0) return std::vector<OperationEntry>{};
    auto text = read_all(file.fd(), path_);
    if (!text) return std::unexpected(text.error());
    auto records = parse_journal(*text, path_);
    if (!records) return std::unexpected(records.error());
    return fold(std::move(*records));
}

}  // namespace credence::chain
