#include <credence/core/address.hpp>

#include <algorithm>

#include <credence/core/keccak.hpp>
#include <credence/core/rlp.hpp>

namespace credence::core {

std::string_view to_string(AddressError e) noexcept {
    switch (e) {
        case AddressError::missing_prefix:
            return "address lacks 0x prefix";
        case AddressError::wrong_length:
            return "address is not 20 bytes";
        case AddressError::bad_digit:
            return "invalid hex digit in address";
        case AddressError::bad_checksum:
            return "address fails its EIP-55 checksum";
    }
    return "address error";
}

namespace {

// EIP-55: hash the lowercase hex digits (ASCII, no 0x); a letter at position i is uppercase
// when nibble i of that hash is >= 8.
std::string checksum_digits(const std::string& lower40) {
    const Hash32 h = keccak256(std::string_view(lower40));
    std::string out = lower40;
    for (size_t i = 0; i < out.size(); ++i) {
        const uint8_t nibble = (i % 2 == 0) ? (h[i / 2] >> 4) : (h[i / 2] & 0x0f);
        if (out[i] >= 'a' && out[i] <= 'f' && nibble >= 8) {
            out[i] = static_cast<char>(out[i] - 'a' + 'A');
        }
    }
    return out;
}

bool is_lower_letter(char c) { return c >= 'a' && c <= 'f'; }
bool is_upper_letter(char c) { return c >= 'A' && c <= 'F'; }

}  // namespace

Result<Address, AddressError> Address::from_hex(std::string_view hex, ChecksumMode mode) {
    if (hex.size() < 2 || hex[0] != '0' || (hex[1] != 'x' && hex[1] != 'X')) {
        return fail(AddressError::missing_prefix);
    }
    std::string_view digits = hex.substr(2);
    if (digits.size() != 2 * kSize) {
        return fail(AddressError::wrong_length,
                    "expected 40 hex digits, got " + std::to_string(digits.size()));
    }
    Address a;
    bool has_lower = false;
    bool has_upper = false;
    for (size_t i = 0; i < kSize; ++i) {
        const int hi = hex_digit_value(digits[2 * i]);
        const int lo = hex_digit_value(digits[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return fail(AddressError::bad_digit, "at digit " + std::to_string(2 * i));
        a.bytes[i] = static_cast<uint8_t>((hi << 4) | lo);
    }
    for (char c : digits) {
        has_lower = has_lower || is_lower_letter(c);
        has_upper = has_upper || is_upper_letter(c);
    }
    // EIP-55: only mixed case carries a checksum; single-case input is unchecksummed.
    if (mode == ChecksumMode::strict && has_lower && has_upper) {
        const std::string expected = a.to_checksum_hex();
        if (std::string_view(expected).substr(2) != digits) {
            return fail(AddressError::bad_checksum, "mixed-case address with a wrong checksum");
        }
    }
    return a;
}

Result<Address, AddressError> Address::from_bytes(ByteView b) {
    if (b.size() != kSize) return fail(AddressError::wrong_length);
    Address a;
    std::copy(b.begin(), b.end(), a.bytes.begin());
    return a;
}

std::string Address::to_lower_hex() const { return to_hex(view(), true); }

std::string Address::to_checksum_hex() const {
    return "0x" + checksum_digits(to_hex(view(), false));
}

bool Address::is_zero() const noexcept {
    return std::all_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b == 0; });
}

bool is_valid_checksum(std::string_view hex) {
    auto a = Address::from_hex(hex, ChecksumMode::strict);
    return a.has_value();
}

namespace {
Address last20(const Hash32& h) {
    Address a;
    std::copy(h.begin() + 12, h.end(), a.bytes.begin());
    return a;
}
}  // namespace

Address create_address(const Address& sender, uint64_t nonce) {
    Bytes payload;
    rlp_append_string(payload, sender.view());
    rlp_append_uint(payload, nonce);
    return last20(keccak256(rlp_encode_list_payload(payload)));
}

Address create2_address_from_hash(const Address& sender, const Hash32& salt,
                                  const Hash32& init_code_hash) {
    std::array<uint8_t, 1 + 20 + 32 + 32> buf{};
    buf[0] = 0xff;
    std::copy(sender.bytes.begin(), sender.bytes.end(), buf.begin() + 1);
    std::copy(salt.begin(), salt.end(), buf.begin() + 21);
    std::copy(init_code_hash.begin(), init_code_hash.end(), buf.begin() + 53);
    return last20(keccak256(ByteView(buf)));
}

Address create2_address(const Address& sender, const Hash32& salt, ByteView init_code) {
    return create2_address_from_hash(sender, salt, keccak256(init_code));
}

}  // namespace credence::core
