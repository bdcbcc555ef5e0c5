#include <credence/chain/rpc_error.hpp>

namespace credence::chain {

std::string_view to_string(RpcErrorKind kind) noexcept {
    switch (kind) {
        case RpcErrorKind::transport:
            return "transport";
        case RpcErrorKind::timeout:
            return "timeout";
        case RpcErrorKind::http_status:
            return "http_status";
        case RpcErrorKind::too_large:
            return "too_large";
        case RpcErrorKind::bad_json:
            return "bad_json";
        case RpcErrorKind::bad_response:
            return "bad_response";
        case RpcErrorKind::rpc_error:
            return "rpc_error";
        case RpcErrorKind::invalid_argument:
            return "invalid_argument";
    }
    return "unknown";
}

std::string RpcError::to_string() const {
    std::string out(chain::to_string(kind));
    if (kind == RpcErrorKind::http_status) out += " " + std::to_string(http_status);
    if (kind == RpcErrorKind::rpc_error) out += " " + std::to_string(code);
    if (!message.empty()) out += ": " + message;
    if (!data.empty()) {
        out += " (data " + core::to_hex(data) + ")";
    } else if (!data_json.empty()) {
        out += " (data " + data_json + ")";
    }
    if (attempts > 1) out += " after " + std::to_string(attempts) + " attempts";
    // One line, always: server-provided text may carry newlines.
    for (char& c : out) {
        if (c == '\n' || c == '\r') c = ' ';
    }
    return out;
}

}  // namespace credence::chain
