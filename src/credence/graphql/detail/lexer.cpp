#include <credence/graphql/detail/lexer.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace credence::graphql::detail {

namespace {

bool is_name_start(char c) { return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool is_name_continue(char c) { return is_name_start(c) || (c >= '0' && c <= '9'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// GraphQL §2.9.4 BlockStringValue(): common indentation removed, blank first and last lines
// dropped. `raw` is the text between the quotes with \""" already replaced.
std::string block_string_value(std::string_view raw) {
    std::vector<std::string_view> lines;
    std::size_t start = 0;
    for (std::size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] == '\n' || raw[i] == '\r') {
            lines.push_back(raw.substr(start, i - start));
            if (raw[i] == '\r' && i + 1 < raw.size() && raw[i + 1] == '\n') ++i;
            start = i + 1;
        }
    }
    lines.push_back(raw.substr(start));
    const auto indent_of = [](std::string_view line) {
        std::size_t n = 0;
        while (n < line.size() && (line[n] == ' ' || line[n] == '\t')) ++n;
        return n;
    };
    std::size_t common = std::string_view::npos;
    for (std::size_t i = 1; i < lines.size(); ++i) {
        const auto n = indent_of(lines[i]);
        if (n < lines[i].size()) common = std::min(common, n);
    }
    if (common != std::string_view::npos)
        for (std::size_t i = 1; i < lines.size(); ++i)
            lines[i] = lines[i].substr(std::min(common, lines[i].size()));
    const auto blank = [&](std::string_view line) { return indent_of(line) == line.size(); };
    std::size_t first = 0;
    std::size_t last = lines.size();
    while (first < last && blank(lines[first])) ++first;
    while (last > first && blank(lines[last - 1])) --last;
    std::string out;
    for (std::size_t i = first; i < last; ++i) {
        if (i > first) out.push_back('\n');
        out.append(lines[i]);
    }
    return out;
}

}  // namespace

bool is_valid_utf8(std::string_view text) {
    std::size_t i = 0;
    while (i < text.size()) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x80) {
            ++i;
            continue;
        }
        std::size_t len = 0;
        std::uint32_t cp = 0;
        if ((c & 0xE0) == 0xC0) {
            len = 2;
            cp = c & 0x1Fu;
        } else if ((c & 0xF0) == 0xE0) {
            len = 3;
            cp = c & 0x0Fu;
        } else if ((c & 0xF8) == 0xF0) {
            len = 4;
            cp = c & 0x07u;
        } else {
            return false;
        }
        if (i + len > text.size()) return false;
        for (std::size_t k = 1; k < len; ++k) {
            const auto cc = static_cast<unsigned char>(text[i + k]);
            if (!is_continuation(cc)) return false;
            cp = (cp << 6) | (cc & 0x3Fu);
        }
        const std::uint32_t min = len == 2 ? 0x80 : len == 3 ? 0x800 : 0x10000;
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
        i += len;
    }
    return true;
}

std::string describe(const Token& token) {
    switch (token.kind) {
        case TokenKind::eof:
            return "<EOF>";
        case TokenKind::name:
            return fmt::format("Name \"{}\"", token.raw);
        case TokenKind::int_value:
            return fmt::format("Int \"{}\"", token.raw);
        case TokenKind::float_value:
            return fmt::format("Float \"{}\"", token.raw);
        case TokenKind::string:
        case TokenKind::block_string:
            return "String";
        default:
            return fmt::format("\"{}\"", token.raw);
    }
}

void Lexer::advance(std::size_t bytes) {
    for (std::size_t i = 0; i < bytes && pos_ < src_.size(); ++i, ++pos_)
        if (!is_continuation(static_cast<unsigned char>(src_[pos_]))) ++column_;
}

void Lexer::newline(std::size_t bytes) {
    pos_ += bytes;
    ++line_;
    column_ = 1;
}

Result<Token> Lexer::next() {
    // GraphQL §2.1.7 Ignored Tokens.
    while (pos_ < src_.size()) {
        const char c = src_[pos_];
        if (c == ' ' || c == '\t' || c == ',') {
            advance(1);
        } else if (c == '\n') {
            newline(1);
        } else if (c == '\r') {
            newline(pos_ + 1 < src_.size() && src_[pos_ + 1] == '\n' ? 2 : 1);
        } else if (c == '#') {  // §2.1.4 Comments run to the end of the line
            while (pos_ < src_.size() && src_[pos_] != '\n' && src_[pos_] != '\r') advance(1);
        } else if (src_.substr(pos_, 3) == "\xEF\xBB\xBF") {  // §2.1.1 Unicode BOM
            advance(3);
        } else {
            break;
        }
    }
    const Location start = here();
    if (pos_ >= src_.size()) return Token{TokenKind::eof, {}, {}, start};
    if (++tokens_ > limits_.max_tokens)
        return fail(ErrorKind::limit,
                    fmt::format("document has more than {} tokens", limits_.max_tokens), {start});
    const char c = src_[pos_];
    const auto punct = [&](TokenKind kind, std::size_t len) -> Result<Token> {
        Token t{kind, src_.substr(pos_, len), {}, start};
        advance(len);
        return t;
    };
    switch (c) {
        case '!':
            return punct(TokenKind::bang, 1);
        case '$':
            return punct(TokenKind::dollar, 1);
        case '&':
            return punct(TokenKind::amp, 1);
        case '(':
            return punct(TokenKind::paren_l, 1);
        case ')':
            return punct(TokenKind::paren_r, 1);
        case ':':
            return punct(TokenKind::colon, 1);
        case '=':
            return punct(TokenKind::equals, 1);
        case '@':
            return punct(TokenKind::at, 1);
        case '[':
            return punct(TokenKind::bracket_l, 1);
        case ']':
            return punct(TokenKind::bracket_r, 1);
        case '{':
            return punct(TokenKind::brace_l, 1);
        case '|':
            return punct(TokenKind::pipe, 1);
        case '}':
            return punct(TokenKind::brace_r, 1);
        case '.':
            if (src_.substr(pos_, 3) == "...") return punct(TokenKind::spread, 3);
            return fail(ErrorKind::syntax, "Syntax Error: unexpected \".\"; did you mean \"...\"?",
                        {start});
        case '"':
            if (src_.substr(pos_, 3) == "\"\"\"") return read_block_string(start);
            return read_string(start);
        default:
            break;
    }
    if (is_name_start(c)) {  // §2.1.9 Names
        std::size_t end = pos_ + 1;
        while (end < src_.size() && is_name_continue(src_[end])) ++end;
        return punct(TokenKind::name, end - pos_);
    }
    if (c == '-' || is_digit(c)) return read_number(start);
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7F)
        return fail(ErrorKind::syntax,
                    fmt::format("Syntax Error: invalid character U+{:04X}", byte), {start});
    return fail(ErrorKind::syntax, "Syntax Error: unexpected character", {start});
}

// GraphQL §2.9.1 IntValue and §2.9.2 FloatValue: no leading zeros, and a number may not be
// directly followed by "." or a NameStart.
Result<Token> Lexer::read_number(Location start) {
    std::size_t i = pos_;
    bool is_float = false;
    if (src_[i] == '-') ++i;
    if (i < src_.size() && src_[i] == '0') {
        ++i;
        if (i < src_.size() && is_digit(src_[i]))
            return fail(ErrorKind::syntax, "Syntax Error: invalid number, unexpected digit after 0",
                        {start});
    } else if (i < src_.size() && is_digit(src_[i])) {
        while (i < src_.size() && is_digit(src_[i])) ++i;
    } else {
        return fail(ErrorKind::syntax, "Syntax Error: invalid number, expected digit", {start});
    }
    if (i < src_.size() && src_[i] == '.') {
        is_float = true;
        ++i;
        if (i >= src_.size() || !is_digit(src_[i]))
            return fail(ErrorKind::syntax,
                        "Syntax Error: invalid number, expected digit after \".\"", {start});
        while (i < src_.size() && is_digit(src_[i])) ++i;
    }
    if (i < src_.size() && (src_[i] == 'e' || src_[i] == 'E')) {
        is_float = true;
        ++i;
        if (i < src_.size() && (src_[i] == '+' || src_[i] == '-')) ++i;
        if (i >= src_.size() || !is_digit(src_[i]))
            return fail(ErrorKind::syntax, "Syntax Error: invalid number, expected exponent digit",
                        {start});
        while (i < src_.size() && is_digit(src_[i])) ++i;
    }
    if (i < src_.size() && (src_[i] == '.' || is_name_start(src_[i])))
        return fail(ErrorKind::syntax,
                    "Syntax Error: invalid number, unexpected character after it", {start});
    Token t{is_float ? TokenKind::float_value : TokenKind::int_value,
            src_.substr(pos_, i - pos_),
            {},
            start};
    advance(i - pos_);
    return t;
}

// GraphQL §2.9.4 StringValue: escapes \" \\ \/ \b \f \n \r \t \uXXXX and \u{X...}; surrogate pairs
// combine, a lone surrogate is an error.
Result<Token> Lexer::read_string(Location start) {
    const std::size_t begin = pos_;
    advance(1);
    std::string value;
    while (true) {
        if (pos_ >= src_.size() || src_[pos_] == '\n' || src_[pos_] == '\r')
            return fail(ErrorKind::syntax, "Syntax Error: unterminated string", {start});
        const char c = src_[pos_];
        if (c == '"') {
            advance(1);
            break;
        }
        if (c != '\\') {
            value.push_back(c);
            advance(1);
            continue;
        }
        const Location esc = here();
        if (pos_ + 1 >= src_.size())
            return fail(ErrorKind::syntax, "Syntax Error: unterminated string", {start});
        const char e = src_[pos_ + 1];
        switch (e) {
            case '"':
                value.push_back('"');
                break;
            case '\\':
                value.push_back('\\');
                break;
            case '/':
                value.push_back('/');
                break;
            case 'b':
                value.push_back('\b');
                break;
            case 'f':
                value.push_back('\f');
                break;
            case 'n':
                value.push_back('\n');
                break;
            case 'r':
                value.push_back('\r');
                break;
            case 't':
                value.push_back('\t');
                break;
            case 'u':
                break;
            default:
                return fail(ErrorKind::syntax, "Syntax Error: invalid escape sequence", {esc});
        }
        if (e != 'u') {
            advance(2);
            continue;
        }
        advance(2);
        const auto read_code = [&]() -> std::int64_t {
            std::uint32_t cp = 0;
            if (pos_ < src_.size() && src_[pos_] == '{') {
                advance(1);
                std::size_t digits = 0;
                while (pos_ < src_.size() && src_[pos_] != '}') {
                    const int h = hex_value(src_[pos_]);
                    if (h < 0 || ++digits > 8) return -1;
                    cp = cp * 16 + static_cast<std::uint32_t>(h);
                    if (cp > 0x10FFFF) return -1;
                    advance(1);
                }
                if (pos_ >= src_.size() || digits == 0) return -1;
                advance(1);
                return cp;
            }
            for (int k = 0; k < 4; ++k) {
                const int h = pos_ < src_.size() ? hex_value(src_[pos_]) : -1;
                if (h < 0) return -1;
                cp = cp * 16 + static_cast<std::uint32_t>(h);
                advance(1);
            }
            return cp;
        };
        auto cp = read_code();
        if (cp < 0) return fail(ErrorKind::syntax, "Syntax Error: invalid Unicode escape", {esc});
        if (cp >= 0xD800 && cp <= 0xDBFF) {  // a leading surrogate needs its trailing half
            if (src_.substr(pos_, 2) != "\\u")
                return fail(ErrorKind::syntax, "Syntax Error: lone surrogate in escape", {esc});
            advance(2);
            const auto low = read_code();
            if (low < 0xDC00 || low > 0xDFFF)
                return fail(ErrorKind::syntax, "Syntax Error: lone surrogate in escape", {esc});
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return fail(ErrorKind::syntax, "Syntax Error: lone surrogate in escape", {esc});
        }
        append_utf8(value, static_cast<std::uint32_t>(cp));
    }
    return Token{TokenKind::string, src_.substr(begin, pos_ - begin), std::move(value), start};
}

Result<Token> Lexer::read_block_string(Location start) {
    const std::size_t begin = pos_;
    advance(3);
    std::string raw;
    while (true) {
        if (pos_ >= src_.size())
            return fail(ErrorKind::syntax, "Syntax Error: unterminated block string", {start});
        if (src_.substr(pos_, 3) == "\"\"\"") {
            advance(3);
            break;
        }
        if (src_.substr(pos_, 4) == "\\\"\"\"") {
            raw.append("\"\"\"");
            advance(4);
            continue;
        }
        const char c = src_[pos_];
        if (c == '\n' || c == '\r') {
            raw.push_back(c);
            if (c == '\r' && pos_ + 1 < src_.size() && src_[pos_ + 1] == '\n') {
                raw.push_back('\n');
                newline(2);
            } else {
                newline(1);
            }
            continue;
        }
        raw.push_back(c);
        advance(1);
    }
    return Token{TokenKind::block_string, src_.substr(begin, pos_ - begin), block_string_value(raw),
                 start};
}

}  // namespace credence::graphql::detail
