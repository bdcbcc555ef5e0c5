#include <credence/verify/rules/manifest_summary.hpp>

#include <string>
#include <string_view>
#include <vector>

#include <credence/core/json_lenient.hpp>

namespace credence::verify {
namespace {

using Json = nlohmann::json;

using core::lenient::append_strings;
using core::lenient::member;
using core::lenient::string_at;

}  // namespace

std::optional<Json> tool_manifest_summary(const Json& manifest) {
    if (!manifest.is_object()) return std::nullopt;
    Json out = Json::object();
    try {
        out["name"] = string_at(manifest, "name");
        out["description"] = string_at(manifest, "description");
        out["version"] = string_at(manifest, "version");
        std::vector<std::string> tags;
        append_strings(member(manifest, "tags"), tags);
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
