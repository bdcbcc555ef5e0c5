// Serves RestApi + HttpServer over a benchmark index until SIGINT/SIGTERM (issue 7
// §Performance). No rate limit (the load generator is one IP).
//
//   api_bench_server <sqlite-file | postgresql://...> <port> [threads=16] [db_connections=0]
//
// threads >= the load generator's connections: cpp-httplib holds a worker per keep-alive
// connection (api/http_server.hpp). db_connections 0: RestApiOptions' choice by backend.
#include <csignal>
#include <cstdio>
#include <string>

#include <credence/api/http_server.hpp>
#include <credence/api/mcp_endpoint.hpp>
#include <credence/api/rest_api.hpp>

#include "api_bench_common.hpp"

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: api_bench_server <db> <port> [threads] [db_connections]\n");
        return 2;
    }
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // server threads inherit the mask

    const std::string location = argv[1];
    credence::api::RestApiOptions options;
    options.scope = credence::bench::bench_scope();
    options.open_database = [location] { return credence::index::open_database(location); };
    if (argc > 4) options.max_connections = std::stoul(argv[4]);
    credence::api::RestApi rest(std::move(options));
    credence::api::McpEndpoint mcp(rest, credence::api::McpOptions{});
    credence::api::HttpServerOptions server_options;
    server_options.port = static_cast<uint16_t>(std::stoul(argv[2]));
    server_options.threads = argc > 3 ? static_cast<unsigned>(std::stoul(argv[3])) : 16;
    server_options.rate_limit_per_second = 0;  // off: one load generator
    credence::api::HttpServer server(rest, mcp, server_options);
    if (auto started = server.start(); !started) {
        std::fprintf(stderr, "%s\n", started.error().c_str());
        return 1;
    }
    std::printf("serving on 127.0.0.1:%u\n", server.port());
    std::fflush(stdout);
    int received = 0;
    sigwait(&signals, &received);
    server.stop();
    return 0;
}
