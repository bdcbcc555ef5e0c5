// The node's request path end to end (docs/node.md §HTTP server): arbitrary bytes are written to a
// real api::HttpServer on loopback (the real RestApi and McpEndpoint over an empty SQLite index),
// the sending side is closed, and whatever comes back is read until the server closes.
// Properties: nothing crashes (ASan + UBSan, in the server's threads too); every answer is an
// HTTP/1.1 status line; the first answer is not a 5xx; the server closes every connection in time.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <source_location>
#include <string>
#include <string_view>

#include <credence/api/http_server.hpp>
#include <credence/api/mcp_endpoint.hpp>
#include <credence/api/rest_api.hpp>
#include <credence/index/database.hpp>
#include <credence/index/store.hpp>

namespace {

using namespace credence;

// A failed property names itself and what the server answered, since a finding that depends on
// the server's state may not reproduce from its input alone.
void check(bool condition, std::string_view answer = {},
           std::source_location where = std::source_location::current()) {
    if (condition) return;
    std::fprintf(stderr, "api_http_fuzz: property at line %u failed; answer (%zu bytes): %.*s\n",
                 static_cast<unsigned>(where.line()), answer.size(),
                 static_cast<int>(std::min<size_t>(answer.size(), 200)), answer.data());
    std::abort();
}

struct Node {
    std::unique_ptr<api::RestApi> rest;
    std::unique_ptr<api::McpEndpoint> mcp;
    std::unique_ptr<api::HttpServer> server;
};

Node& node() {
    static Node n = [] {
        Node out;
        const auto path = std::filesystem::temp_directory_path() /
                          ("credence_http_fuzz_" + std::to_string(::getpid()) + ".sqlite");
        std::filesystem::remove(path);
        auto db = index::open_sqlite(path);
        check(db.has_value() && index::IndexStore::open(**db).has_value());
        api::RestApiOptions rest;
        rest.scope.chain_id = 31337;
        rest.open_database = [path] { return index::open_sqlite(path); };
        out.rest = std::make_unique<api::RestApi>(std::move(rest));
        out.mcp =
            std::make_unique<api::McpEndpoint>(*out.rest, api::McpOptions{"credence", "fuzz"});
        api::HttpServerOptions options;
        options.port = 0;
        options.threads = 2;
        options.rate_limit_per_second = 0;
        options.idle_timeout = std::chrono::milliseconds(500);
        options.header_timeout = std::chrono::milliseconds(500);
        options.body_timeout = std::chrono::milliseconds(500);
        out.server = std::make_unique<api::HttpServer>(*out.rest, *out.mcp, options);
        check(out.server->start().has_value());
        return out;
    }();
    return n;
}

// A connection to the server. libFuzzer's timeout timer (SIGALRM) interrupts blocking calls, so
// EINTR means try again. A long run opens about 600 loopback connections a second; when the kernel
// has no local port free for one (EADDRNOTAVAIL), that is this harness's limit, not the server's,
// so it waits for ports to come free rather than report a finding.
int connect_to(uint16_t port) {
    sockaddr_in server{};
    server.sin_family = AF_INET;
    server.sin_port = htons(port);
    server.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    for (int attempt = 0;; ++attempt) {
        const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        check(fd >= 0);
        if (::connect(fd, reinterpret_cast<const sockaddr*>(&server), sizeof server) == 0)
            return fd;
        const int error = errno;
        ::close(fd);
        if ((error != EINTR && error != EADDRNOTAVAIL) || attempt == 600) {
            std::fprintf(stderr, "api_http_fuzz: connect: %s (attempt %d)\n", std::strerror(error),
                         attempt);
            std::abort();
        }
        if (error == EADDRNOTAVAIL) ::usleep(50'000);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const uint16_t port = node().server->port();
    const int fd = connect_to(port);
    size_t sent = 0;
    while (sent < size) {
        const ssize_t n = ::send(fd, data + sent, size - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;  // the server refused and closed: fine
        sent += static_cast<size_t>(n);
    }
    ::shutdown(fd, SHUT_WR);
    std::string answer;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    char chunk[8192];
    while (true) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                              deadline - std::chrono::steady_clock::now())
                              .count();
        check(left > 0, answer);  // the server must close within its deadlines
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(left)) <= 0) continue;
        const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        answer.append(chunk, static_cast<size_t>(n));
    }
    // Closed with a reset: shutdown() made this side the first to close, and the TIME_WAIT it
    // would keep for a minute holds a local port.
    const linger reset{1, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
    ::close(fd);
    // The first answer is an HTTP/1.1 status line and not a 5xx (later pipelined answers are
    // not parsed: a HEAD's has no body, so they cannot be split without the requests).
    if (!answer.empty()) {
        check(answer.size() >= 12 && std::string_view(answer).starts_with("HTTP/1.1 "), answer);
        check(answer[9] >= '1' && answer[9] <= '4', answer);
    }
    return 0;
}
