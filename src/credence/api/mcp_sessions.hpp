// The MCP endpoint's session table (MCP 2025-06-18 §Transports, Streamable HTTP §Session
// management): which session ids the server issued, with the protocol version each negotiated.
//
// Bounds (docs/api.md §MCP): a session idle longer than `idle_ttl` is forgotten (the client then
// gets 404 and initializes again, as the transport allows); one client (an IPv4 address, or an
// IPv6 /64, the block one host usually holds) keeps at most `max_per_client` sessions, its own
// least recently used one giving way to a new one; the table holds at most `max_total`, the least
// recently used session giving way. So a single client can only ever evict its own sessions.
//
// Thread-safety: every member may be called from many threads at once (one mutex).
// Ownership: values only.
#pragma once

#include <chrono>
#include <cstddef>
#include <list>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>

namespace credence::api {

struct McpSessionLimits {
    std::chrono::milliseconds idle_ttl{std::chrono::minutes(30)};
    size_t max_total = 4096;
    size_t max_per_client = 16;
};

class McpSessions {
public:
    explicit McpSessions(McpSessionLimits limits);

    /// A new session for `client_key`: 128 random bits as hex (visible ASCII, as the transport
    /// requires). May forget other sessions (see above).
    [[nodiscard]] std::string open(const std::string& client_key, std::string protocol_version);
    /// The session's protocol version, and marks it used now; nullopt when unknown or expired.
    [[nodiscard]] std::optional<std::string> use(const std::string& id);
    /// Ends a session; false when unknown or expired.
    bool end(const std::string& id);
    /// Live sessions (expired ones are dropped first).
    [[nodiscard]] size_t size();

private:
    using Clock = std::chrono::steady_clock;
    struct Entry {
        std::string protocol_version;
        std::string client_key;
        Clock::time_point last_used;
        std::list<std::string>::iterator lru;  ///< position in lru_
    };

    void drop(std::unordered_map<std::string, Entry>::iterator it);
    void expire(Clock::time_point now);

    McpSessionLimits limits_;
    std::mutex mutex_;
    std::unordered_map<std::string, Entry> sessions_;
    std::list<std::string> lru_;  ///< least recently used first
    std::unordered_map<std::string, size_t> per_client_;
    std::random_device entropy_;
};

}  // namespace credence::api
