#include <credence/chain/key_source.hpp>

#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace credence::chain {

std::string_view to_string(KeySourceError e) noexcept {
    switch (e) {
        case KeySourceError::no_key:
            return "no signing key";
        case KeySourceError::conflicting_sources:
            return "conflicting key sources";
        case KeySourceError::invalid_private_key:
            return "invalid private key";
        case KeySourceError::no_password:
            return "no keystore password";
        case KeySourceError::password_file:
            return "password file unreadable";
        case KeySourceError::prompt_failed:
            return "password prompt failed";
        case KeySourceError::keystore:
            return "keystore error";
    }
    return "unknown key source error";
}

namespace {

std::unexpected<KeySourceFailure> failure(KeySourceError code, std::string detail,
                                          std::optional<KeystoreError> ks = std::nullopt) {
    return std::unexpected(KeySourceFailure{code, std::move(detail), ks});
}

/// A std::string holding a secret, wiped when it goes out of scope.
struct WipedString {
    std::string value;
    WipedString() = default;
    explicit WipedString(std::string v) : value(std::move(v)) {}
    WipedString(const WipedString&) = delete;
    WipedString& operator=(const WipedString&) = delete;
    ~WipedString() { core::secure_wipe(value.data(), value.size()); }
};

std::optional<std::string> process_getenv(std::string_view name) {
    const std::string key(name);
    const char* v = std::getenv(key.c_str());  // NOLINT(concurrency-mt-unsafe): read-only use
    if (v == nullptr) return std::nullopt;
    return std::string(v);
}

void strip_line_endings(std::string& s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) {
        s.back() = '\0';
        s.pop_back();
    }
}

bool write_all(int fd, std::string_view s) {
    while (!s.empty()) {
        const ssize_t n = ::write(fd, s.data(), s.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        s.remove_prefix(static_cast<size_t>(n));
    }
    return true;
}

std::expected<SigningKey, KeySourceFailure> from_hex_source(std::string_view text,
                                                            std::string origin) {
    auto key = parse_private_key(text, origin);
    if (!key) return std::unexpected(key.error());
    const core::Address address = core::address_of(*key);
    return SigningKey{std::move(*key), address, std::move(origin)};
}

}  // namespace

std::expected<core::SecretKey, KeySourceFailure> parse_private_key(std::string_view text,
                                                                   std::string_view origin) {
    // Trim whitespace (a key pasted into a file or variable often carries a newline).
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t' || text.front() == '\n' ||
                             text.front() == '\r'))
        text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\n' ||
                             text.back() == '\r'))
        text.remove_suffix(1);
    std::string_view digits = text;
    if (digits.starts_with("0x") || digits.starts_with("0X")) digits.remove_prefix(2);
    // The messages below describe the shape only: never the text, which may be a real key.
    if (digits.size() != 64)
        return failure(KeySourceError::invalid_private_key,
                       "private key from " + std::string(origin) + " must be 64 hex digits (got " +
                           std::to_string(digits.size()) + " characters)");
    for (char c : digits)
        if (core::hex_digit_value(c) < 0)
            return failure(
                KeySourceError::invalid_private_key,
                "private key from " + std::string(origin) + " contains a non-hex character");
    auto key = core::SecretKey::from_hex(digits);
    if (!key)
        return failure(KeySourceError::invalid_private_key,
                       "private key from " + std::string(origin) +
                           " is not a valid secp256k1 key (zero or above the group order)");
    return std::move(*key);
}

std::expected<std::string, KeySourceFailure> read_password_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return failure(KeySourceError::password_file, "cannot open password file " + path);
    constexpr size_t kMaxPassword = 64 * 1024;
    std::string content(kMaxPassword + 1, '\0');
    in.read(content.data(), static_cast<std::streamsize>(content.size()));
    const auto got = static_cast<size_t>(in.gcount());
    if (in.bad()) {
        core::secure_wipe(content.data(), content.size());
        return failure(KeySourceError::password_file, "cannot read password file " + path);
    }
    if (got > kMaxPassword) {
        core::secure_wipe(content.data(), content.size());
        return failure(KeySourceError::password_file, "password file " + path + " is too large");
    }
    content.resize(got);
    strip_line_endings(content);
    return content;
}

std::expected<std::string, KeySourceFailure> prompt_password(int fd, std::string_view prompt) {
    if (::isatty(fd) == 0)
        return failure(KeySourceError::no_password,
                       "keystore needs a password: standard input is not a terminal; use "
                       "--password-file or $CREDENCE_KEYSTORE_PASSWORD");
    termios saved{};
    if (::tcgetattr(fd, &saved) != 0)
        return failure(KeySourceError::prompt_failed, "cannot read the terminal settings");
    termios quiet = saved;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO | ECHOE | ECHOK | ECHONL);
    quiet.c_lflag |= ICANON;
    if (::tcsetattr(fd, TCSAFLUSH, &quiet) != 0)
        return failure(KeySourceError::prompt_failed, "cannot turn terminal echo off");
    std::string password;
    password.reserve(4097);  // no reallocation: no unwiped copies left behind
    bool ok = write_all(fd, prompt);
    bool got_line = false;
    while (ok) {
        char c = 0;
        const ssize_t n = ::read(fd, &c, 1);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) ok = false;
        if (n <= 0) break;
        if (c == '\n') {
            got_line = true;
            break;
        }
        if (password.size() >= 4096) ok = false;  // nobody types that much; stop a runaway feed
        password.push_back(c);
        c = '\0';
    }
    // Restore echo on every path (TCSAFLUSH also drops anything typed past the newline).
    const bool restored = ::tcsetattr(fd, TCSAFLUSH, &saved) == 0;
    (void)write_all(fd, "\n");
    if (!ok || !restored || (!got_line && password.empty())) {
        core::secure_wipe(password.data(), password.size());
        return failure(KeySourceError::prompt_failed, restored
                                                          ? "no password read from the terminal"
                                                          : "cannot restore terminal echo");
    }
    if (!password.empty() && password.back() == '\r') password.pop_back();
    return password;
}

std::expected<SigningKey, KeySourceFailure> load_signing_key(const KeySourceOptions& options) {
    const auto env = [&](std::string_view name) -> std::optional<std::string> {
        auto v = options.getenv ? options.getenv(name) : process_getenv(name);
        if (v && v->empty()) {
            core::secure_wipe(v->data(), v->size());
            return std::nullopt;  // an empty variable counts as unset, as in cast
        }
        return v;
    };

    if (options.private_key && options.keystore_path)
        return failure(KeySourceError::conflicting_sources,
                       "give either --private-key or --keystore, not both");
    if (options.private_key) return from_hex_source(*options.private_key, "--private-key");

    if (options.keystore_path) {
        const std::string& path = *options.keystore_path;
        // A missing file is found before anyone is asked for its password.
        std::error_code ec;
        if (!std::filesystem::is_regular_file(path, ec))
            return failure(KeySourceError::keystore,
                           "keystore " + path +
                               ": no such file (give the path of a JSON keystore, Web3 Secret "
                               "Storage v3)");
        WipedString password;
        if (options.password_file) {
            auto p = read_password_file(*options.password_file);
            if (!p) return std::unexpected(p.error());
            password.value = std::move(*p);
        } else if (auto p = env(kEnvKeystorePassword)) {
            password.value = std::move(*p);
        } else if (options.allow_prompt) {
            auto prompted = prompt_password(options.prompt_fd, "Password for " + path + ": ");
            if (!prompted) return std::unexpected(prompted.error());
            password.value = std::move(*prompted);
        } else {
            return failure(KeySourceError::no_password,
                           "keystore " + path +
                               " needs a password: use --password-file or "
                               "$CREDENCE_KEYSTORE_PASSWORD");
        }
        auto key = read_keystore_file(path, password.value);
        if (!key) {
            // The detail is a whole sentence; name the file once (io errors already do).
            const std::string& detail = key.error().detail;
            return failure(KeySourceError::keystore,
                           detail.find(path) != std::string::npos
                               ? detail
                               : "keystore " + path + ": " + detail,
                           key.error().code);
        }
        const core::Address address = core::address_of(*key);
        return SigningKey{std::move(*key), address, path};
    }

    for (std::string_view name : {kEnvPrivateKey, kEnvEthPrivateKey}) {
        if (auto v = env(name)) {
            WipedString value(std::move(*v));
            return from_hex_source(value.value, "$" + std::string(name));
        }
    }
    return failure(KeySourceError::no_key,
                   "no signing key: pass --private-key or --keystore, or set "
                   "$CREDENCE_PRIVATE_KEY");
}

}  // namespace credence::chain
