// A hash map keyed by address, for the trust engine's per-address tables (addresses are keccak
// outputs, so eight of their bytes are already a good hash). Internal to trust/.
#pragma once

#include <cstdint>
#include <cstring>
#include <unordered_map>

#include <credence/core/address.hpp>

namespace credence::trust::detail {

struct AddressHash {
    size_t operator()(const core::Address& a) const noexcept {
        uint64_t h = 0;
        std::memcpy(&h, a.bytes.data() + 12, sizeof(h));
        return static_cast<size_t>(h);
    }
};

template <typename V>
using AddressMap = std::unordered_map<core::Address, V, AddressHash>;

}  // namespace credence::trust::detail
