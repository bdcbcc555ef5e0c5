// Where a signing key comes from (docs/cli.md), resolved in this order:
//   1. --private-key <hex>                    (the flag wins over everything)
//   2. --keystore <file>                      (a Web3 Secret Storage v3 file, see keystore.hpp)
//   3. $CREDENCE_PRIVATE_KEY, then $ETH_PRIVATE_KEY (cast's variable)
// Giving both --private-key and --keystore is an error rather than a silent choice.
// A keystore's password comes from, in order: --password-file <file> (its content; trailing
// line endings are dropped, as cast and geth do), $CREDENCE_KEYSTORE_PASSWORD, or an interactive
// prompt on the terminal with echo off (termios). When none is available and the input is not a
// terminal, loading fails with no_password instead of blocking.
//
// Secrets: key material and passwords never appear in error messages, logs or return values other
// than the SecretKey itself; intermediate copies are wiped. Errors name the source (flag, variable
// or file path) so the user knows what to fix.
// Thread-safety: load_signing_key reads the environment through KeySourceOptions::getenv (the
// process environment by default, which is not safe against concurrent setenv).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <credence/chain/keystore.hpp>
#include <credence/core/address.hpp>
#include <credence/core/error.hpp>
#include <credence/core/secp256k1.hpp>

namespace credence::chain {

enum class KeySourceError {
    no_key,               // no flag, keystore or variable gives a key
    conflicting_sources,  // both --private-key and --keystore
    invalid_private_key,  // not 64 hex digits, or not a valid secp256k1 scalar
    no_password,          // keystore without a password source, and no terminal to prompt on
    password_file,        // the password file cannot be read
    prompt_failed,        // reading from the terminal failed (or was interrupted)
    keystore,             // the keystore could not be read or unlocked (see keystore_error)
};

[[nodiscard]] std::string_view to_string(KeySourceError e) noexcept;

/// Environment variable names (cast uses ETH_PRIVATE_KEY).
inline constexpr std::string_view kEnvPrivateKey = "CREDENCE_PRIVATE_KEY";
inline constexpr std::string_view kEnvEthPrivateKey = "ETH_PRIVATE_KEY";
inline constexpr std::string_view kEnvKeystorePassword = "CREDENCE_KEYSTORE_PASSWORD";

struct KeySourceOptions {
    std::optional<std::string> private_key;    // --private-key
    std::optional<std::string> keystore_path;  // --keystore
    std::optional<std::string> password_file;  // --password-file
    /// Looks up an environment variable; defaults to ::getenv. Tests inject a map.
    std::function<std::optional<std::string>(std::string_view)> getenv;
    /// The terminal to prompt on; defaults to standard input. Must be a tty for prompting.
    int prompt_fd = 0;
    /// When false, never prompt (scripts): a keystore without a password source is an error.
    bool allow_prompt = true;
};

struct SigningKey {
    core::SecretKey key;
    core::Address address;
    std::string origin;  // where it came from: "--private-key", "$ETH_PRIVATE_KEY", a file path
};

struct KeySourceFailure {
    KeySourceError code;
    std::string detail;  // one whole line naming the source; never key material or a password
    std::optional<KeystoreError> keystore_error;

    friend bool operator==(const KeySourceFailure& a, const KeySourceFailure& b) {
        return a.code == b.code;
    }
};

/// Resolves the signing key from the options (see the order above).
[[nodiscard]] std::expected<SigningKey, KeySourceFailure> load_signing_key(
    const KeySourceOptions& options);

/// Parses a private key given as 64 hex digits (optional 0x; surrounding whitespace ignored).
/// `origin` names the source in the error ("--private-key", "$ETH_PRIVATE_KEY").
[[nodiscard]] std::expected<core::SecretKey, KeySourceFailure> parse_private_key(
    std::string_view text, std::string_view origin);

/// Reads a password from the terminal `fd` with echo off, writing `prompt` to the same terminal.
/// Fails with no_password when `fd` is not a terminal. Echo is restored on every path.
[[nodiscard]] std::expected<std::string, KeySourceFailure> prompt_password(int fd,
                                                                           std::string_view prompt);

/// Reads a password file: its content without trailing '\r' / '\n' (spaces are kept).
[[nodiscard]] std::expected<std::string, KeySourceFailure> read_password_file(
    const std::string& path);

}  // namespace credence::chain
