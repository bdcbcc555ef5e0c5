// Standard JSON ABI documents, as emitted by solc (`--abi`) and Foundry (`out/*.json` "abi").
//
// The document is an array of items with "type" function | event | error | constructor |
// fallback | receive. Params carry "name", "type" and, for tuples, "components" (the type is then
// "tuple" plus any array suffix, e.g. "tuple[2][]"); event inputs carry "indexed". "internalType"
// is ignored. Items whose "type" is missing are functions (the ABI spec default). Unknown item
// types are rejected, as are types outside the grammar of abi_type.hpp.
#pragma once

#include <string_view>
#include <vector>

#include <credence/core/abi_signature.hpp>

namespace credence::core {

struct AbiDocument {
    std::vector<AbiFunction> functions;
    std::vector<AbiEvent> events;
    std::vector<AbiCustomError> errors;
    std::vector<AbiParam> constructor_inputs;

    /// First function/event/error with this name (overloads: use the selector lookups).
    [[nodiscard]] const AbiFunction* find_function(std::string_view name) const noexcept;
    [[nodiscard]] const AbiEvent* find_event(std::string_view name) const noexcept;
    [[nodiscard]] const AbiCustomError* find_error(std::string_view name) const noexcept;
    [[nodiscard]] const AbiFunction* find_function(const Selector& selector) const;
    [[nodiscard]] const AbiEvent* find_event(const Hash32& topic0) const;
    [[nodiscard]] const AbiCustomError* find_error(const Selector& selector) const;
};

/// Parses a JSON ABI array (also accepts an object with an "abi" member, as in Foundry artifacts).
[[nodiscard]] Result<AbiDocument, AbiError> parse_json_abi(std::string_view json_text);

}  // namespace credence::core
