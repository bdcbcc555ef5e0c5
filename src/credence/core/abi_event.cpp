#include <credence/core/abi_event.hpp>

namespace credence::core {

LogDecoder::LogDecoder(AbiEvent event) : event_(std::move(event)) {
    if (!event_.anonymous) topic0_ = event_.topic0();
    for (size_t i = 0; i < event_.inputs.size(); ++i) {
        if (event_.inputs[i].indexed)
            ++indexed_count_;
        else
            data_params_.push_back(i);
    }
}

Result<std::vector<LogValue>, AbiError> LogDecoder::decode(std::span<const Hash32> topics,
                                                           ByteView data,
                                                           DecodeOptions options) const {
    // ABI spec §Events: topic0 is the signature hash unless the event is anonymous; each indexed
    // param takes one more topic (at most 4 topics in all, which the count check implies).
    const size_t first = topic0_.has_value() ? 1 : 0;
    if (topics.size() != first + indexed_count_)
        return fail(AbiError::topic_count, std::to_string(topics.size()) + " topics, expected " +
                                               std::to_string(first + indexed_count_));
    if (topic0_.has_value() && topics[0] != *topic0_)
        return fail(AbiError::topic0_mismatch, "topic0 is not the hash of " + event_.signature());

    const auto& inputs = event_.inputs;
    std::vector<LogValue> out(inputs.size());
    // Non-indexed params are decoded from `data` straight into their slots.
    struct Ctx {
        const std::vector<AbiParam>& inputs;
        const std::vector<size_t>& map;
        std::vector<LogValue>& out;
    } ctx{inputs, data_params_, out};
    auto r = detail::decode_list_into(
        data_params_.size(),
        [](const void* c, size_t i) -> const AbiType& {
            const auto* x = static_cast<const Ctx*>(c);
            return x->inputs[x->map[i]].type;
        },
        &ctx, data, options,
        [](void* c, size_t i) -> AbiValue& {
            auto* x = static_cast<Ctx*>(c);
            return x->out[x->map[i]].value;
        },
        &ctx);
    if (!r) return std::unexpected(std::move(r.error()));

    size_t topic = first;
    for (size_t i = 0; i < inputs.size(); ++i) {
        const AbiParam& p = inputs[i];
        if (!p.indexed) continue;
        const Hash32& word = topics[topic++];
        if (p.type.is_value_type()) {
            auto v = decode_word(p.type, word);
            if (!v) return std::unexpected(std::move(v.error()));
            out[i].value = std::move(*v);
        } else {
            // Solidity: indexed reference types are stored as keccak256 of their encoding.
            out[i].value = FixedBytes(word);
            out[i].hashed = true;
        }
    }
    return out;
}

Result<std::vector<LogValue>, AbiError> decode_log(const AbiEvent& event,
                                                   std::span<const Hash32> topics, ByteView data,
                                                   DecodeOptions options) {
    return LogDecoder(event).decode(topics, data, options);
}

}  // namespace credence::core
