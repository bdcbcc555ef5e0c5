// The REST API's request parsing (api/detail/rest_common.hpp): query parameters, path ids,
// addresses, cursors, LIKE patterns and the UTF-8 check, on arbitrary bytes. Properties: nothing
// throws or crashes; every failure is a 4xx; a cursor round-trips; a parsed id is 32 bytes; the
// UTF-8 check agrees with core's decoder (Unicode Table 3-7).
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <credence/api/detail/rest_common.hpp>
#include <credence/core/unicode.hpp>

using namespace credence::api::detail;

namespace {

void check(bool condition) {
    if (!condition) std::abort();
}

template <typename T>
void check_error(const ApiResult<T>& result) {
    if (!result) check(result.error().status >= 400 && result.error().status < 500);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    // Fields separated by '\n': name=value pairs become the query; the first field is also a
    // path id, an address, a hash, a cursor.
    std::vector<std::string> fields;
    size_t start = 0;
    while (start <= input.size() && fields.size() < 16) {
        const size_t end = input.find('\n', start);
        fields.emplace_back(
            input.substr(start, end == std::string_view::npos ? input.npos : end - start));
        if (end == std::string_view::npos) break;
        start = end + 1;
    }
    credence::api::HttpRequest request;
    for (const auto& field : fields) {
        const size_t eq = field.find('=');
        if (eq == std::string::npos) continue;
        request.query.emplace_back(field.substr(0, eq), field.substr(eq + 1));
    }
    const std::string& first = fields.front();

    check_error(check_params(request, {"limit", "cursor", "q", "client"}));
    check_error(text_param(request, "q"));
    check_error(bool_param(request, "active"));
    check_error(int_param(request, "buckets", 1, 500, 50));
    auto number = number_param(request, "min_score");
    check_error(number);
    auto limit = limit_param(request);
    check_error(limit);
    if (limit) check(*limit >= 1 && *limit <= 100);
    check_error(address_list(request, "client"));

    auto id = parse_uint256_id(first, "agent_id");
    check_error(id);
    if (id) check(id->size() == 32);
    auto hash = parse_hash32(first, "run_id");
    check_error(hash);
    if (hash) check(hash->size() == 32);
    check_error(parse_address(first, "address"));

    // The UTF-8 check against core's decoder.
    const bool valid = is_valid_utf8(first);
    check(valid == credence::core::utf8_to_code_points(first).has_value());

    // Cursors: anything decodes to a 4xx or parts; our own cursors round-trip.
    auto decoded = decode_cursor(first, "agents-id", 3);
    check_error(decoded);
    if (first.find('|') == std::string::npos && first.size() < 200) {
        const std::vector<std::string> parts{first, "", "x"};
        auto back = decode_cursor(encode_cursor("agents-id", parts), "agents-id", 3);
        check(back.has_value() && *back == parts);
    }

    // The substring pattern: wrapped in %, and every % _ \ of the input escaped.
    const std::string pattern = like_substring(first);
    check(pattern.size() >= 2 && pattern.front() == '%' && pattern.back() == '%');
    for (size_t i = 1; i + 1 < pattern.size(); ++i) {
        if (pattern[i] != '\\') {
            check(pattern[i] != '%' && pattern[i] != '_');
            continue;
        }
        check(i + 2 < pattern.size());
        ++i;  // the escaped character
    }
    const Json list = comma_list(first);
    for (const auto& item : list) check(!item.get<std::string>().empty());
    return 0;
}
