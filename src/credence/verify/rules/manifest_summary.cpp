#include <credence/verify/rules/manifest_summary.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace credence::verify {
namespace {

using Json = nlohmann::json;

std::string string_at(const Json& j, std::string_view key) {
    if (!j.is_object()) return {};
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string{};
}

const Json& member(const Json& j, std::string_view key) {
    static const Json kNull;
    if (!j.is_object()) return kNull;
    auto it = j.find(key);
    return it == j.end() ? kNull : *it;
}

void add_strings(const Json& array, std::vector<std::string>& out) {
    if (!array.is_array()) return;
    for (const auto& item : array) {
        if (item.is_string()) out.push_back(item.get<std::string>());
    }
}

}  // namespace

std::optional<Json> tool_manifest_summary(const Json& manifest) {
    if (!manifest.is_object()) return std::nullopt;
    Json out = Json::object();
    try {
        out["name"] = string_at(manifest, "name");
        out["description"] = string_at(manifest, "description");
        out["version"] = string_at(manifest, "version");
        std::vector<std::string> tags;
        add_strings(member(manifest, "tags"), tags);
        out["tags"] = tags;
        // ERC-8257 §3 Pricing: entries of {amount, asset, recipient, protocol}.
        std::vector<std::string> protocols;
        std::vector<std::string> assets;
        const Json& pricing = member(manifest, "pricing");
        if (pricing.is_array()) {
            for (const auto& entry : pricing) {
                const std::string protocol = string_at(entry, "protocol");
                const std::string asset = string_at(entry, "asset");
                if (!protocol.empty()) protocols.push_back(protocol);
                if (!asset.empty()) assets.push_back(asset);
            }
        }
        out["pricingProtocols"] = protocols;
        out["assets"] = assets;
        // ERC-8257 §4 Access: access.requirements[].kind.
        std::vector<std::string> kinds;
        const Json& requirements = member(member(manifest, "access"), "requirements");
        if (requirements.is_array()) {
            for (const auto& r : requirements) {
                const std::string kind = string_at(r, "kind");
                if (!kind.empty()) kinds.push_back(kind);
            }
        }
        out["accessKinds"] = kinds;
    } catch (const Json::exception&) {
        return std::nullopt;
    }
    return out;
}

}  // namespace credence::verify
