#include <credence/core/feedback_file.hpp>

#include <algorithm>
#include <string>

#include <credence/core/address.hpp>
#include <credence/core/jcs.hpp>
#include <credence/core/keccak.hpp>

namespace credence::core {

std::string_view to_string(FeedbackError e) noexcept {
    switch (e) {
        case FeedbackError::bad_input:
            return "bad feedback field";
        case FeedbackError::extra_not_object:
            return "extra feedback fields must be a JSON object";
        case FeedbackError::extra_conflict:
            return "extra feedback field replaces a field already set";
        case FeedbackError::serialization:
            return "feedback file cannot be canonicalized";
    }
    return "unknown feedback error";
}

std::string_view to_string(FeedbackReason r) noexcept {
    switch (r) {
        case FeedbackReason::not_an_object:
            return "not_an_object";
        case FeedbackReason::missing_field:
            return "missing_field";
        case FeedbackReason::wrong_json_type:
            return "wrong_json_type";
        case FeedbackReason::bad_agent_registry:
            return "bad_agent_registry";
        case FeedbackReason::bad_agent_id:
            return "bad_agent_id";
        case FeedbackReason::bad_client_address:
            return "bad_client_address";
        case FeedbackReason::bad_created_at:
            return "bad_created_at";
        case FeedbackReason::bad_value:
            return "bad_value";
        case FeedbackReason::bad_value_decimals:
            return "bad_value_decimals";
        case FeedbackReason::bad_optional_field:
            return "bad_optional_field";
    }
    return "unknown";
}

std::string_view to_string(FeedbackField f) noexcept {
    switch (f) {
        case FeedbackField::agent_registry:
            return "agentRegistry";
        case FeedbackField::agent_id:
            return "agentId";
        case FeedbackField::client_address:
            return "clientAddress";
        case FeedbackField::value:
            return "value";
        case FeedbackField::value_decimals:
            return "valueDecimals";
    }
    return "unknown";
}

namespace {

constexpr std::string_view kMustFields[] = {"agentRegistry", "agentId", "clientAddress",
                                            "createdAt",     "value",   "valueDecimals"};

// 2^53 - 1: the largest integer every JSON implementation reads exactly (I-JSON §2.2).
const Uint256 kMaxSafeInteger{9007199254740991ULL};

std::string client_caip10(uint64_t chain_id, const EvmAddress& a) {
    Address addr;
    addr.bytes = a;
    return "eip155:" + std::to_string(chain_id) + ":" + addr.to_checksum_hex();
}

JsonValue integer_json(const Int256& v) {
    if (v.magnitude() <= kMaxSafeInteger) {
        const auto m = static_cast<double>(v.magnitude().limbs[0]);
        return JsonValue(v.is_negative() ? -m : m);
    }
    return JsonValue(v.to_dec());  // RFC 7493 §2.2: large integers as strings
}

JsonValue string_array_json(const std::vector<std::string>& xs) {
    JsonValue::Array arr;
    arr.reserve(xs.size());
    for (const auto& s : xs) arr.emplace_back(s);
    return JsonValue(std::move(arr));
}

bool is_digits(std::string_view s, size_t pos, size_t n) {
    if (s.size() < pos + n) return false;
    return std::all_of(s.begin() + static_cast<std::ptrdiff_t>(pos),
                       s.begin() + static_cast<std::ptrdiff_t>(pos + n),
                       [](char c) { return c >= '0' && c <= '9'; });
}

int num(std::string_view s, size_t pos, size_t n) {
    int v = 0;
    for (size_t i = 0; i < n; ++i) v = v * 10 + (s[pos + i] - '0');
    return v;
}

}  // namespace

bool is_rfc3339_date_time(std::string_view s) noexcept {
    // full-date "T" partial-time time-offset (RFC 3339 §5.6); 'T'/'Z' case-insensitive per §5.6
    // NOTE.
    if (s.size() < 20) return false;
    if (!is_digits(s, 0, 4) || s[4] != '-' || !is_digits(s, 5, 2) || s[7] != '-' ||
        !is_digits(s, 8, 2) || (s[10] != 'T' && s[10] != 't') || !is_digits(s, 11, 2) ||
        s[13] != ':' || !is_digits(s, 14, 2) || s[16] != ':' || !is_digits(s, 17, 2)) {
        return false;
    }
    const int year = num(s, 0, 4), month = num(s, 5, 2), day = num(s, 8, 2);
    const int hour = num(s, 11, 2), minute = num(s, 14, 2), second = num(s, 17, 2);
    static constexpr int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (month < 1 || month > 12 || day < 1 || day > kDays[month - 1]) return false;
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    if (month == 2 && day == 29 && !leap) return false;
    if (hour > 23 || minute > 59 || second > 60) return false;  // 60: leap second
    size_t i = 19;
    if (i < s.size() && s[i] == '.') {
        ++i;
        const size_t start = i;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
        if (i == start) return false;
    }
    if (i >= s.size()) return false;
    if (s[i] == 'Z' || s[i] == 'z') return i + 1 == s.size();
    if (s[i] != '+' && s[i] != '-') return false;
    if (s.size() != i + 6 || !is_digits(s, i + 1, 2) || s[i + 3] != ':' ||
        !is_digits(s, i + 4, 2)) {
        return false;
    }
    return num(s, i + 1, 2) <= 23 && num(s, i + 4, 2) <= 59;
}

Result<BuiltFeedbackFile, FeedbackError> build_feedback_file(const FeedbackFile& f,
                                                             const JsonValue* extra) {
    if (!is_rfc3339_date_time(f.created_at)) {
        return fail(FeedbackError::bad_input,
                    "createdAt \"" + f.created_at + "\" is not an RFC 3339 date-time");
    }
    if (f.value.decimals > kMaxValueDecimals ||
        f.value.value.magnitude() > max_abs_feedback_value()) {
        return fail(FeedbackError::bad_input, "value/valueDecimals outside the ERC-8004 bounds");
    }
    if (f.client_chain_id == 0) {
        return fail(FeedbackError::bad_input, "clientAddress chain ID must not be 0");
    }
    JsonValue::Object obj;
    auto put = [&obj](std::string key, JsonValue v) {
        obj.push_back(JsonMember{std::move(key), std::move(v)});
    };
    // ERC-8004 §Off-Chain Feedback File Structure, MUST FIELDS.
    put("agentRegistry", JsonValue(to_string(f.agent_registry)));
    put("agentId", integer_json(Int256(f.agent_id)));
    if (f.agent_id.bit(255)) {  // Int256 view would be negative: write the unsigned decimal
        obj.back().value = JsonValue(f.agent_id.to_dec());
    }
    put("clientAddress", JsonValue(client_caip10(f.client_chain_id, f.client_address)));
    put("createdAt", JsonValue(f.created_at));
    put("value", integer_json(f.value.value));
    put("valueDecimals", JsonValue(static_cast<double>(f.value.decimals)));
    // ALL OPTIONAL FIELDS
    if (f.tag1) put("tag1", JsonValue(*f.tag1));
    if (f.tag2) put("tag2", JsonValue(*f.tag2));
    if (f.endpoint) put("endpoint", JsonValue(*f.endpoint));
    if (f.mcp) {
        static constexpr std::string_view kKinds[] = {"tool", "prompt", "resource"};
        JsonValue::Object m;
        m.push_back(
            {std::string(kKinds[static_cast<size_t>(f.mcp->kind)]), JsonValue(f.mcp->name)});
        put("mcp", JsonValue(std::move(m)));
    }
    if (f.a2a) {
        JsonValue::Object a;
        a.push_back({"skills", string_array_json(f.a2a->skills)});
        if (f.a2a->context_id) a.push_back({"contextId", JsonValue(*f.a2a->context_id)});
        if (f.a2a->task_id) a.push_back({"taskId", JsonValue(*f.a2a->task_id)});
        put("a2a", JsonValue(std::move(a)));
    }
    if (f.oasf) {
        JsonValue::Object o;
        o.push_back({"skills", string_array_json(f.oasf->skills)});
        o.push_back({"domains", string_array_json(f.oasf->domains)});
        put("oasf", JsonValue(std::move(o)));
    }
    if (f.proof_of_payment) {
        JsonValue::Object p;
        p.push_back({"fromAddress", JsonValue(f.proof_of_payment->from_address)});
        p.push_back({"toAddress", JsonValue(f.proof_of_payment->to_address)});
        p.push_back({"chainId", JsonValue(f.proof_of_payment->chain_id)});
        p.push_back({"txHash", JsonValue(f.proof_of_payment->tx_hash)});
        put("proofOfPayment", JsonValue(std::move(p)));
    }
    if (extra != nullptr) {
        if (!extra->is_object()) {
            return fail(FeedbackError::extra_not_object, "extra feedback fields must be an object");
        }
        for (const JsonMember& m : extra->as_object()) {
            const bool must = std::find(std::begin(kMustFields), std::end(kMustFields), m.key) !=
                              std::end(kMustFields);
            const bool taken = std::any_of(obj.begin(), obj.end(),
                                           [&](const JsonMember& x) { return x.key == m.key; });
            if (must || taken) {
                return fail(FeedbackError::extra_conflict,
                            "extra field \"" + m.key + "\" would replace " +
                                (must ? "a MUST field" : "a field already set"));
            }
            obj.push_back(m);
        }
    }
    auto canon = canonicalize(JsonValue(std::move(obj)));
    if (!canon) {
        return fail(FeedbackError::serialization, std::string(to_string(canon.error().code)));
    }
    BuiltFeedbackFile out;
    out.bytes = std::move(*canon);
    out.feedback_hash =
        keccak256(ByteView(reinterpret_cast<const uint8_t*>(out.bytes.data()), out.bytes.size()));
    return out;
}

namespace {

class FeedbackValidator {
public:
    explicit FeedbackValidator(FeedbackReport& r) : r_(r) {}

    void issue(FeedbackReason reason, IssueSeverity sev, std::string path, std::string msg) {
        r_.issues.push_back({reason, sev, std::move(path), std::move(msg)});
    }
    void error(FeedbackReason reason, std::string path, std::string msg) {
        issue(reason, IssueSeverity::error, std::move(path), std::move(msg));
    }

    const JsonValue* must(const JsonValue& doc, std::string_view key) {
        const JsonValue* v = doc.find(key);
        if (v == nullptr) {
            error(FeedbackReason::missing_field, "/" + std::string(key),
                  "MUST field \"" + std::string(key) + "\" is missing");
        }
        return v;
    }

    // An integer written as a JSON number (literal text, so exact) or as a decimal string.
    static std::optional<Int256> integer(const JsonValue& v) {
        std::string_view text;
        if (v.is_number()) {
            text = v.as_number().text;
            if (text.empty()) {
                const double d = v.as_number().value;
                if (d != d || d > 9007199254740991.0 || d < -9007199254740991.0 ||
                    static_cast<double>(static_cast<int64_t>(d)) != d) {
                    return std::nullopt;
                }
                return Int256(static_cast<int64_t>(d));
            }
        } else if (v.is_string()) {
            text = v.as_string();
        } else {
            return std::nullopt;
        }
        auto dv = parse_decimal_value(text);  // grammar without fraction: -?(0|[1-9][0-9]*)
        if (!dv || dv->decimals != 0) return std::nullopt;
        return dv->value;
    }

    std::optional<std::string> optional_string(const JsonValue& doc, std::string_view key) {
        const JsonValue* v = doc.find(key);
        if (v == nullptr) return std::nullopt;
        if (!v->is_string()) {
            error(FeedbackReason::wrong_json_type, "/" + std::string(key), "must be a string");
            return std::nullopt;
        }
        return v->as_string();
    }

    std::vector<std::string> strings(const JsonValue* v, const std::string& path) {
        std::vector<std::string> out;
        if (v == nullptr) return out;
        if (!v->is_array()) {
            issue(FeedbackReason::bad_optional_field, IssueSeverity::warning, path,
                  "expected an array of strings");
            return out;
        }
        for (const auto& e : v->as_array()) {
            if (e.is_string()) {
                out.push_back(e.as_string());
            } else {
                issue(FeedbackReason::bad_optional_field, IssueSeverity::warning, path,
                      "expected an array of strings");
            }
        }
        return out;
    }

    const JsonValue* optional_object(const JsonValue& doc, std::string_view key) {
        const JsonValue* v = doc.find(key);
        if (v == nullptr) return nullptr;
        if (!v->is_object()) {
            error(FeedbackReason::wrong_json_type, "/" + std::string(key), "must be an object");
            return nullptr;
        }
        return v;
    }

    void run(const JsonValue& doc) {
        if (!doc.is_object()) {
            error(FeedbackReason::not_an_object, "", "the feedback file must be an object");
            return;
        }
        FeedbackFile& f = r_.file;
        if (const JsonValue* v = must(doc, "agentRegistry")) {
            auto reg = v->is_string() ? parse_agent_registry(v->as_string())
                                      : fail(CaipError::malformed, "not a string");
            if (reg) {
                f.agent_registry = *reg;
            } else {
                error(FeedbackReason::bad_agent_registry, "/agentRegistry",
                      "agentRegistry must be {namespace}:{chainId}:{identityRegistry}");
            }
        }
        if (const JsonValue* v = must(doc, "agentId")) {
            auto id = integer(*v);
            if (!id || id->is_negative()) {
                // Integers >= 2^255 only as unsigned text.
                auto u = v->is_number() ? json_uint256(*v)
                                        : v->is_string()
                             ? [&]() -> std::optional<Uint256> {
                    auto p = Uint256::from_dec(v->as_string());
                    if (!p || v->as_string().empty() ||
                        (v->as_string().size() > 1 && v->as_string()[0] == '0')) {
                        return std::nullopt;
                    }
                    return *p;
                }()
                    : std::nullopt;
                if (u) {
                    f.agent_id = *u;
                } else {
                    error(FeedbackReason::bad_agent_id, "/agentId",
                          "agentId must be a non-negative integer");
                }
            } else {
                f.agent_id = id->bits;
            }
        }
        if (const JsonValue* v = must(doc, "clientAddress")) {
            bool ok = false;
            if (v->is_string()) {
                if (auto acc = parse_account_id(v->as_string())) {
                    auto chain = eip155_chain_id(acc->chain);
                    auto addr = eip155_address(*acc);
                    if (chain && addr && *chain != 0) {
                        f.client_chain_id = *chain;
                        f.client_address = *addr;
                        ok = true;
                    }
                }
            }
            if (!ok) {
                error(FeedbackReason::bad_client_address, "/clientAddress",
                      "clientAddress must be a CAIP-10 account ID eip155:{chainId}:{address}");
            }
        }
        if (const JsonValue* v = must(doc, "createdAt")) {
            if (!v->is_string()) {
                error(FeedbackReason::wrong_json_type, "/createdAt", "must be a string");
            } else {
                f.created_at = v->as_string();
                if (!is_rfc3339_date_time(f.created_at)) {
                    issue(FeedbackReason::bad_created_at, IssueSeverity::warning, "/createdAt",
                          "createdAt is not an RFC 3339 date-time like the spec's example");
                }
            }
        }
        std::optional<Int256> value;
        std::optional<unsigned> decimals;
        if (const JsonValue* v = must(doc, "value")) {
            value = integer(*v);
            if (!value) {
                error(FeedbackReason::bad_value, "/value", "value must be an integer (int128)");
            } else if (value->magnitude() > max_abs_feedback_value()) {
                error(FeedbackReason::bad_value, "/value", "|value| > 1e38");
                value.reset();
            }
        }
        if (const JsonValue* v = must(doc, "valueDecimals")) {
            auto u = json_uint256(*v);
            if (!u || *u > Uint256{kMaxValueDecimals}) {
                error(FeedbackReason::bad_value_decimals, "/valueDecimals",
                      "valueDecimals must be an integer between 0 and 18");
            } else {
                decimals = static_cast<unsigned>(u->limbs[0]);
            }
        }
        if (value && decimals) f.value = DecimalValue{*value, static_cast<uint8_t>(*decimals)};
        f.tag1 = optional_string(doc, "tag1");
        f.tag2 = optional_string(doc, "tag2");
        f.endpoint = optional_string(doc, "endpoint");
        if (const JsonValue* m = optional_object(doc, "mcp")) {
            // { "tool": "ToolName" } or { "prompt": ... } / { "resource": ... }
            const auto& members = m->as_object();
            static constexpr std::string_view kKinds[] = {"tool", "prompt", "resource"};
            const auto* k = members.size() == 1
                                ? std::find(std::begin(kKinds), std::end(kKinds), members[0].key)
                                : std::end(kKinds);
            if (k == std::end(kKinds) || !members[0].value.is_string()) {
                issue(FeedbackReason::bad_optional_field, IssueSeverity::warning, "/mcp",
                      "mcp should be one of {tool|prompt|resource: name}");
            } else {
                f.mcp = McpContext{static_cast<McpContext::Kind>(k - std::begin(kKinds)),
                                   members[0].value.as_string()};
            }
        }
        if (const JsonValue* a = optional_object(doc, "a2a")) {
            A2aContext ctx;
            ctx.skills = strings(a->find("skills"), "/a2a/skills");
            if (const JsonValue* c = a->find("contextId"); c && c->is_string()) {
                ctx.context_id = c->as_string();
            }
            if (const JsonValue* t = a->find("taskId"); t && t->is_string()) {
                ctx.task_id = t->as_string();
            }
            f.a2a = std::move(ctx);
        }
        if (const JsonValue* o = optional_object(doc, "oasf")) {
            OasfContext ctx;
            ctx.skills = strings(o->find("skills"), "/oasf/skills");
            ctx.domains = strings(o->find("domains"), "/oasf/domains");
            f.oasf = std::move(ctx);
        }
        if (const JsonValue* p = optional_object(doc, "proofOfPayment")) {
            ProofOfPayment pop;
            auto get = [&](std::string_view key, std::string& out) {
                const JsonValue* v = p->find(key);
                if (v != nullptr && v->is_string()) {
                    out = v->as_string();
                } else {
                    issue(FeedbackReason::bad_optional_field, IssueSeverity::warning,
                          "/proofOfPayment/" + std::string(key), "expected a string");
                }
            };
            get("fromAddress", pop.from_address);
            get("toAddress", pop.to_address);
            get("chainId", pop.chain_id);
            get("txHash", pop.tx_hash);
            f.proof_of_payment = std::move(pop);
        }
        // "Other fields ... MAY": unknown members are allowed and not reported.
    }

private:
    FeedbackReport& r_;
};

}  // namespace

bool FeedbackReport::ok() const noexcept {
    return std::none_of(issues.begin(), issues.end(),
                        [](const auto& i) { return i.severity == IssueSeverity::error; });
}

FeedbackReport validate_feedback_file(const JsonValue& doc) {
    FeedbackReport r;
    FeedbackValidator(r).run(doc);
    return r;
}

Result<FeedbackReport, JsonError> validate_feedback_file(std::string_view text) {
    auto doc = parse_json(text);
    if (!doc) return std::unexpected(doc.error());
    return validate_feedback_file(*doc);
}

std::vector<FeedbackMismatch> check_feedback_file(const FeedbackFile& file,
                                                  const OnchainFeedback& chain) {
    std::vector<FeedbackMismatch> out;
    if (!(file.agent_registry == chain.agent_registry)) {
        out.push_back({FeedbackField::agent_registry, to_string(chain.agent_registry),
                       to_string(file.agent_registry)});
    }
    if (!(file.agent_id == chain.agent_id)) {
        out.push_back({FeedbackField::agent_id, chain.agent_id.to_dec(), file.agent_id.to_dec()});
    }
    if (file.client_chain_id != chain.agent_registry.chain_id ||
        file.client_address != chain.client_address) {
        out.push_back({FeedbackField::client_address,
                       client_caip10(chain.agent_registry.chain_id, chain.client_address),
                       client_caip10(file.client_chain_id, file.client_address)});
    }
    if (!(file.value.value == chain.value.value)) {
        out.push_back(
            {FeedbackField::value, chain.value.value.to_dec(), file.value.value.to_dec()});
    }
    if (file.value.decimals != chain.value.decimals) {
        out.push_back({FeedbackField::value_decimals, std::to_string(chain.value.decimals),
                       std::to_string(file.value.decimals)});
    }
    return out;
}

}  // namespace credence::core
