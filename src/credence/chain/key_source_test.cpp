// Key sources: flag over keystore over environment, the password sources (file, variable, a real
// pseudo-terminal with echo off), the non-terminal failure, and that no error text ever carries key
// material or a password.
#include <credence/chain/key_source.hpp>

#include <fcntl.h>
#include <poll.h>
#include <termios.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include <support/scratch.hpp>

namespace {

namespace fs = std::filesystem;
using credence::chain::KeySourceError;
using credence::chain::KeySourceOptions;
using credence::chain::load_signing_key;

// Anvil's first two dev keys (public, well known).
constexpr const char* kKey0 = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
constexpr const char* kAddr0 = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
constexpr const char* kKey1 = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
constexpr const char* kAddr1 = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

using Env = std::map<std::string, std::string, std::less<>>;

KeySourceOptions with_env(Env env) {
    KeySourceOptions o;
    o.getenv = [env = std::move(env)](std::string_view name) -> std::optional<std::string> {
        auto it = env.find(name);
        if (it == env.end()) return std::nullopt;
        return it->second;
    };
    o.allow_prompt = false;
    return o;
}

using credence::testing::TempDir;

std::string write_file(const fs::path& p, const std::string& content) {
    std::ofstream(p, std::ios::binary) << content;
    return p.string();
}

/// A keystore for kKey0 under `password` (cheap scrypt).
std::string make_keystore(const TempDir& dir, const std::string& password) {
    auto key = credence::core::SecretKey::from_hex(kKey0);
    EXPECT_TRUE(key);
    auto path =
        credence::chain::write_keystore_file(dir.path(), *key, password, {uint64_t{1} << 10, 8, 1});
    EXPECT_TRUE(path);
    return path->string();
}

/// No 8-character window of `secret` appears in `text`.
void expect_no_secret(const std::string& text, std::string_view secret) {
    if (secret.starts_with("0x")) secret.remove_prefix(2);
    for (size_t i = 0; i + 8 <= secret.size(); ++i)
        EXPECT_EQ(text.find(secret.substr(i, 8)), std::string::npos)
            << "error text leaks secret material: " << text;
}

TEST(chain_key_source, flag_wins_over_env) {
    auto o = with_env({{"CREDENCE_PRIVATE_KEY", kKey1}, {"ETH_PRIVATE_KEY", kKey1}});
    o.private_key = kKey0;
    auto k = load_signing_key(o);
    ASSERT_TRUE(k) << k.error().detail;
    EXPECT_EQ(k->address.to_checksum_hex(), kAddr0);
    EXPECT_EQ(k->origin, "--private-key");
}

TEST(chain_key_source, credence_env_var_before_eth_env_var) {
    auto both =
        load_signing_key(with_env({{"CREDENCE_PRIVATE_KEY", kKey0}, {"ETH_PRIVATE_KEY", kKey1}}));
    ASSERT_TRUE(both);
    EXPECT_EQ(both->address.to_checksum_hex(), kAddr0);
    EXPECT_EQ(both->origin, "$CREDENCE_PRIVATE_KEY");

    auto eth = load_signing_key(with_env({{"ETH_PRIVATE_KEY", kKey1}}));
    ASSERT_TRUE(eth);
    EXPECT_EQ(eth->address.to_checksum_hex(), kAddr1);
    EXPECT_EQ(eth->origin, "$ETH_PRIVATE_KEY");

    // An empty variable counts as unset; a trailing newline (from `export X=$(cat file)`) is fine.
    auto empty = load_signing_key(
        with_env({{"CREDENCE_PRIVATE_KEY", ""}, {"ETH_PRIVATE_KEY", std::string(kKey1) + "\n"}}));
    ASSERT_TRUE(empty);
    EXPECT_EQ(empty->address.to_checksum_hex(), kAddr1);
}

TEST(chain_key_source, reads_the_real_process_environment) {
    ::setenv("ETH_PRIVATE_KEY", kKey1 + 2, 1);  // NOLINT(concurrency-mt-unsafe): test only
    ::unsetenv("CREDENCE_PRIVATE_KEY");         // NOLINT(concurrency-mt-unsafe)
    KeySourceOptions o;
    auto k = load_signing_key(o);
    ::unsetenv("ETH_PRIVATE_KEY");  // NOLINT(concurrency-mt-unsafe)
    ASSERT_TRUE(k) << k.error().detail;
    EXPECT_EQ(k->address.to_checksum_hex(), kAddr1);
}

TEST(chain_key_source, no_key_and_conflicting_sources) {
    auto none = load_signing_key(with_env({}));
    ASSERT_FALSE(none);
    EXPECT_EQ(none.error().code, KeySourceError::no_key);
    EXPECT_NE(none.error().detail.find("--private-key"), std::string::npos);

    auto o = with_env({});
    o.private_key = kKey0;
    o.keystore_path = "/tmp/whatever.json";
    auto both = load_signing_key(o);
    ASSERT_FALSE(both);
    EXPECT_EQ(both.error().code, KeySourceError::conflicting_sources);
}

TEST(chain_key_source, invalid_keys_are_reported_without_key_material) {
    const std::string bad[] = {
        // one wrong digit
        "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ffzz",
        // too short
        "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff",
        // the group order n: not a valid scalar
        "0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141",
        "0x0000000000000000000000000000000000000000000000000000000000000000",
    };
    for (const auto& key : bad) {
        auto o = with_env({{"CREDENCE_PRIVATE_KEY", key}});
        auto r = load_signing_key(o);
        ASSERT_FALSE(r) << key;
        EXPECT_EQ(r.error().code, KeySourceError::invalid_private_key);
        EXPECT_NE(r.error().detail.find("$CREDENCE_PRIVATE_KEY"), std::string::npos);
        expect_no_secret(r.error().detail, key);

        o.private_key = key;
        auto f = load_signing_key(o);
        ASSERT_FALSE(f);
        EXPECT_NE(f.error().detail.find("--private-key"), std::string::npos);
        expect_no_secret(f.error().detail, key);
    }
}

TEST(chain_key_source, keystore_with_password_file) {
    TempDir dir;
    const std::string password = "pass with spaces ";
    const auto ks = make_keystore(dir, password);
    auto o = with_env({{"CREDENCE_PRIVATE_KEY", kKey1}});  // the keystore flag wins over the env
    o.keystore_path = ks;
    // Trailing line endings are dropped (files written by `echo`), the trailing space is kept.
    o.password_file = write_file(dir.path() / "pw.txt", password + "\r\n");
    auto k = load_signing_key(o);
    ASSERT_TRUE(k) << k.error().detail;
    EXPECT_EQ(k->address.to_checksum_hex(), kAddr0);
    EXPECT_EQ(k->origin, ks);

    o.password_file = write_file(dir.path() / "wrong.txt", "pass with spaces\n");
    auto wrong = load_signing_key(o);
    ASSERT_FALSE(wrong);
    EXPECT_EQ(wrong.error().code, KeySourceError::keystore);
    EXPECT_EQ(wrong.error().keystore_error, credence::chain::KeystoreError::mac_mismatch);
    // One line, the file named once, no phrase repeated.
    EXPECT_EQ(wrong.error().detail, "keystore " + ks + ": wrong password or corrupted keystore");
    EXPECT_EQ(wrong.error().detail.find("pass with"), std::string::npos) << wrong.error().detail;

    o.password_file = (dir.path() / "missing.txt").string();
    auto missing = load_signing_key(o);
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code, KeySourceError::password_file);
}

TEST(chain_key_source, keystore_password_from_env) {
    TempDir dir;
    const auto ks = make_keystore(dir, "envpw");
    auto o = with_env({{"CREDENCE_KEYSTORE_PASSWORD", "envpw"}});
    o.keystore_path = ks;
    auto k = load_signing_key(o);
    ASSERT_TRUE(k) << k.error().detail;
    EXPECT_EQ(k->address.to_checksum_hex(), kAddr0);
}

TEST(chain_key_source, keystore_without_password_on_a_non_terminal_fails_clearly) {
    TempDir dir;
    const auto ks = make_keystore(dir, "pw");
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    auto o = with_env({});
    o.keystore_path = ks;
    o.allow_prompt = true;
    o.prompt_fd = fds[0];  // a pipe, as when input is redirected
    auto k = load_signing_key(o);
    ::close(fds[0]);
    ::close(fds[1]);
    ASSERT_FALSE(k);
    EXPECT_EQ(k.error().code, KeySourceError::no_password);
    EXPECT_NE(k.error().detail.find("not a terminal"), std::string::npos) << k.error().detail;
    EXPECT_NE(k.error().detail.find("--password-file"), std::string::npos);

    o.allow_prompt = false;
    auto no_prompt = load_signing_key(o);
    ASSERT_FALSE(no_prompt);
    EXPECT_EQ(no_prompt.error().code, KeySourceError::no_password);
}

TEST(chain_key_source, a_missing_keystore_is_named_before_any_password_is_asked) {
    TempDir dir;
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    auto o = with_env({});
    o.keystore_path = (dir.path() / "nosuch.json").string();
    o.allow_prompt = true;
    o.prompt_fd = fds[0];
    auto k = load_signing_key(o);
    ::close(fds[0]);
    ::close(fds[1]);
    ASSERT_FALSE(k);
    EXPECT_EQ(k.error().code, KeySourceError::keystore);
    EXPECT_NE(k.error().detail.find("nosuch.json: no such file"), std::string::npos)
        << k.error().detail;
    EXPECT_EQ(k.error().detail.find("password"), std::string::npos) << k.error().detail;
}

/// Reads from `fd` until `needle` shows up or `ms` pass; returns everything read.
std::string read_until(int fd, std::string_view needle, int ms) {
    std::string out;
    char buf[256];
    for (int waited = 0; waited < ms && out.find(needle) == std::string::npos; waited += 20) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 20) <= 0) continue;
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n <= 0) break;
        out.append(buf, static_cast<size_t>(n));
    }
    return out;
}

TEST(chain_key_source, prompt_on_a_real_terminal_reads_with_echo_off) {
    const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
    ASSERT_GE(master, 0);
    ASSERT_EQ(::grantpt(master), 0);
    ASSERT_EQ(::unlockpt(master), 0);
    const char* name = ::ptsname(master);  // NOLINT(concurrency-mt-unsafe): one thread here
    ASSERT_NE(name, nullptr);
    const int slave = ::open(name, O_RDWR | O_NOCTTY);
    ASSERT_GE(slave, 0);
    termios before{};
    ASSERT_EQ(::tcgetattr(slave, &before), 0);
    ASSERT_NE(before.c_lflag & ECHO, 0u);  // a fresh pty echoes

    std::expected<std::string, credence::chain::KeySourceFailure> got =
        std::unexpected(credence::chain::KeySourceFailure{KeySourceError::prompt_failed, "", {}});
    std::thread reader([&] { got = credence::chain::prompt_password(slave, "Password: "); });
    // Type only once the prompt is shown, i.e. after echo was turned off.
    std::string screen = read_until(master, "Password: ", 5000);
    ASSERT_NE(screen.find("Password: "), std::string::npos);
    const std::string typed = "hunter2 x\n";
    ASSERT_EQ(::write(master, typed.data(), typed.size()), static_cast<ssize_t>(typed.size()));
    reader.join();
    screen += read_until(master, "\n", 500);

    ASSERT_TRUE(got) << got.error().detail;
    EXPECT_EQ(*got, "hunter2 x");
    EXPECT_EQ(screen.find("hunter2"), std::string::npos) << "password echoed: " << screen;
    termios after{};
    ASSERT_EQ(::tcgetattr(slave, &after), 0);
    EXPECT_NE(after.c_lflag & ECHO, 0u);  // echo restored
    ::close(slave);
    ::close(master);
}

}  // namespace
