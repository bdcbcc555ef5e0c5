// The WebSocket client and eth_subscribe against a real anvil (which serves WebSocket JSON-RPC on
// its HTTP port), and the client's behaviour towards servers that do what anvil never does
// (ping us, close on us, break the protocol, refuse the upgrade, serve TLS) on real loopback
// sockets: a one-connection server written here with the frame codec in server role, an
// HTTP-only JSON-RPC server, and the HTTPS test server.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include <fmt/core.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <credence/chain/log_subscription.hpp>
#include <credence/chain/rpc_client.hpp>
#include <credence/chain/rpc_codec.hpp>
#include <credence/chain/websocket_client.hpp>
#include <credence/core/keccak.hpp>

#include "support/anvil.hpp"
#include "support/fault_rpc_server.hpp"
#include "support/https_server.hpp"

namespace credence::chain {
namespace {

using core::Bytes;
using core::literals::operator""_hex;
using nlohmann::json;
using std::chrono::milliseconds;

std::string ws_url_of(const std::string& http_url) { return websocket_url_for(http_url).value(); }

class ChainWebSocketAnvil : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        auto started = credence::testing::AnvilProcess::start({});
        ASSERT_TRUE(started) << started.error();
        anvil_ = std::move(*started).release();
    }
    static void TearDownTestSuite() {
        delete anvil_;
        anvil_ = nullptr;
    }
    void SetUp() override { ASSERT_NE(anvil_, nullptr); }

    static std::string ws_url() { return ws_url_of(anvil_->url()); }

    // eth_sendTransaction from anvil's unlocked dev account 0; the mined receipt.
    static Receipt send(const std::optional<core::Address>& to, const Bytes& data) {
        auto rpc = RpcClient::make_http(anvil_->url());
        json txn{{"from", credence::testing::kAnvilDevAddresses[0]},
                 {"data", core::to_hex(data)},
                 {"gas", "0x493e0"}};
        if (to) txn["to"] = to->to_lower_hex();
        auto hash = rpc.request("eth_sendTransaction", json::array({txn}));
        EXPECT_TRUE(hash) << hash.error().to_string();
        const auto h = read_hash(hash.value_or(json()));
        for (int i = 0; h && i < 250; ++i) {
            auto r = rpc.get_transaction_receipt(*h);
            if (r && r->has_value()) return **r;
            std::this_thread::sleep_for(milliseconds(20));
        }
        ADD_FAILURE() << "no receipt";
        return {};
    }

    static core::Hash32 ping_topic() { return core::keccak256(std::string_view("Ping()")); }

    // A contract whose every call emits LOG1(word 42, keccak256("Ping()")).
    static core::Address deploy_pinger() {
        Bytes runtime = "602a600052"_hex;  // MSTORE(0, 42)
        runtime.push_back(0x7f);           // PUSH32 topic
        const auto topic = ping_topic();
        runtime.insert(runtime.end(), topic.begin(), topic.end());
        for (const uint8_t b : "60206000a100"_hex) runtime.push_back(b);  // LOG1(0, 32), STOP
        const auto len = static_cast<uint8_t>(runtime.size());
        // CODECOPY the runtime after this 12-byte prelude and RETURN it.
        Bytes init{0x60, len, 0x60, 12, 0x60, 0x00, 0x39, 0x60, len, 0x60, 0x00, 0xf3};
        init.insert(init.end(), runtime.begin(), runtime.end());
        const auto r = send(std::nullopt, init);
        EXPECT_TRUE(r.contract_address);
        return r.contract_address.value_or(core::Address{});
    }

    static credence::testing::AnvilProcess* anvil_;
};

credence::testing::AnvilProcess* ChainWebSocketAnvil::anvil_ = nullptr;
using chain_websocket_anvil = ChainWebSocketAnvil;  // NOLINT(readability-identifier-naming)

TEST_F(chain_websocket_anvil, new_heads_notification_after_evm_mine) {
    auto sub = LogSubscription::open(ws_url(), SubscriptionFilter::new_heads());
    ASSERT_TRUE(sub) << sub.error().detail;
    EXPECT_FALSE((*sub)->id().empty());
    auto rpc = RpcClient::make_http(anvil_->url());
    ASSERT_TRUE(rpc.request("evm_mine"));
    const auto head = rpc.get_block_by_number(BlockId::latest());
    ASSERT_TRUE(head && head->has_value());
    auto event = (*sub)->next(milliseconds(5'000));
    ASSERT_TRUE(event) << event.error().detail;
    ASSERT_TRUE(*event) << "no newHeads notification within 5 s";
    EXPECT_EQ((*event)->block_num, (*head)->number);
    EXPECT_EQ((*event)->block_hash, (*head)->hash);
    EXPECT_FALSE((*event)->log);
    // eth_unsubscribe: the node removes it (true), then the close handshake.
    auto gone = (*sub)->unsubscribe();
    ASSERT_TRUE(gone) << gone.error().detail;
    EXPECT_TRUE(*gone);
}

TEST_F(chain_websocket_anvil, logs_notification_matches_the_filter_only) {
    const core::Address pinger = deploy_pinger();
    auto matching = LogSubscription::open(
        ws_url(), SubscriptionFilter::logs({pinger}, {std::vector<core::Hash32>{ping_topic()}}));
    ASSERT_TRUE(matching) << matching.error().detail;
    const auto other_topic = core::keccak256(std::string_view("Pong()"));
    auto other = LogSubscription::open(
        ws_url(), SubscriptionFilter::logs({pinger}, {std::vector<core::Hash32>{other_topic}}));
    ASSERT_TRUE(other) << other.error().detail;

    const Receipt receipt = send(pinger, {});
    ASSERT_TRUE(receipt.status);
    auto event = (*matching)->next(milliseconds(5'000));
    ASSERT_TRUE(event) << event.error().detail;
    ASSERT_TRUE(*event) << "no log notification within 5 s";
    ASSERT_TRUE((*event)->log);
    const Log& log = *(*event)->log;
    EXPECT_EQ(log.address, pinger);
    ASSERT_EQ(log.topics.size(), 1u);
    EXPECT_EQ(log.topics[0], ping_topic());
    EXPECT_EQ(log.data, "000000000000000000000000000000000000000000000000000000000000002a"_hex);
    EXPECT_EQ(log.block_num, receipt.block_num);
    EXPECT_EQ(log.txn_hash, receipt.txn_hash);
    // The other topic saw nothing.
    auto none = (*other)->next(milliseconds(500));
    ASSERT_TRUE(none) << none.error().detail;
    EXPECT_FALSE(*none);
    // After eth_unsubscribe no more notifications: a second call's log reaches only `other`'s
    // connection, which still filters it out, and the unsubscribed one is closed.
    auto gone = (*matching)->unsubscribe();
    ASSERT_TRUE(gone) << gone.error().detail;
    EXPECT_TRUE(*gone);
    EXPECT_FALSE((*matching)->next(milliseconds(100)));
}

TEST_F(chain_websocket_anvil, ping_is_answered_by_the_node) {
    auto sub = LogSubscription::open(ws_url(), SubscriptionFilter::new_heads());
    ASSERT_TRUE(sub) << sub.error().detail;
    const auto before = (*sub)->last_activity();
    std::this_thread::sleep_for(milliseconds(20));
    ASSERT_TRUE((*sub)->ping());
    auto event = (*sub)->next(milliseconds(1'000));  // the pong is consumed, no event
    ASSERT_TRUE(event) << event.error().detail;
    EXPECT_GT((*sub)->last_activity(), before);
}

TEST_F(chain_websocket_anvil, unknown_subscription_kind_is_an_rpc_error) {
    auto client = WebSocketClient::connect(ws_url());
    ASSERT_TRUE(client) << client.error().detail;
    ASSERT_TRUE((*client)->send_text(
        R"({"jsonrpc":"2.0","id":7,"method":"eth_subscribe","params":["bogusKind"]})"));
    auto m = (*client)->receive(milliseconds(5'000));
    ASSERT_TRUE(m && *m);
    const json answer = json::parse(std::string((*m)->payload.begin(), (*m)->payload.end()));
    EXPECT_EQ(answer["id"], 7);
    EXPECT_TRUE(answer.contains("error")) << answer.dump();
    (*client)->close();
}

TEST(chain_websocket_client, connection_refused_is_a_connect_error) {
    const uint16_t port = credence::testing::pick_free_port();
    auto c = WebSocketClient::connect(fmt::format("ws://127.0.0.1:{}", port));
    ASSERT_FALSE(c);
    EXPECT_EQ(c.error().code, WsError::connect) << c.error().detail;
}

TEST(chain_websocket_client, http_only_node_refuses_the_upgrade) {
    // A JSON-RPC node over HTTP only: the GET upgrade is not answered with 101.
    credence::testing::FaultRpcServer server([](const json& req, httplib::Response& res) {
        res.set_content(json{{"jsonrpc", "2.0"}, {"id", req["id"]}, {"result", "0x1"}}.dump(),
                        "application/json");
    });
    auto c = WebSocketClient::connect(ws_url_of(server.url()));
    ASSERT_FALSE(c);
    EXPECT_EQ(c.error().code, WsError::handshake) << c.error().detail;
    EXPECT_NE(c.error().detail.find("refused the upgrade"), std::string::npos) << c.error().detail;
}

TEST(chain_websocket_client, wss_verifies_the_certificate) {
    credence::testing::HttpsServer server({"ws.test"});
    const std::string url = fmt::format("wss://127.0.0.1:{}/", server.port());
    // Without the test CA the certificate does not verify.
    auto c = WebSocketClient::connect(url);
    ASSERT_FALSE(c);
    EXPECT_EQ(c.error().code, WsError::tls) << c.error().detail;
    // With it, TLS completes (the certificate names 127.0.0.1) and the HTTPS server, which
    // speaks no WebSocket, refuses the upgrade: the request went through the TLS session.
    WsClientOptions options;
    options.ca_file = server.ca_file();
    c = WebSocketClient::connect(url, options);
    ASSERT_FALSE(c);
    EXPECT_EQ(c.error().code, WsError::handshake) << c.error().detail;
}

// One WebSocket connection on 127.0.0.1, served by `script` after a correct upgrade. The script
// gets the socket and a decoder of the client's (masked) frames.
class OneShotWsServer {
public:
    using Script = std::function<void(int fd, MessageDecoder& client_frames)>;
    explicit OneShotWsServer(Script script) : script_(std::move(script)) {
        listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the sockets API
        EXPECT_EQ(::bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
        EXPECT_EQ(::listen(listener_, 1), 0);
        socklen_t len = sizeof addr;
        // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the sockets API
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len);
        port_ = ntohs(addr.sin_port);
        thread_ = std::thread([this] { serve(); });
    }
    ~OneShotWsServer() {
        ::shutdown(listener_, SHUT_RDWR);
        if (thread_.joinable()) thread_.join();
        ::close(listener_);
    }
    /// Waits until the script has run (its results are then safe to read).
    void wait() { thread_.join(); }
    OneShotWsServer(const OneShotWsServer&) = delete;
    OneShotWsServer& operator=(const OneShotWsServer&) = delete;

    [[nodiscard]] std::string url() const { return fmt::format("ws://127.0.0.1:{}/", port_); }

    static void write(int fd, const Bytes& bytes) {
        ASSERT_EQ(::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL),
                  static_cast<ssize_t>(bytes.size()));
    }
    // The client's next message (masked frames, §5.1), or nullopt on EOF.
    static std::optional<WsMessage> read(int fd, MessageDecoder& d) {
        std::array<uint8_t, 4096> buf{};
        while (true) {
            auto m = d.next();
            EXPECT_TRUE(m) << m.error().detail;
            if (!m) return std::nullopt;
            if (*m) return std::move(**m);
            const ssize_t n = ::recv(fd, buf.data(), buf.size(), 0);
            if (n <= 0) return std::nullopt;
            d.feed(core::ByteView(buf.data(), static_cast<size_t>(n)));
        }
    }

private:
    void serve() {
        const int fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) return;
        std::string request;
        std::array<char, 4096> buf{};
        while (request.find("\r\n\r\n") == std::string::npos) {
            const ssize_t n = ::recv(fd, buf.data(), buf.size(), 0);
            if (n <= 0) break;
            request.append(buf.data(), static_cast<size_t>(n));
        }
        const std::string marker = "Sec-WebSocket-Key: ";
        const size_t at = request.find(marker);
        const std::string key =
            at == std::string::npos
                ? std::string()
                : request.substr(at + marker.size(), request.find("\r\n", at) - at - marker.size());
        const std::string answer =
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Accept: " +
            websocket_accept(key) + "\r\n\r\n";
        write(fd, Bytes(answer.begin(), answer.end()));
        MessageDecoder d(WsSender::client);
        script_(fd, d);
        ::close(fd);
    }

    Script script_;
    int listener_ = -1;
    uint16_t port_ = 0;
    std::thread thread_;
};

TEST(chain_websocket_client, answers_ping_with_pong_of_the_same_payload) {
    std::optional<WsMessage> pong;
    std::optional<WsMessage> text;
    OneShotWsServer server([&](int fd, MessageDecoder& d) {
        // §5.5.2 / §5.5.3: a ping, then a text message; the client pongs the same payload.
        OneShotWsServer::write(fd, encode_server_frame(WsOpcode::ping, "cafe"_hex));
        OneShotWsServer::write(
            fd, encode_server_frame(WsOpcode::text, core::as_bytes(std::string_view("hi"))));
        pong = OneShotWsServer::read(fd, d);
        text = OneShotWsServer::read(fd, d);
    });
    auto c = WebSocketClient::connect(server.url());
    ASSERT_TRUE(c) << c.error().detail;
    auto m = (*c)->receive(milliseconds(2'000));
    ASSERT_TRUE(m && *m);
    EXPECT_EQ((*m)->opcode, WsOpcode::text);
    EXPECT_EQ((*c)->pongs_sent(), 1u);
    ASSERT_TRUE((*c)->send_text("back"));
    (*c)->close();
    server.wait();
    ASSERT_TRUE(pong);
    EXPECT_EQ(pong->opcode, WsOpcode::pong);
    EXPECT_EQ(pong->payload, "cafe"_hex);
    ASSERT_TRUE(text);
    EXPECT_EQ(std::string(text->payload.begin(), text->payload.end()), "back");
}

TEST(chain_websocket_client, server_close_is_answered_and_reported) {
    std::optional<WsMessage> reply;
    OneShotWsServer server([&](int fd, MessageDecoder& d) {
        OneShotWsServer::write(
            fd, encode_server_frame(WsOpcode::close, make_close_payload(1001, "going away")));
        reply = OneShotWsServer::read(fd, d);
    });
    auto c = WebSocketClient::connect(server.url());
    ASSERT_TRUE(c) << c.error().detail;
    auto m = (*c)->receive(milliseconds(2'000));
    ASSERT_FALSE(m);
    EXPECT_EQ(m.error().code, WsError::closed);
    EXPECT_NE(m.error().detail.find("1001: going away"), std::string::npos) << m.error().detail;
    // Nothing more is sent or read on a closed connection.
    EXPECT_FALSE((*c)->send_text("late"));
    (*c)->close();
    // §5.5.1: the client echoed the close with the same code.
    server.wait();
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->opcode, WsOpcode::close);
    EXPECT_EQ(parse_close_payload(reply->payload)->code, 1001);
}

TEST(chain_websocket_client, client_close_handshake) {
    std::optional<WsMessage> got;
    OneShotWsServer server([&](int fd, MessageDecoder& d) {
        got = OneShotWsServer::read(fd, d);
        OneShotWsServer::write(fd, encode_server_frame(WsOpcode::close, make_close_payload(1000)));
    });
    auto c = WebSocketClient::connect(server.url());
    ASSERT_TRUE(c) << c.error().detail;
    (*c)->close(1000);
    server.wait();
    ASSERT_TRUE(got);
    EXPECT_EQ(got->opcode, WsOpcode::close);
    EXPECT_EQ(parse_close_payload(got->payload)->code, 1000);
}

TEST(chain_websocket_client, masked_server_frame_fails_the_connection_with_1002) {
    std::optional<WsMessage> reply;
    OneShotWsServer server([&](int fd, MessageDecoder& d) {
        // §5.1: a masked frame from a server; the client must fail the connection (§7.1.7).
        OneShotWsServer::write(fd, "818537fa213d7f9f4d5158"_hex);
        reply = OneShotWsServer::read(fd, d);
    });
    auto c = WebSocketClient::connect(server.url());
    ASSERT_TRUE(c) << c.error().detail;
    auto m = (*c)->receive(milliseconds(2'000));
    ASSERT_FALSE(m);
    EXPECT_EQ(m.error().code, WsError::protocol);
    (*c)->close();
    server.wait();
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->opcode, WsOpcode::close);
    EXPECT_EQ(parse_close_payload(reply->payload)->code, 1002);
}

TEST(chain_websocket_client, oversized_message_fails_with_1009) {
    std::optional<WsMessage> reply;
    OneShotWsServer server([&](int fd, MessageDecoder& d) {
        // Announces 1 MiB; the client's limit is 64 KiB, so it refuses before reading it.
        OneShotWsServer::write(fd, "827f0000000000100000"_hex);
        reply = OneShotWsServer::read(fd, d);
    });
    WsClientOptions options;
    options.max_message = 64 * 1024;
    auto c = WebSocketClient::connect(server.url(), options);
    ASSERT_TRUE(c) << c.error().detail;
    auto m = (*c)->receive(milliseconds(2'000));
    ASSERT_FALSE(m);
    EXPECT_EQ(m.error().code, WsError::too_large);
    (*c)->close();
    server.wait();
    ASSERT_TRUE(reply);
    EXPECT_EQ(parse_close_payload(reply->payload)->code, 1009);
}

TEST(chain_websocket_client, receive_times_out_and_interrupt_unblocks) {
    OneShotWsServer server([&](int fd, MessageDecoder& d) { (void)OneShotWsServer::read(fd, d); });
    auto c = WebSocketClient::connect(server.url());
    ASSERT_TRUE(c) << c.error().detail;
    auto m = (*c)->receive(milliseconds(50));
    ASSERT_TRUE(m);
    EXPECT_FALSE(*m);  // nothing within 50 ms
    std::thread t([&] {
        std::this_thread::sleep_for(milliseconds(100));
        (*c)->interrupt();
    });
    const auto t0 = std::chrono::steady_clock::now();
    m = (*c)->receive(milliseconds(10'000));
    t.join();
    ASSERT_FALSE(m);
    EXPECT_EQ(m.error().code, WsError::closed);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, milliseconds(5'000));
}

TEST(chain_websocket_client, notifications_of_other_subscriptions_are_skipped) {
    const std::string ours = "0xabc";
    auto parse = [&](const std::string& text) {
        return parse_notification(text, ours, SubscriptionFilter::Kind::new_heads);
    };
    const std::string head =
        R"({"number":"0x10","hash":"0x1111111111111111111111111111111111111111111111111111111111111111"})";
    auto e = parse(
        R"({"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"0xabc","result":)" +
        head + "}}");
    ASSERT_TRUE(e) << e.error().detail;
    ASSERT_TRUE(*e);
    EXPECT_EQ((*e)->block_num, 16u);
    e = parse(
        R"({"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"0xdef","result":)" +
        head + "}}");
    ASSERT_TRUE(e);
    EXPECT_FALSE(*e);
    e = parse(R"({"jsonrpc":"2.0","id":3,"result":true})");
    ASSERT_TRUE(e);
    EXPECT_FALSE(*e);
    // Garbage from the node is an error, not silence.
    EXPECT_FALSE(parse("not json"));
    EXPECT_FALSE(parse(R"({"method":"eth_subscription","params":{"subscription":"0xabc"}})"));
    EXPECT_FALSE(parse(
        R"({"method":"eth_subscription","params":{"subscription":"0xabc","result":{"number":"0x"}}})"));
    // The subscribe params: no block range, the filter as eth_getLogs takes it.
    const auto params = subscribe_params(SubscriptionFilter::logs(
        {core::Address{}}, {std::nullopt, std::vector<core::Hash32>{core::Hash32{}}}));
    EXPECT_EQ(params[0], "logs");
    EXPECT_FALSE(params[1].contains("fromBlock"));
    EXPECT_EQ(params[1]["address"], "0x0000000000000000000000000000000000000000");
    EXPECT_TRUE(params[1]["topics"][0].is_null());
    EXPECT_EQ(subscribe_params(SubscriptionFilter::new_heads()), json::array({"newHeads"}));
}

}  // namespace
}  // namespace credence::chain
