#include <credence/core/eip191.hpp>

#include <string>

#include <credence/core/keccak.hpp>

namespace credence::core {

Hash32 eip191_personal_message_hash(ByteView message) {
    // EIP-191 version 'E': the length is the message's byte count in decimal ASCII.
    std::string prefix(1, '\x19');
    prefix += "Ethereum Signed Message:\n";
    prefix += std::to_string(message.size());
    Keccak256 h;
    h.update(std::string_view(prefix));
    // Keccak256::update passes an empty span's null pointer to memcpy (UB); skip empty input.
    if (!message.empty()) h.update(message);
    return h.finalize();
}

Hash32 eip191_typed_data_hash(const Hash32& domain_separator, const Hash32& struct_hash) noexcept {
    static constexpr uint8_t kPrefix[2] = {0x19, 0x01};  // EIP-712 §Specification
    Keccak256 h;
    h.update(ByteView(kPrefix));
    h.update(ByteView(domain_separator));
    h.update(ByteView(struct_hash));
    return h.finalize();
}

Hash32 eip191_validator_hash(const Address& validator, ByteView data) noexcept {
    static constexpr uint8_t kPrefix[2] = {0x19, 0x00};
    Keccak256 h;
    h.update(ByteView(kPrefix));
    h.update(validator.view());
    if (!data.empty()) h.update(data);
    return h.finalize();
}

}  // namespace credence::core
