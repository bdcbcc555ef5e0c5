#include <credence/api/client_key.hpp>

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cstdint>

#include <fmt/format.h>

namespace credence::api {

std::string client_key(std::string_view remote_ip) {
    std::string text(remote_ip);
    std::array<uint8_t, 16> bytes{};
    if (::inet_pton(AF_INET, text.c_str(), bytes.data()) == 1) return text;
    if (::inet_pton(AF_INET6, text.c_str(), bytes.data()) == 1) {
        static constexpr std::array<uint8_t, 12> kMapped{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        if (std::equal(kMapped.begin(), kMapped.end(), bytes.begin())) {
            return fmt::format("{}.{}.{}.{}", bytes[12], bytes[13], bytes[14], bytes[15]);
        }
        return fmt::format("{:02x}{:02x}:{:02x}{:02x}:{:02x}{:02x}:{:02x}{:02x}::/64", bytes[0],
                           bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7]);
    }
    return text;
}

}  // namespace credence::api
