#include <credence/api/mcp_sessions.hpp>

#include <algorithm>

#include <fmt/format.h>

namespace credence::api {

McpSessions::McpSessions(McpSessionLimits limits) : limits_(limits) {
    limits_.max_total = std::max<size_t>(1, limits_.max_total);
    limits_.max_per_client = std::max<size_t>(1, limits_.max_per_client);
}

void McpSessions::drop(std::unordered_map<std::string, Entry>::iterator it) {
    if (auto count = per_client_.find(it->second.client_key); count != per_client_.end()) {
        if (--count->second == 0) per_client_.erase(count);
    }
    lru_.erase(it->second.lru);
    sessions_.erase(it);
}

void McpSessions::expire(Clock::time_point now) {
    while (!lru_.empty()) {
        const auto it = sessions_.find(lru_.front());
        if (now - it->second.last_used <= limits_.idle_ttl) break;
        drop(it);
    }
}

std::string McpSessions::open(const std::string& client_key, std::string protocol_version) {
    const auto now = Clock::now();
    const std::lock_guard lock(mutex_);
    expire(now);
    if (per_client_[client_key] >= limits_.max_per_client) {
        // The client's own least recently used session gives way, nobody else's.
        const auto own = std::ranges::find_if(
            lru_, [&](const std::string& id) { return sessions_.at(id).client_key == client_key; });
        if (own != lru_.end()) drop(sessions_.find(*own));
    }
    if (sessions_.size() >= limits_.max_total) drop(sessions_.find(lru_.front()));
    std::string id;
    do {
        id.clear();
        for (int i = 0; i < 4; ++i) id += fmt::format("{:08x}", entropy_());
    } while (sessions_.contains(id));
    lru_.push_back(id);
    sessions_.emplace(id,
                      Entry{std::move(protocol_version), client_key, now, std::prev(lru_.end())});
    ++per_client_[client_key];
    return id;
}

std::optional<std::string> McpSessions::use(const std::string& id) {
    const auto now = Clock::now();
    const std::lock_guard lock(mutex_);
    expire(now);
    const auto it = sessions_.find(id);
    if (it == sessions_.end()) return std::nullopt;
    it->second.last_used = now;
    lru_.splice(lru_.end(), lru_, it->second.lru);
    return it->second.protocol_version;
}

bool McpSessions::end(const std::string& id) {
    const std::lock_guard lock(mutex_);
    expire(Clock::now());
    const auto it = sessions_.find(id);
    if (it == sessions_.end()) return false;
    drop(it);
    return true;
}

size_t McpSessions::size() {
    const std::lock_guard lock(mutex_);
    expire(Clock::now());
    return sessions_.size();
}

}  // namespace credence::api
